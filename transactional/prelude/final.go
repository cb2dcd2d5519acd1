package prelude

import (
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// rawName is the third local the runtime's declaration makes: Redis's own
// redis (for a library, one that forwards to it), which the writes that
// are the last thing of their run that can fail call directly.
const rawName = "__scriptgen_raw"

// direct returns code with its final writes (see analysis) sent past the
// journal: `redis` of `redis.call(` at those sites becomes rawName. Such a
// write needs no undo, as nothing can fail after it; the journal then
// costs nothing for it. Lines keep their numbers. Code that already names
// the runtime's locals is returned as is.
func direct(code string, an analysis) string {
	if len(an.final) == 0 || strings.Contains(code, "__scriptgen_") {
		return code
	}
	offs := siteOffsets(code)
	if len(offs) != len(an.sites) {
		return code // the scanner and the parser disagree: change nothing
	}
	var b strings.Builder
	last := 0
	for i, site := range an.sites {
		if !an.final[site] {
			continue
		}
		o := offs[i]
		if o.line != site.Line() {
			return code
		}
		b.WriteString(code[last:o.at])
		b.WriteString(rawName)
		last = o.at + len("redis")
	}
	b.WriteString(code[last:])
	return b.String()
}

type offset struct{ at, line int }

// siteOffsets finds, in source order, the byte offset and line of each
// `redis` that starts a `redis.call` or `redis.pcall` (not a field
// `x.redis.call`), with gopher-lua's own scanner, so that strings and
// comments are skipped exactly as the parser skips them.
func siteOffsets(code string) []offset {
	lineStart := []int{0, 0} // lines count from 1
	for i := 0; i < len(code); i++ {
		if code[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	sc := parse.NewScanner(strings.NewReader(code), "<script>")
	lx := &parse.Lexer{}
	var toks []ast.Token
	for {
		tok, err := sc.Scan(lx)
		if err != nil || tok.Type < 0 {
			break
		}
		lx.PrevTokenType = tok.Type
		toks = append(toks, tok)
	}
	var out []offset
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
		out = append(out, offset{at: lineStart[t.Pos.Line] + t.Pos.Column - 1, line: t.Pos.Line})
	}
	return out
}
