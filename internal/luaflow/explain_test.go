package luaflow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // line:col command: why
	}{
		{"nothing to undo", "redis.call('SET', KEYS[1], 1)\nreturn 1", nil},
		{"a read after", "  redis.call('SET', KEYS[1], 1)\nreturn redis.call('GET', KEYS[2])",
			[]string{"1:3 SET: line 2 may fail after it: GET of KEYS[2], on which no command has succeeded before (it may be nil, or hold another type)"}},
		{"arithmetic after", "local n = tonumber(ARGV[1])\nredis.call('SET', KEYS[1], 1)\nreturn n + 1",
			[]string{"2:1 SET: line 3 may fail after it: arithmetic on what may not be a number"}},
		{"a local function", "local function f(x)\n  return x .. 'y'\nend\nredis.call('SET', KEYS[1], 1)\nreturn f(ARGV[1])",
			[]string{"4:1 SET: line 5 may fail after it: f(…) may fail: line 2, concatenating what may not be a string or a number"}},
		{"in a loop", "for i = 1, 2 do redis.call('SET', KEYS[1], i) end\nreturn 1",
			[]string{"1:17 SET: line 1 may fail after it: SET of KEYS[1], on which no command has succeeded before (it may be nil, or hold another type)"}},
		{"in a function", "local function w()\n  redis.call('SET', KEYS[1], 1)\nend\nw()\nreturn 1",
			[]string{"2:3 SET: it is in a function body, where no write is taken as the last thing that can fail"}},
		{"gives up", "x = 1\nredis.call('SET', KEYS[1], 1)",
			[]string{"1:0 : gave up: an assignment to the global x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, j := range Explain(c.src) {
				s := fmt.Sprintf("%d:%d %s: %s", j.Line, j.Col, j.Command, j.Why)
				if j.GaveUp {
					s = fmt.Sprintf("%d:%d : gave up: %s", j.Line, j.Col, j.Why)
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	// Each library script is explained as Needed decides it: nothing, as
	// all of them ship as they stand.
	for name, some := range map[string]bool{"gcra": false, "concurrency": false, "token_bucket": false, "log": false, "window": false} {
		src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", name+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(Explain(string(src))) > 0; got != some {
			t.Errorf("%s: Explain lists %d writes", name, len(Explain(string(src))))
		}
	}
}
