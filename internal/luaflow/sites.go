package luaflow

import (
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"

	"github.com/scriptgen/scriptgen/internal/script"
)

// An Offset is where a redis.call or redis.pcall site stands in its
// source: the byte offset of its `redis` and its line; End is just past
// the call's closing parenthesis, or -1.
type Offset struct{ At, Line, End int }

// SiteOffsets finds, in source order, the byte offset and line of each
// `redis` that starts a `redis.call` or `redis.pcall` (not a field
// `x.redis.call`), with gopher-lua's own scanner, so that strings and
// comments are skipped exactly as the parser skips them.
func SiteOffsets(code string) []Offset {
	lineStart := []int{0, 0} // lines count from 1
	for i := 0; i < len(code); i++ {
		if code[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	at := func(p ast.Position) int { return lineStart[p.Line] + p.Column - 1 }
	toks := script.Tokens(code)
	var out []Offset
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		if t.Type != parse.TIdent || t.Str != "redis" || toks[i+1].Type != '.' ||
			toks[i+2].Type != parse.TIdent || (toks[i+2].Str != "call" && toks[i+2].Str != "pcall") {
			continue
		}
		if i > 0 && (toks[i-1].Type == '.' || toks[i-1].Type == ':') {
			continue
		}
		if t.Pos.Line >= len(lineStart) {
			return nil
		}
		o := Offset{At: at(t.Pos), Line: t.Pos.Line, End: -1}
		if i+3 < len(toks) && toks[i+3].Type == '(' {
			depth := 0
			for j := i + 3; j < len(toks); j++ {
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
