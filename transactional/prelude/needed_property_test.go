package prelude

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	neededRuns = flag.Int("needed.runs", 1500, "random scripts TestPropertyNeeded runs on redis-server")
	neededSeed = flag.Int64("needed.seed", 11, "seed of TestPropertyNeeded's scripts")
)

// neededGen writes random scripts for Needed's proof: a prologue of values
// whose types depend on ARGV and the keyspace, guards that narrow them
// (or not), and writes mixed with statements that fail for some values.
type neededGen struct {
	r    *rand.Rand
	vars []string
	n    int
}

func (g *neededGen) expr() string {
	vs := append([]string{"a", "b", "c"}, g.vars...)
	v := vs[g.r.Intn(len(vs))]
	if len(g.vars) > 0 && g.r.Intn(2) == 0 {
		v = g.vars[len(g.vars)-1] // the newest, often a reply
	}
	switch g.r.Intn(12) {
	case 0:
		return v + " + 1"
	case 1:
		return v + " .. 'x'"
	case 2:
		return "f(" + v + ")"
	case 3:
		return "g(" + v + ")"
	case 4:
		return "#" + v
	case 5:
		return "math.floor(" + v + ")"
	case 6:
		return "tostring(" + v + ")"
	case 7:
		return "(tonumber(" + v + ") or 0)"
	case 8:
		return fmt.Sprint(g.r.Intn(9) - 2)
	case 9:
		return "'s'"
	}
	return v
}

func (g *neededGen) guard() string {
	switch g.r.Intn(12) {
	case 0:
		return "if not a then return 'no a' end"
	case 1:
		return "if a == nil then return 'nil a' end"
	case 2:
		return "if b == nil then return 'nil b' end"
	case 3:
		return "if not c then return 'no c' end"
	case 4:
		return "if a and a > 3 then return 'big' end"
	case 5:
		return "a = a or 1"
	case 6:
		return "if " + g.expr() + " < 2 then return 'small' end"
	}
	g.n++
	d := fmt.Sprintf("d%d", g.n)
	v := g.expr()
	switch g.r.Intn(3) {
	case 0:
		v = "redis.call('STRLEN', KEYS[2])"
	case 1:
		v = "redis.pcall('STRLEN', KEYS[3])" // an error table when KEYS[3] is a hash
	}
	s := "local " + d + " = " + v
	g.vars = append(g.vars, d)
	return s
}

func (g *neededGen) write() string {
	switch g.r.Intn(6) {
	case 0:
		return "redis.call('SET', KEYS[1], " + g.expr() + ")"
	case 1:
		return "redis.call('INCRBY', KEYS[1], " + g.expr() + ")"
	case 2:
		return "redis.call('HSET', KEYS[3], 'f', " + g.expr() + ")"
	case 3:
		return "redis.call('DEL', KEYS[1])"
	case 4:
		return "if redis.call('SET', KEYS[1], " + g.expr() + ", 'NX') then " + g.tail() + " end"
	}
	return "redis.pcall('RPUSH', KEYS[3], " + g.expr() + ")"
}

func (g *neededGen) tail() string {
	switch g.r.Intn(8) {
	case 0:
		return "return " + g.expr()
	case 1:
		return "return {" + g.expr() + ", " + g.expr() + "}"
	case 2:
		return "if " + g.expr() + " < " + g.expr() + " then return 1 end"
	case 3:
		return "if b == 'x' then error('boom') end"
	case 4:
		return "redis.call('GET', KEYS[2])"
	case 5:
		return "local t = {} t[" + g.expr() + "] = 1"
	}
	return g.guard()
}

func (g *neededGen) script() string {
	g.vars, g.n = nil, 0
	var b strings.Builder
	b.WriteString("local a = tonumber(ARGV[1])\nlocal b = ARGV[2]\nlocal c = redis.call('GET', KEYS[2])\n")
	b.WriteString("local function f(x) return math.floor(x / 2) end\n")
	b.WriteString("local function g(x) if x < 0 then return -x end return x end\n")
	for i := g.r.Intn(4); i > 0; i-- {
		b.WriteString(g.guard() + "\n")
	}
	writes := 1 + g.r.Intn(2)
	for i := 0; i < writes; i++ {
		b.WriteString(g.write() + "\n")
		for j := g.r.Intn(3); j > 0; j-- {
			b.WriteString(g.tail() + "\n")
		}
	}
	b.WriteString("return 'end'\n")
	return b.String()
}

// TestPropertyNeeded checks Needed's proof on a real redis-server: random
// scripts run unwrapped from random keyspaces and arguments, and every run
// of a script Needed says needs no runtime that fails must leave the
// keyspace as it was. The generator must also make scripts that fail half
// way (Needed must say those need the runtime, or the test fails), and
// enough scripts of each kind.
func TestPropertyNeeded(t *testing.T) {
	ctx, c := start(t)
	g := &neededGen{r: rand.New(rand.NewSource(*neededSeed))}
	keys := []string{"{n}1", "{n}2", "{n}3"}
	argv1 := []string{"3", "-2", "x", "", "2.5", "9"}
	argv2 := []string{"x", "7", "", "-", "-"}
	deadline := time.Now().Add(2 * time.Minute)
	scripts, unneeded, unneededFailed, halfDone := 0, 0, 0, 0
	for ; scripts < *neededRuns && time.Now().Before(deadline); scripts++ {
		src := g.script()
		needed := Needed(src)
		if !needed {
			unneeded++
		}
		for run := 0; run < 4; run++ {
			state := [][]any{{"FLUSHALL"}}
			switch g.r.Intn(4) {
			case 0:
				state = append(state, []any{"SET", keys[0], "5", "PX", 100000})
			case 1:
				state = append(state, []any{"SET", keys[0], "abc"})
			case 2:
				state = append(state, []any{"HSET", keys[0], "f", "v"})
			}
			switch g.r.Intn(3) {
			case 0:
				state = append(state, []any{"SET", keys[1], "4"})
			case 1:
				state = append(state, []any{"SET", keys[1], "xy"})
			}
			switch g.r.Intn(3) {
			case 0:
				state = append(state, []any{"HSET", keys[2], "f", "1"})
			case 1:
				state = append(state, []any{"SET", keys[2], "s"})
			}
			args := []any{argv1[g.r.Intn(len(argv1))]}
			if a2 := argv2[g.r.Intn(len(argv2))]; a2 != "-" {
				args = append(args, a2)
			}
			apply(t, ctx, c, state)
			before := describe(t, ctx, c, keys)
			_, err := c.Eval(ctx, src, keys, args...).Result()
			after := describe(t, ctx, c, keys)
			if err == nil || err == redis.Nil {
				continue
			}
			if after != before {
				if !needed {
					t.Fatalf("script %d: Needed said no runtime, but a run with ARGV %v failed (%v) and changed the keyspace\nbefore:\n%s\nafter:\n%s\nscript:\n%s", scripts, args, err, before, after, src)
				}
				halfDone++
			} else if !needed {
				unneededFailed++
			}
		}
	}
	t.Logf("%d scripts: %d need no runtime (%d of their runs failed, writing nothing); %d runs of the others failed half way", scripts, unneeded, unneededFailed, halfDone)
	if *neededRuns >= 200 && (unneeded < scripts/10 || unneededFailed < 20 || halfDone < 20) {
		t.Fatalf("the generator no longer exercises the proof: %d of %d scripts unneeded, %d failed, %d half-done runs", unneeded, scripts, unneededFailed, halfDone)
	}
}
