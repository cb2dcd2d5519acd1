package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func lintSrc(src string) string {
	var out []string
	for _, f := range Source(snippet, "p.lua", []byte(src)) {
		out = append(out, f.String())
	}
	return strings.Join(out, "\n")
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"clean", `--! key: a
--! arg: n int
local function f(x) return f and x end
local t = {}
for i = 1, 3 do t[i] = i end
for k, v in pairs(t) do t[k] = v end
return redis.call('INCRBY', KEYS[1], f(tonumber(ARGV[1])))`, nil},
		{"key beyond", "--! key: a\nreturn redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])",
			[]string{"p.lua:2:56: keys-declared: KEYS[2] is beyond the header's 1 key: line(s); declare it"}},
		{"key zero", "--! key: a\nreturn {KEYS[1], KEYS[0]}",
			[]string{"p.lua:2:18: keys-declared: KEYS[0] is always nil: Lua arrays start at 1"}},
		{"key unused", "--! key: a\n--! key: b\nreturn KEYS[1]",
			[]string{"p.lua:2:10: keys-declared: key b (KEYS[2]) is declared but never used"}},
		{"keys dynamic", "--! key: a\n--! key: b\nfor _, k in ipairs(KEYS) do redis.call('DEL', k) end", nil},
		{"variadic", "--! key: first\n--! key: rest...\nreturn {KEYS[1], KEYS[7]}", nil},
		{"arg beyond", "--! arg: a int\nreturn ARGV[1] + ARGV[2]",
			[]string{"p.lua:2:18: args: ARGV[2] is beyond the header's 1 arg: line(s); declare it"}},
		{"arg unused", "--! arg: a int\n--! arg: b int\nreturn ARGV[2]",
			[]string{"p.lua:1:10: args: arg a (ARGV[1]) is declared but never read"}},
		{"global assign", "count = 1\nreturn count",
			[]string{"p.lua:1:1: globals: assignment to global count: Redis refuses it (Attempt to modify a readonly table); declare it local"}},
		{"global function", "function helper() return 1 end\nreturn helper()",
			[]string{"p.lua:1:10: globals: function helper defines a global: Redis refuses it; write `local function helper`"}},
		{"undefined", "local x = 1\nreturn x + y",
			[]string{"p.lua:2:12: globals: undefined name y: not a local and not in Redis's script environment"}},
		{"scopes", "do local z = 1 end\nreturn z",
			[]string{"p.lua:1:10: unused: warning: local z is never read",
				"p.lua:2:8: globals: undefined name z: not a local and not in Redis's script environment"}},
		{"syntax", "local = 1", []string{"p.lua:1:7: syntax: lua: '<name>' expected near '='"}},
		{"journal", "--! flags: transactional\n--! key: a\n--! key: b\nlocal n = redis.call('ZCARD', KEYS[1])\n  redis.call('ZADD', KEYS[1], 1, 'm')\n" +
			"redis.call('ZADD', KEYS[2], 1, 'm')\nreturn n",
			[]string{"p.lua:5:3: journal: info: ZADD a failed run must undo: line 6 may fail after it: ZADD of KEYS[2], on which no command has succeeded before (it may be nil, or hold another type)"}},
		{"journal, none needed", "--! flags: transactional\n--! key: a\nlocal n = redis.call('ZCARD', KEYS[1])\nredis.call('ZADD', KEYS[1], 1, 'm')\n" +
			"redis.call('ZADD', KEYS[1], 2, 'n')\nreturn n", nil},
		{"journal, not transactional", "--! key: a\n--! key: b\nredis.call('SET', KEYS[1], 1)\nreturn redis.call('INCR', KEYS[2])", nil},
		{"journal, an alias", "--! flags: transactional\n--! key: a\nlocal f = redis.call\nf('SET', KEYS[1], 1)\nreturn 1", nil},
		{"journal, the proof gives up", "--! flags: transactional\n--! key: a\nlocal f = redis.call\nreturn pcall(f, 'SET', KEYS[1], 1)",
			[]string{"p.lua:4:1: journal: info: the bundle keeps the rollback runtime: the proof that writes need no undo gives up here: f, redis.call's alias, is used other than as a call's function: the proof sees only calls"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := lintSrc(tc.src), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.ReplaceAll(got, "\n", "\n\t"), strings.ReplaceAll(want, "\n", "\n\t"))
			}
		})
	}
}

// TestKeyTracing checks the key rules through the idioms of real scripts:
// each case lists the findings as line:col rule.
func TestKeyTracing(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"alias and helper", `--! key: a
local rcall = redis.call
local function incr(k) return rcall('INCR', k) end
incr(KEYS[1])
return incr(ARGV[1])`, []string{"3:45 key-source", "5:13 args"}},
		{"pcall of redis.call", "--! key: a\nreturn pcall(redis.call, 'GET', 'x' .. KEYS[1])", []string{"2:33 key-derived"}},
		{"redis.pcall", "return redis.pcall('GET', 'k')", []string{"1:27 key-source"}},
		{"table of keys", "--! key: a...\nlocal ks = {}\nfor i = 1, #KEYS do table.insert(ks, KEYS[i]) end\nreturn redis.call('DEL', unpack(ks))", nil},
		{"table of built keys", "--! arg: a string...\nlocal ks = {}\nfor _, v in ipairs(ARGV) do ks[#ks + 1] = 'p:' .. v end\nreturn redis.call('DEL', unpack(ks))",
			[]string{"4:26 key-source"}},
		{"local assigned twice", "--! key: a\n--! arg: b string\nlocal k = KEYS[1]\nif ARGV[1] == 'x' then k = ARGV[1] end\nreturn redis.call('GET', k)", []string{"5:26 key-source"}},
		{"assigned after use in a loop", "--! key: a\nlocal k = KEYS[1]\nfor i = 1, 2 do\n  redis.call('DEL', k)\n  k = 'x' .. i\nend", []string{"4:21 key-source"}},
		{"format keeps the element first", "--! key: a\nreturn redis.call('GET', string.format('%s:x', KEYS[1]))", []string{"2:26 key-derived"}},
		{"brace before the element", "--! key: a\nreturn redis.call('GET', '{x}' .. KEYS[1])", []string{"2:26 key-source"}},
		{"method on a key", "--! key: a\nreturn redis.call('GET', KEYS[1]:sub(1, 3))", []string{"2:26 key-derived"}},
		{"varargs wrapper", "--! key: a\nlocal function call(...) return redis.call(...) end\ncall('GET', KEYS[1])\nreturn call('GET', 'x')", []string{"2:44 key-source"}},
		{"command alternatives", "--! key: a\nlocal cmd = 'LPUSH'\nif #KEYS > 1 then cmd = 'RPUSH' end\nreturn redis.call(cmd, KEYS[1])",
			[]string{"4:19 command", "4:19 command"}},
		{"numkeys literal", "--! key: d\n--! key: s...\nreturn redis.call('ZUNIONSTORE', KEYS[1], 2, KEYS[2], 'x')", []string{"3:55 key-source"}},
		{"xread streams", "--! key: s\n--! arg: n int\nreturn redis.call('XREAD', 'COUNT', ARGV[1], 'STREAMS', KEYS[1], 'k2', '0', '0')", []string{"3:66 key-source"}},
		{"sort store", "--! key: s\nreturn redis.call('SORT', KEYS[1], 'BY', 'w_*', 'STORE', 'dst')", []string{"2:42 key-source", "2:58 key-source"}},
		{"sort patterns", "--! key: s\n--! arg: p string\nreturn redis.call('SORT', KEYS[1], 'LIMIT', 0, 'by', 'GET', ARGV[1], 'BY', 'nosort', 'GET', '#')",
			[]string{"3:61 key-source", "3:93 key-source"}},
		{"keys by pattern", "return redis.call('KEYS', 'job:*')", []string{"1:27 key-source"}},
		{"eval-like numkeys from ARGV", "--! key: s...\n--! arg: n int\nreturn redis.call('ZUNION', ARGV[1], unpack(KEYS))", []string{"3:19 dynamic-command"}},
		{"forward-declared helper", "--! key: a\nlocal f\nf = function(k) return redis.call('GET', k) end\nreturn {f(KEYS[1]), f('lit')}", []string{"3:42 key-source"}},
		{"recursion is bounded", "--! key: a\nlocal function f(k, n) if n > 0 then return f(k .. 'x', n - 1) end return redis.call('GET', k) end\nreturn f(KEYS[1], 3)", []string{"2:93 key-derived"}},
		{"key on its own line", "--! key: a\nreturn redis.call('SET',\n  'x' .. KEYS[1],\n  'y')", []string{"3:3 key-derived"}},
		{"ignored on the call's line", "--! key: a\nreturn redis.call('SET', -- lint: ignore key-derived\n  'x' .. KEYS[1], 'y')", nil},
		{"dispatch table", "--! arg: cmd string\n--! arg: name string\nlocal API = {}\nAPI.len = function(name) return redis.call('ZCARD', 'q:' .. name) end\nreturn API[ARGV[1]](ARGV[2])",
			[]string{"4:53 key-source"}},
		{"methods in a dispatch table", "--! arg: cmd string\n--! arg: name string\nlocal API = {}\nAPI.len = function(name) return redis.call('ZCARD', 'q:' .. name) end\nAPI.all = function() return redis.call('DEL', 'q:all') end\nreturn API[ARGV[1]](ARGV[2])",
			[]string{"4:53 key-source", "5:47 key-source"}},
		{"dispatch table of a key", "--! key: q\n--! arg: cmd string\nlocal API = {}\nAPI.len = function(k) return redis.call('ZCARD', k) end\nreturn API[ARGV[1]](KEYS[1])", nil},
		{"method and field", `--! arg: name string
local Q = {ns = 'q:'}
Q.__index = Q
function Q.new(name) local q = setmetatable({}, Q); q.key = 'ql:q:' .. name; return q end
function Q:len() return redis.call('ZCARD', self.key) end
function Q:jobs() return redis.call('LRANGE', Q.ns .. self.name, 0, -1) end
local q = Q.new(ARGV[1])
return q:len()`, []string{"5:45 key-source", "6:47 key-source"}},
		{"field of a key", "--! key: q\nlocal Q = {}\nfunction Q:len() return redis.call('ZCARD', self.key) end\nlocal o = {key = KEYS[1]}\nreturn Q.len(o)", nil},
		{"helper followed with a key", "--! key: q\nlocal function len(k) return redis.call('ZCARD', 'x:' .. k) end\nreturn len(KEYS[1])", []string{"2:50 key-derived"}},
		{"line ignore", "--! key: a\nreturn redis.call('GET', KEYS[1] .. 'x') -- lint: ignore key-derived", nil},
		{"functions library", "#!lua name=lib\nredis.register_function('f', function(ks, as) return redis.call('SET', ks[1], as[1]) end)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Source(snippet, "p.lua", []byte(tc.src)) {
				got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Col, f.Rule))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q; want %q\n%s", got, tc.want, lintSrc(tc.src))
			}
		})
	}
}

// TestOneFindingPerPosition: a helper three scripts include gives one
// finding where its key is built, not one per script.
func TestOneFindingPerPosition(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"includes/push.lua": "local function push(id)\n  return redis.call('LPUSH', 'q:' .. id, 1)\nend\n",
	}
	for _, n := range []string{"a", "b", "c"} {
		files[n+".lua"] = "--! name: " + n + "\n--! arg: id string\n--- @include \"includes/push\"\npush(ARGV[1])\nreturn push(ARGV[1] .. 'x')\n"
	}
	for p, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(dir, "includes/push.lua") + ":2:30: key-source: key of LPUSH is built from ARGV[1] (through the helper call at " +
		filepath.Join(dir, "a.lua") + ":4 and 2 other calls), not taken from KEYS: the cluster cannot route it; pass it in KEYS with a hash tag"
	// Scripts are analysed in parallel: the merge must not depend on
	// which finished first.
	for range 20 {
		res, err := Paths(Options{}, dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].String() != want {
			t.Fatalf("got %d findings %v\nwant %s", len(res.Findings), res.Findings, want)
		}
	}
}
