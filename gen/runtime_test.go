package gen

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

// TestStringLit checks that the literal stringLit writes is the text, and
// raw wherever Go can hold the text raw.
func TestStringLit(t *testing.T) {
	for _, tc := range []struct {
		s   string
		raw bool // written with backquotes
	}{
		{"", false},
		{"return 1\n", true},
		{"-- `rate` units\n", true},
		{"`", false},
		{"``x```", true},
		{"a\r\nb", false},
		{"nul\x00", false},
		{"\ufeffbom", false},
		{"bad \xff", false},
	} {
		lit := fmt.Sprintf("%#v", stringLit(tc.s))
		tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, lit)
		if err != nil {
			t.Errorf("%q: %s: %v", tc.s, lit, err)
			continue
		}
		if got := constant.StringVal(tv.Value); got != tc.s {
			t.Errorf("%q: %s is %q", tc.s, lit, got)
		}
		if raw := strings.HasPrefix(lit, "`") || strings.Contains(lit, " + `"); raw != tc.raw {
			t.Errorf("%q: %s: raw %v, want %v", tc.s, lit, raw, tc.raw)
		}
	}
}

// TestGroupImports checks the three groups, the standard library first.
func TestGroupImports(t *testing.T) {
	src := "package p\n\nimport (\n\t\"context\"\n\t\"github.com/redis/go-redis/v9\"\n\t\"github.com/scriptgen/scriptgen/scriptrt\"\n\t\"time\"\n)\n"
	want := "package p\n\nimport (\n\t\"context\"\n\t\"time\"\n\n\t\"github.com/redis/go-redis/v9\"\n\n\t\"github.com/scriptgen/scriptgen/scriptrt\"\n)\n"
	got, err := groupImports([]byte(src))
	if err != nil || string(got) != want {
		t.Errorf("got %v\n%s\nwant\n%s", err, got, want)
	}
}
