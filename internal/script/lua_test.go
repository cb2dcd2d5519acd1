package script

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestReadLua(t *testing.T) {
	src := "--! include: lib/a.lua\n" +
		"--- @include \"inc/b\"\n" +
		"-- lint: ignore globals, unused\n" +
		"return x -- lint: ignore all\n"
	l := ReadLua("dir/s.lua", src)
	if l.Syntax != nil || len(l.AST) != 1 {
		t.Fatalf("AST %v, syntax %v", l.AST, l.Syntax)
	}
	want := []Include{
		{Text: "lib/a.lua", File: filepath.Join("dir", "lib", "a.lua"), Line: 1, Col: 14},
		{Text: "inc/b", File: filepath.Join("dir", "inc", "b.lua"), Line: 2, Col: 14, At: true},
	}
	if !reflect.DeepEqual(l.Includes, want) {
		t.Errorf("includes\n%+v\nwant\n%+v", l.Includes, want)
	}
	// The comment on a line of its own covers the next line, as the one
	// after code covers its own.
	if want := map[int][]string{4: {"globals", "unused", "all"}}; !reflect.DeepEqual(l.Ignores, want) {
		t.Errorf("ignores %v, want %v", l.Ignores, want)
	}
	if !l.Ignored(4, "shadow") || l.Ignored(3, "globals") {
		t.Errorf("Ignored disagrees with %v", l.Ignores)
	}
	bad := ReadLua("dir/s.lua", "local = 1")
	if bad.Syntax == nil || bad.Syntax.Error() != "dir/s.lua:1:7: lua: '<name>' expected near '='" {
		t.Errorf("syntax error %v", bad.Syntax)
	}
}

func TestParseShebang(t *testing.T) {
	sb := ParseShebang(`#!lua flags=no-writes,,allow-stale name="my lib"`)
	if sb.Engine != (Word{"#!lua", 1}) || sb.Name() != "my lib" || !sb.Has("flags") || sb.Has("other") {
		t.Fatalf("%+v", sb)
	}
	want := []Word{{"no-writes", 13}, {"", 23}, {"allow-stale", 24}}
	if got := sb.Options[0].Items(); !reflect.DeepEqual(got, want) {
		t.Errorf("items %+v, want %+v", got, want)
	}
	if sb.Options[1].Col != 36 {
		t.Errorf("name= at column %d, want 36", sb.Options[1].Col)
	}
	if e := ParseShebang("   "); e.Engine.Text != "" || len(e.Options) != 0 {
		t.Errorf("blank line: %+v", e)
	}
}

func TestLintDirective(t *testing.T) {
	s, err := Parse("p.lua", []byte("--! lint: warning key-derived, unused  globals\n--! lint: error\nreturn 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Directive{
		{Text: "warning key-derived, unused  globals", Pos: Pos{1, 11}, Action: Word{"warning", 11},
			Rules: []Word{{"key-derived", 19}, {"unused", 32}, {"globals", 40}}},
		{Text: "error", Pos: Pos{2, 11}, Action: Word{"error", 11}},
	}
	if !reflect.DeepEqual(s.Lint, want) {
		t.Errorf("got\n%+v\nwant\n%+v", s.Lint, want)
	}
}
