package lua51

import (
	"fmt"
	"regexp"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// Error is Lua 5.1's error(): strings and numbers get the position of
// the function at the given level (gopher-lua counts one level short).
func Error(L *lua.LState) int {
	obj := L.Get(1)
	level := L.OptCInt(2, 1)
	switch obj.(type) {
	case lua.LString, lua.LNumber:
		msg, _ := ToString(obj)
		if level > 0 {
			msg = luaWhere(L, level) + msg
		}
		L.Error(lua.LString(msg), 0)
	}
	L.Error(obj, 0)
	return 0
}

// luaWhere is luaL_where: "chunk:line: " for a Lua function at level, empty
// for a Go one.
func luaWhere(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" || dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

var (
	reArith  = regexp.MustCompile(`^(.*?)cannot perform (\w+) operation between (\w+) and (\w+)$`)
	reIndex  = regexp.MustCompile(`^(.*?)attempt to index a non-table object\((\w+)\) with key '.*'$`)
	reCall   = regexp.MustCompile(`^(.*?)attempt to call a non-function object \((\w+)\)$`)
	reLength = regexp.MustCompile(`^(.*?)__len undefined \((\w+)\)$`)
	// gopher-lua's luaL_argerror leaves the function name unquoted.
	reArgError = regexp.MustCompile(`^(.*?)bad argument #(\d+) to ([^' (]+) \(`)
)

// luaMessage rewrites gopher-lua's runtime error texts into Lua 5.1's, as
// far as they can be derived (Lua 5.1 also names the variable involved when
// it knows it, e.g. "global 'x'", which gopher-lua does not track).
func luaMessage(msg string) string { return Message(nil, msg, nil) }

// Message is luaMessage with the variable named as Lua 5.1 would, from
// the failing frame dbg (nil: not known).
func Message(L *lua.LState, msg string, dbg *lua.Debug) string {
	if m := reArith.FindStringSubmatch(msg); m != nil {
		// Lua blames the first operand unless it is a number or a string
		// that converts to one; the VM names such a string a number.
		lhs, rhs := m[3], m[4]
		lhsBad := lhs != "number"
		if m[2] == "concat" {
			lhsBad = lhs != "number" && lhs != "string"
		}
		bad := rhs
		if lhsBad {
			bad = lhs
		}
		verb := "perform arithmetic on"
		if m[2] == "concat" {
			verb = "concatenate"
		}
		out := m[1] + "attempt to " + verb + " a " + bad + " value"
		if dbg != nil {
			out = withVarInfo(L, out, dbg, lhsBad)
		}
		return out
	}
	if m := reIndex.FindStringSubmatch(msg); m != nil {
		out := m[1] + "attempt to index a " + m[2] + " value"
		if dbg != nil {
			out = withVarInfo(L, out, dbg, true)
		}
		return out
	}
	for _, r := range []struct {
		re   *regexp.Regexp
		verb string
	}{{reCall, "call"}, {reLength, "get length of"}} {
		if m := r.re.FindStringSubmatch(msg); m != nil {
			out := m[1] + "attempt to " + r.verb + " a " + m[2] + " value"
			if dbg != nil {
				out = withVarInfo(L, out, dbg, true)
			}
			return out
		}
	}
	if m := reArgError.FindStringSubmatch(msg); m != nil {
		return m[1] + "bad argument #" + m[2] + " to '" + m[3] + "' (" + msg[len(m[0]):]
	}
	return msg
}

func parseError(pe *parse.Error, name, src string) string {
	msg := pe.Message
	if strings.HasPrefix(msg, "syntax error") {
		msg = "unexpected symbol"
	}
	if pe.Pos.Line == parse.EOF {
		return fmt.Sprintf("%s:%d: %s near '<eof>'", name, strings.Count(src, "\n")+1, msg)
	}
	tok := pe.Token
	if tok == "" || tok == "EOF" {
		tok = "<eof>"
	}
	return fmt.Sprintf("%s:%d: %s near '%s'", name, pe.Pos.Line, msg, tok)
}
