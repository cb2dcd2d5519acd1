package lint

import (
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"
)

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
			[]string{"p.lua:2:56: KEYS[2] is beyond the header's 1 key: line(s); declare it (keys-declared)"}},
		{"key zero", "--! key: a\nreturn {KEYS[1], KEYS[0]}",
			[]string{"p.lua:2:18: KEYS[0] is always nil: Lua arrays start at 1 (keys-declared)"}},
		{"key unused", "--! key: a\n--! key: b\nreturn KEYS[1]",
			[]string{"p.lua:2:10: key b (KEYS[2]) is declared but never used (keys-declared)"}},
		{"keys dynamic", "--! key: a\n--! key: b\nfor _, k in ipairs(KEYS) do redis.call('DEL', k) end", nil},
		{"variadic", "--! key: first\n--! key: rest...\nreturn {KEYS[1], KEYS[7]}", nil},
		{"arg beyond", "--! arg: a int\nreturn ARGV[1] + ARGV[2]",
			[]string{"p.lua:2:18: ARGV[2] is beyond the header's 1 arg: line(s); declare it (args)"}},
		{"arg unused", "--! arg: a int\n--! arg: b int\nreturn ARGV[2]",
			[]string{"p.lua:1:10: arg a (ARGV[1]) is declared but never read (args)"}},
		{"global assign", "count = 1\nreturn count",
			[]string{"p.lua:1:1: assignment to global count: Redis refuses it (Attempt to modify a readonly table); declare it local (globals)"}},
		{"global function", "function helper() return 1 end\nreturn helper()",
			[]string{"p.lua:1:10: function helper defines a global: Redis refuses it; write `local function helper` (globals)"}},
		{"undefined", "local x = 1\nreturn os.time() + y",
			[]string{"p.lua:2:8: undefined name os: not a local and not in Redis's script environment (globals)",
				"p.lua:2:20: undefined name y: not a local and not in Redis's script environment (globals)"}},
		{"scopes", "do local z = 1 end\nreturn z",
			[]string{"p.lua:2:8: undefined name z: not a local and not in Redis's script environment (globals)"}},
		{"syntax", "local = 1", []string{"p.lua:1:7: lua: syntax error near '=' (syntax)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := script.Parse("p.lua", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Script(s) {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}
