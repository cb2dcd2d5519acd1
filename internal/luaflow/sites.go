package luaflow

import (
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"

	"github.com/scriptgen/scriptgen/internal/script"
)

// An Offset is where a redis.call or redis.pcall site stands in its
// source: the byte offset of its `redis` (or of its alias's name, Alias)
// and its line; End is just past the call's closing parenthesis, or -1.
type Offset struct {
	At, Line, End int
	Alias         string
}

// Offsets is SiteOffsets with the calls of the aliases the proof followed
// (`rcall(…)` of `local rcall = redis.call`): the offsets of f.Sites, when
// the scanner and the parser agree.
func (f Flow) Offsets(code string) []Offset { return siteOffsets(code, f.aliases) }

// SiteOffsets finds, in source order, the byte offset and line of each
// `redis` that starts a `redis.call` or `redis.pcall` (not a field
// `x.redis.call`), with gopher-lua's own scanner, so that strings and
// comments are skipped exactly as the parser skips them.
func SiteOffsets(code string) []Offset { return siteOffsets(code, nil) }

// siteOffsets finds the sites of redis.call and redis.pcall and the calls
// of aliases, names declared only as aliases (see findAliases): an alias's
// name followed by what starts a call's arguments is a call of it.
func siteOffsets(code string, aliases map[string]string) []Offset {
	lineStart := []int{0, 0} // lines count from 1
	for i := 0; i < len(code); i++ {
		if code[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	at := func(p ast.Position) int { return lineStart[p.Line] + p.Column - 1 }
	toks := script.Tokens(code)
	var out []Offset
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		if t.Type != parse.TIdent || i > 0 && (toks[i-1].Type == '.' || toks[i-1].Type == ':') {
			continue
		}
		args := i + 3 // where the call's arguments start
		var alias string
		switch {
		case aliases[t.Str] != "" && callArgs(toks, i+1):
			args, alias = i+1, t.Str
		case t.Str != "redis" || i+2 >= len(toks) || toks[i+1].Type != '.' ||
			toks[i+2].Type != parse.TIdent || (toks[i+2].Str != "call" && toks[i+2].Str != "pcall"):
			continue
		case aliases != nil && !callArgs(toks, args):
			continue // `local rcall = redis.call`: no site
		}
		if t.Pos.Line >= len(lineStart) {
			return nil
		}
		o := Offset{At: at(t.Pos), Line: t.Pos.Line, End: -1, Alias: alias}
		if args < len(toks) && toks[args].Type == '(' {
			depth := 0
			for j := args; j < len(toks); j++ {
				switch toks[j].Type {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
				}
				if depth == 0 {
					if p := toks[j].Pos; toks[j].Type == ')' && p.Line < len(lineStart) {
						o.End = at(p) + 1
					}
					break
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// callArgs: the token at i starts a call's arguments.
func callArgs(toks []ast.Token, i int) bool {
	return i < len(toks) && (toks[i].Type == '(' || toks[i].Type == '{' || toks[i].Type == parse.TString)
}
