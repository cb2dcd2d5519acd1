package luaflow

import (
	"fmt"
	"strings"
	"testing"
)

// Shapes of BullMQ's and Bull's scripts (bullmq@6.7.0, bull@4.16.5),
// reduced: `local rcall = redis.call` at the top, used at top level and in
// helpers defined there (their includes).
const (
	// getCounts-1: reads only, through the alias, in a helper.
	aliasReadOnly = "local rcall = redis.call\n" +
		"local function getCount(key, kind)\n" +
		"  if kind == 'completed' then return rcall('ZCARD', key) end\n" +
		"  return rcall('LLEN', key)\n" +
		"end\n" +
		"local results = {}\n" +
		"for i = 1, #ARGV do\n" +
		"  results[#results + 1] = getCount(KEYS[1] .. ARGV[i], ARGV[i])\n" +
		"end\n" +
		"return results\n"
	// updateProgress-3: a guard, then the writes, the last one final.
	aliasFinal = "local rcall = redis.call\n" +
		"if rcall('EXISTS', KEYS[1]) == 1 then\n" +
		"  rcall('HSET', KEYS[1], 'progress', ARGV[2])\n" +
		"  rcall('XADD', KEYS[2], '*', 'event', 'progress', 'jobId', ARGV[1])\n" +
		"  return 0\n" +
		"else\n" +
		"  return -1\n" +
		"end\n"
)

func TestAliasShapes(t *testing.T) {
	for _, c := range []struct {
		name, src string
		needed    bool
		final     int    // writes proven final
		gaveUp    string // Explain's give-up, when the alias is no alias
	}{
		{"read only, in a helper", aliasReadOnly, false, 0, ""},
		{"final write", aliasFinal, true, 1, ""},
		{"redis.pcall", "local rpcall = redis.pcall\nlocal r = rpcall('GET', KEYS[1])\nrpcall('SET', KEYS[1], 'x')\nreturn 1\n", false, 1, ""},
		{"two declarations", "local rcall = redis.call\nlocal function f() local rcall = redis.call return rcall('GET', KEYS[1]) end\nreturn f()\n", false, 0, ""},
		{"pcall of the alias", "local rcall = redis.call\nlocal ok = pcall(rcall, 'SET', KEYS[1], 'x')\nreturn 1\n", true, 0,
			"2: rcall, redis.call's alias, is used other than as a call's function: the proof sees only calls"},
		{"handed to a function", "local rcall = redis.call\nlocal function f(c) return c('GET', KEYS[1]) end\nreturn f(rcall)\n", true, 0,
			"3: rcall, redis.call's alias, is used other than as a call's function: the proof sees only calls"},
		{"assigned", "local rcall = redis.call\nrcall = redis.pcall\nreturn rcall('GET', KEYS[1])\n", true, 0, "2: rcall is assigned"},
		{"shadowed by a parameter", "local rcall = redis.call\nlocal function f(rcall) return rcall('GET', KEYS[1]) end\nreturn f(tostring)\n", true, 0,
			"2: rcall is declared again, other than as redis.call's alias"},
		{"declared as both", "local rcall = redis.call\ndo local rcall = redis.pcall rcall('GET', KEYS[1]) end\nreturn 1\n", true, 0,
			"2: rcall is declared again, other than as redis.call's alias"},
		{"called before its declaration", "local function f() return rcall('GET', KEYS[1]) end\nlocal rcall = redis.call\nreturn f()\n", true, 0,
			"1: rcall: an unknown global, or redis used as a value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			an := Analyze(c.src)
			if an.Needed != c.needed || len(an.Final) != c.final {
				t.Fatalf("needed %v, %d final; want %v, %d", an.Needed, len(an.Final), c.needed, c.final)
			}
			var gaveUp string
			for _, j := range Explain(c.src) {
				if j.GaveUp {
					gaveUp = fmt.Sprintf("%d: %s", j.Line, j.Why)
				}
			}
			if gaveUp != c.gaveUp {
				t.Fatalf("gave up %q, want %q", gaveUp, c.gaveUp)
			}
			if c.gaveUp != "" {
				return
			}
			offs := an.Offsets(c.src)
			if len(offs) != len(an.Sites) {
				t.Fatalf("%d offsets for %d sites", len(offs), len(an.Sites))
			}
			for i, o := range offs {
				if o.Alias == "" || !strings.HasPrefix(c.src[o.At:], o.Alias+"(") || o.Line != an.Sites[i].Line() || c.src[o.End-1] != ')' {
					t.Fatalf("offset %+v of site %d on line %d: %q", o, i, an.Sites[i].Line(), c.src[o.At:])
				}
			}
		})
	}
}

// TestAliasExplain: where the proof follows the alias, Explain words its
// writes as it does redis.call's, at the alias's column.
func TestAliasExplain(t *testing.T) {
	got := Explain(aliasFinal)
	if len(got) != 1 || got[0].GaveUp || got[0].Command != "HSET" || got[0].Line != 3 || got[0].Col != 3 {
		t.Fatalf("Explain = %+v", got)
	}
	if !strings.Contains(got[0].Why, "line 4 may fail after it: XADD") {
		t.Fatalf("why: %s", got[0].Why)
	}
}

// TestLocalFunctionRecursion: BullMQ's removeParentDependencyKey calls
// itself; `local function f` is in scope in its body, `local f =
// function` is not (f there is a global).
func TestLocalFunctionRecursion(t *testing.T) {
	body := " function(n)\n  if n > 0 then return f(n - 1) end\n  return redis.call('GET', KEYS[1])\nend\n" +
		"redis.call('SET', KEYS[1], 'x')\nreturn f(2)\n"
	if an := Analyze("local function f" + strings.Replace(body, " function", "", 1)); an.gaveUp != nil || len(an.Sites) != 2 {
		t.Fatalf("local function: gave up (%+v), or %d sites", an.gaveUp, len(an.Sites))
	}
	j := Explain("local f =" + body)
	if len(j) != 1 || !j[0].GaveUp || j[0].Line != 2 || !strings.Contains(j[0].Why, "f: an unknown global") {
		t.Fatalf("local f = function: %+v", j)
	}
}
