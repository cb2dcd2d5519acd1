package script

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// Syntax errors in Lua 5.1's words. Redis runs Lua 5.1, and gopher-lua's
// yacc parser says only "syntax error near …" and accepts Lua 5.2's goto
// and labels. A script is checked with the port of Lua 5.1's own parser
// in the gopher-lua copy (parse.CheckLua51), the message is the one
// Redis's EVAL gives for it, and syntax from a later Lua is named.

// lua51 is src's syntax error as Lua 5.1 gives it, nil when src is valid
// Lua 5.1. parsed says gopher-lua's parser took src: then only what that
// parser accepts and Lua 5.1 does not (goto, labels) is looked for.
func lua51(path, src string, parsed bool) *Error {
	if parsed && !strings.Contains(src, "goto") && !strings.Contains(src, "::") {
		return nil
	}
	e := parse.CheckLua51(src)
	if e == nil {
		return nil
	}
	off := min(e.Offset, len(src))
	line := 1 + strings.Count(src[:off], "\n")
	col := off - strings.LastIndexByte(src[:off], '\n')
	msg := "lua: " + e.Msg
	if why := later(src, off); why != "" {
		msg += ": " + why
	}
	return &Error{Path: path, Pos: Pos{line, col}, Msg: msg}
}

// later names the syntax of a later Lua that stops Lua 5.1 at src[off:],
// or "".
func later(src string, off int) string {
	at := src[off:]
	prev := byte(0)
	if off > 0 {
		prev = src[off-1]
	}
	before := strings.TrimRight(src[:off], " \t\r\n")
	const redis = "; Redis runs Lua 5.1"
	switch {
	case strings.HasSuffix(before, "goto") && !isNameByte(before, len(before)-5):
		return "goto is Lua 5.2" + redis
	case strings.HasPrefix(at, "::"):
		return "labels (::name::) are Lua 5.2" + redis
	case strings.HasPrefix(at, "/") && prev == '/':
		return "// (floor division) is Lua 5.3" + redis + ": use math.floor(a / b)"
	case strings.HasPrefix(at, "<") && prev == '<':
		return "<< is Lua 5.3" + redis + ": use bit.lshift"
	case strings.HasPrefix(at, ">") && prev == '>':
		return ">> is Lua 5.3" + redis + ": use bit.rshift"
	case strings.HasPrefix(at, "&"):
		return "& is Lua 5.3" + redis + ": use bit.band"
	case strings.HasPrefix(at, "|"):
		return "| is Lua 5.3" + redis + ": use bit.bor"
	case strings.HasPrefix(at, "~") && !strings.HasPrefix(at, "~="):
		return "~ is Lua 5.3" + redis + ": use bit.bxor, or bit.bnot for ~x"
	case strings.HasPrefix(at, "<const>"), strings.HasPrefix(at, "<close>"):
		return "local attributes (<const>, <close>) are Lua 5.4" + redis
	}
	return ""
}

// isNameByte reports whether s[i] may be part of a Lua name.
func isNameByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
