package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"
)

// TestAtIncludeEdges covers what the golden cases do not: a directive on a
// last line without a newline, and the errors, each at the directive.
func TestAtIncludeEdges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("lib/h.lua", "local function h() return 1 end")
	write("lib/shebang.lua", "#!lua\nlocal x = 1\n")
	write("lib/broken.lua", "local = 1\n")
	for _, tc := range []struct {
		name, src, want, err string
	}{
		{"last line", "--! name: a\nreturn 1\n--- @include \"lib/h\"", "--! name: a\nreturn 1\n--- @include \"lib/h\"\nlocal function h() return 1 end\n", ""},
		{"twice", "--- @include \"lib/h\"\n--- @include \"lib/h.lua\"\nreturn h()\n", "--- @include \"lib/h\"\nlocal function h() return 1 end\n--- @include \"lib/h.lua\"\nreturn h()\n", ""},
		{"absolute", "--- @include \"/etc/x\"\n", "", `:1:14: @include "/etc/x": must be a path relative to this file, not an absolute one`},
		{"missing", "return 1\n  --- @include \"nope\"\n", "", `:2:16: @include "nope": no such file`},
		{"shebang", "--- @include \"lib/shebang\"\n", "", `:1:14: @include "lib/shebang": a helper cannot carry a #! line`},
		{"syntax", "--- @include \"lib/broken\"\n", "", "broken.lua:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(strings.ReplaceAll(tc.name, " ", "_")+".lua", tc.src)
			s, err := script.Parse(path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			libs, err := Libraries([]*script.Script{s})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := libs[0].EvalSource(s)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tc.want)
			}
		})
	}
}
