package luaflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"
)

// walk is the facts of src's key walk, one line each: line, kind's
// number, the fact's words, and the helper call it came through.
func walk(t *testing.T, src string, library bool) string {
	t.Helper()
	stmts, err := script.ParseLua("p.lua", src)
	if err != nil {
		t.Fatal(err)
	}
	k := Walk(&Program{Chunks: []*Chunk{{Stmts: stmts}}, Library: library, EveryKey: true})
	var out []string
	for _, f := range k.Facts {
		s := fmt.Sprintf("%d:%d %s|%s|%s|%d", f.Line, f.Kind, f.Name, f.Other, f.Text, f.N)
		if f.Via != nil {
			s += fmt.Sprintf(" via %d", f.Via.Line)
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// TestWalkKeyFacts: every key argument of a call is a fact, saying what it
// is built from, also where a helper is read with its caller's arguments.
func TestWalkKeyFacts(t *testing.T) {
	src := "local k = KEYS[2]\nredis.call('SET', k, 1)\nredis.call('GET', KEYS[1] .. ':x')\n" +
		"local function get(key) return redis.call('GET', key) end\nget(ARGV[1])\n"
	want := strings.Join([]string{
		fmt.Sprintf("1:%d |||2", KeysIndex),
		fmt.Sprintf("2:%d SET|KEYS[2]|k|2", KeyOf),
		fmt.Sprintf("3:%d |||1", KeysIndex),
		fmt.Sprintf("3:%d GET|KEYS[1]||0", KeyDerived),
		fmt.Sprintf("5:%d |||1", ArgvIndex),
		fmt.Sprintf("4:%d GET|ARGV[1]|key|0 via 5", KeySource),
	}, "\n")
	if got := walk(t, src, false); got != want {
		t.Errorf("facts:\n%s\nwant:\n%s", got, want)
	}
}

// TestWalkLibrary: KEYS is no global in a Functions library, and a
// registered callback is read with its keys parameter as KEYS.
func TestWalkLibrary(t *testing.T) {
	src := "redis.register_function('f', function(keys, args) return redis.call('INCR', 'x' .. keys[1]) end)\nreturn KEYS\n"
	got := walk(t, src, true)
	for _, want := range []string{
		fmt.Sprintf("1:%d |||1 via 1", KeysIndex),
		fmt.Sprintf("1:%d INCR|keys[1]||0 via 1", KeyDerived),
		fmt.Sprintf("2:%d KEYS|||0", LibraryGlobal),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("facts lack %q:\n%s", want, got)
		}
	}
}
