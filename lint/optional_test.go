package lint

import (
	"fmt"
	"strings"
	"testing"
)

func TestOptionalArg(t *testing.T) {
	const head = "--! key: z\n--! arg: now int?\n--! arg: member string\n"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"never compared", "local now = tonumber(ARGV[1])\nreturn redis.call('ZADD', KEYS[1], now, ARGV[2])", []string{"4:22 optional-arg"}},
		{"compared directly", "local now = ARGV[1] == '' and 0 or tonumber(ARGV[1])\nreturn redis.call('ZADD', KEYS[1], now, ARGV[2])", nil},
		{"compared through a local", "local now = ARGV[1]\nif now == \"\" then now = 0 end\nreturn redis.call('ZADD', KEYS[1], now, ARGV[2])", nil},
		{"length zero", "local now = ARGV[1]\nif #now == 0 then now = 0 end\nreturn redis.call('ZADD', KEYS[1], now, ARGV[2])", nil},
		{"compared with another string", "local now = ARGV[1]\nif now == 'x' then now = 0 end\nreturn redis.call('ZADD', KEYS[1], now, ARGV[2])", []string{"4:13 optional-arg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range Source(Options{}, "p.lua", []byte(head+tc.body)) {
				got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Col, f.Rule))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
	// A default of "" is sent as "" wherever the arg stands.
	got := Source(Options{}, "p.lua", []byte("--! key: z\n--! arg: keep int = \"\"\nreturn redis.call('LTRIM', KEYS[1], -tonumber(ARGV[1]), -1)"))
	if len(got) != 1 || got[0].Rule != RuleOptionalArg {
		t.Errorf(`an int defaulting to "" read as a number: %v`, got)
	}
	// At the end of ARGV an optional arg is left out, not sent as "".
	if got := Source(Options{}, "p.lua", []byte("--! key: z\n--! arg: member string\n--! arg: now int?\nreturn redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) or 0, ARGV[1])")); len(got) != 0 {
		t.Errorf("a trailing optional arg: %v", got)
	}
}
