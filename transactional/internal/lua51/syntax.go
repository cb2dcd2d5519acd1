package lua51

import (
	"fmt"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// checkSyntax reports src's first syntax error as Redis's Lua gives it,
// "chunk:line: message", or "" when src is valid Lua 5.1. The port of Lua
// 5.1's lexer and parser lives in the gopher-lua copy (parse.CheckLua51),
// where the front end reads the same words.
func checkSyntax(src, chunk string) string {
	if e := parse.CheckLua51(src); e != nil {
		return fmt.Sprintf("%s:%d: %s", chunk, e.Line, e.Msg)
	}
	return ""
}
