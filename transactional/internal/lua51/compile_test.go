package lua51

import (
	"strings"
	"testing"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// TestChunkID: the chunk names Lua 5.1 shows for loadstring's sources.
func TestChunkID(t *testing.T) {
	long := strings.Repeat("x", 60)
	for name, want := range map[string]string{
		"=stdin":   "stdin",
		"@f.lua":   "f.lua",
		"return 1": `[string "return 1"]`,
		"a\nb":     `[string "a..."]`,
		long:       `[string "` + long[:60-len(`[string "..."]`)] + `..."]`,
	} {
		if got := ChunkID(name); got != want {
			t.Errorf("ChunkID(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCompile: Lua 5.1's refusals come first, with Lua's texts; a main
// chunk gets no `arg` table.
func TestCompile(t *testing.T) {
	if _, err := Compile("goto x", "user_script"); err == nil || err.Error() != "user_script:1: '=' expected near 'x'" {
		t.Errorf("goto: %v", err)
	}
	p, err := Compile("return ...", "user_script")
	if err != nil {
		t.Fatal(err)
	}
	if p.IsVarArg&lua.VarArgNeedsArg != 0 {
		t.Error("a main chunk still builds arg")
	}
}
