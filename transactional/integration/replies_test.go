package integration

import (
	"bytes"
	"flag"
	"math/rand"
	"testing"
)

var (
	repliesRuns = flag.Int("replies.runs", 400, "random returns TestRepliesMatchRedis converts")
	repliesSeed = flag.Int64("replies.seed", 1, "seed of TestRepliesMatchRedis")
)

// repliesGen writes random values for a script to return: numbers Redis
// truncates or refuses, strings, booleans, nil, status and error tables
// (also nested, also with other fields), arrays with holes and tables with
// only hash keys, nested a few levels.
type repliesGen struct{ r *rand.Rand }

func (g *repliesGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *repliesGen) value(depth int) string {
	if depth == 0 || g.r.Intn(3) == 0 {
		return g.pick("0", "1", "-1", "3.99", "-3.99", "0.5", "1e300", "-1e300", "2^53", "2^63", "-2^63", "1/0", "-1/0", "0/0",
			"'x'", "''", "'\\0a'", "true", "false", "nil", "{ok = 'fine'}", "{err = 'ERR bad'}", "{err = 'no code'}", "{err = ''}",
			"{ok = 5}", "{err = 5}", "{ok = 'a', err = 'b'}", "redis.status_reply('S')", "redis.error_reply('E x')", "{double = 1.5}",
			"{big_number = '123'}", "{map = {a = 1}}", "{set = {a = true}}", "{verbatim_string = {format = 'txt', string = 'v'}}")
	}
	a, b := g.value(depth-1), g.value(depth-1)
	return g.pick("{"+a+", "+b+"}", "{"+a+", nil, "+b+"}", "{x = "+a+"}", "{"+a+", x = "+b+"}", "{{"+a+"}}", "{}",
		"{[2] = "+a+"}", "{"+a+", "+b+", "+a+"}")
}

// TestRepliesMatchRedis returns random Lua values from scripts, in RESP2
// and in RESP3 (redis.setresp(3) on a HELLO 3 connection), and wants the
// engine's reply, byte for byte, to be redis-server's.
func TestRepliesMatchRedis(t *testing.T) {
	real, tcp, do := differentialTargets(t)
	g := &repliesGen{rand.New(rand.NewSource(*repliesSeed))}
	differ := 0
	for i := 0; i < *repliesRuns; i++ {
		v := g.value(3)
		c := tcase{name: v, cmds: [][]string{ev("return "+v, 0)}}
		if g.r.Intn(3) == 0 {
			c = tcase{name: v, resp3: true, cmds: [][]string{ev("redis.setresp(3) return "+v, 0)}}
		}
		want, _ := run(t, real, c)
		for _, tg := range []target{tcp, do} {
			got, _ := run(t, tg, c)
			if !bytes.Equal(want[0], got[0]) {
				differ++
				if differ <= 20 {
					t.Errorf("%s (resp3 %v):\n redis: %q\n %s: %q", v, c.resp3, clip(want[0]), tg.name, clip(got[0]))
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d replies differ", differ, 2**repliesRuns)
	}
}
