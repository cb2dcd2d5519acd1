package lint

import (
	"strings"
	"testing"
)

// FuzzLint feeds the linter arbitrary sources: it must never panic, and
// every finding must point inside the file.
func FuzzLint(f *testing.F) {
	for _, s := range []string{
		"--! key: a\n--! arg: n int\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])",
		"local rcall = redis.call\nlocal function f(k, ...) return rcall('MSET', k, ...) end\nreturn f(KEYS[1] .. 'x', unpack(ARGV))",
		"#!lua name=lib\nredis.register_function{function_name='f', callback=function(k, a) return redis.call('GET', k[1]) end, flags={'no-writes'}}",
		"--- @include \"x\"\nfor i, k in ipairs(KEYS) do redis.call(ARGV[1], k) end goto l ::l::",
		"local t = {}\ntable.insert(t, KEYS[1])\nredis.call('DEL', unpack(t))\nstring.x = 1\nfunction table.y() end",
		"local a; a = function(x) return a(x) end\nreturn a(KEYS[1])",
		"redis.call('ZUNIONSTORE', KEYS[1], #KEYS, unpack(KEYS))\nredis.call('OBJECT', ARGV[1], KEYS[1])",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// gopher-lua, like Lua, ends a line at \n, \r, \r\n or \n\r.
		norm := strings.NewReplacer("\r\n", "\n", "\n\r", "\n", "\r", "\n").Replace(src)
		lines := strings.Count(norm, "\n") + 1
		for _, fd := range Source(Options{}, "f.lua", []byte(src)) {
			if fd.Line < 1 || fd.Col < 1 {
				t.Errorf("finding outside the file: %v", fd)
			}
			if fd.Path == "f.lua" && fd.Rule != RuleSyntax && fd.Line > lines {
				t.Errorf("finding past the last line %d: %v", lines, fd)
			}
		}
	})
}
