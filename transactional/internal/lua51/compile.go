package lua51

import (
	"fmt"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// Compile parses and compiles src under chunk name as Lua 5.1 would:
// what Lua 5.1 refuses is refused, with its "name:line: message near
// 'token'" texts, before gopher-lua's parser sees it.
func Compile(src, name string) (*lua.FunctionProto, error) {
	if msg := checkSyntax(src, name); msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		if pe, ok := err.(*parse.Error); ok {
			return nil, fmt.Errorf("%s", parseError(pe, name, src))
		}
		return nil, err
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		if ce, ok := err.(*lua.CompileError); ok {
			return nil, fmt.Errorf("%s:%d: %s", name, ce.Line, ce.Message)
		}
		return nil, err
	}
	// gopher-lua gives a main chunk Lua 5.1's compat `arg` table, built on
	// every run, which Lua 5.1 itself builds only for functions declaring
	// `...`; no name refers to it in a main chunk, so it is dropped
	// unseen, and with it a table and a map per script run.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return proto, nil
}

// ChunkID is luaO_chunkid: "=name" and "@name" are shown
// bare, a source string as [string "first line..."].
func ChunkID(name string) string {
	if strings.HasPrefix(name, "=") || strings.HasPrefix(name, "@") {
		return name[1:]
	}
	line, _, cut := strings.Cut(name, "\n")
	const max = 60 - len(`[string "..."]`)
	if cut || len(line) > max {
		if len(line) > max {
			line = line[:max]
		}
		return `[string "` + line + `..."]`
	}
	return `[string "` + line + `"]`
}
