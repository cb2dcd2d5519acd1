package luaflow

import (
	"context"
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
	switch g.r.Intn(13) {
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
	case 10:
		return "string.format('" + []string{"%d:%s", "%5.1f|%s", "%s-%x"}[g.r.Intn(3)] + "', " + v + ", " + v + ")"
	}
	return v
}

func (g *neededGen) pick2(xs ...string) string { return xs[g.r.Intn(len(xs))] }

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
		return g.pick2("a = a or 1", "if type(b) ~= 'string' then return 'nostr' end", "if type(a) == 'number' then return 'num' end")
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
		if g.r.Intn(4) == 0 {
			b.WriteString("for i = 1, 2 do\n" + g.write() + "\n" + g.tail() + "\nend\n")
			continue
		}
		b.WriteString(g.write() + "\n")
		for j := g.r.Intn(3); j > 0; j-- {
			b.WriteString(g.tail() + "\n")
		}
	}
	b.WriteString("return 'end'\n")
	return b.String()
}

// raising is src run so that only a raised error fails it: a script that
// returns an error table (a redis.pcall's reply, say) has not failed and
// keeps its writes, as in Redis, but Redis would turn the table into an
// error reply; inside an array it stays a value.
func raising(src string) string {
	return "return {(function(...)\n" + src + "\nend)(...)}"
}

// ending is how a run of a script ended.
type ending int

const (
	succeeded ending = iota
	cleanly          // it raised, and the keyspace is as it was
	halfWay          // it raised after writing
)

// runUnwrapped sets the keyspace up with state, runs src as it stands
// (raising) with keys and argv, and says how it ended. A run that raised
// after writing fails the test when needed (Needed(src)) is false.
func runUnwrapped(t *testing.T, ctx context.Context, c *redis.Client, script int, src string, needed bool, keys []string, argv []any, state [][]any) ending {
	t.Helper()
	apply(t, ctx, c, state)
	before := describe(t, ctx, c, keys)
	_, err := c.Eval(ctx, raising(src), keys, argv...).Result()
	after := describe(t, ctx, c, keys)
	switch {
	case err == nil || err == redis.Nil:
		return succeeded
	case after == before:
		return cleanly
	case !needed:
		t.Fatalf("script %d: Needed said no runtime, but a run with keys %v, ARGV %v failed (%v) and changed the keyspace\nbefore:\n%s\nafter:\n%s\nscript:\n%s", script, keys, argv, err, before, after, src)
	}
	return halfWay
}

// TestPropertyNeeded checks Needed's proof on a real redis-server: random
// scripts run unwrapped from random keyspaces and arguments, and every run
// of a script Needed says needs no runtime that fails must leave the
// keyspace as it was. The generator must also make scripts that fail half
// way (Needed must say those need the runtime, or the test fails), and
// enough scripts of each kind.
func TestPropertyNeeded(t *testing.T) { propertyNeeded(t, nil) }

// TestPropertyNeededAlias is TestPropertyNeeded on the same scripts written
// as BullMQ writes its own: every call through `local rcall = redis.call`
// (redis.pcall's alias likewise), the GETs of KEYS[2] through a helper
// that calls rcall. Written through the aliases alone, each script must
// get the answer its redis.call form gets.
func TestPropertyNeededAlias(t *testing.T) {
	propertyNeeded(t, func(src string) string {
		aliased := strings.NewReplacer("redis.call(", "rcall(", "redis.pcall(", "rpcall(").Replace(src)
		head := "local rcall, rpcall = redis.call, redis.pcall\n"
		if got, want := Needed(head+aliased), Needed(src); got != want {
			t.Fatalf("through aliases, Needed says %v; for redis.call, %v\nscript:\n%s", got, want, src)
		}
		return head + "local function get(k) return rcall('GET', k) end\n" +
			strings.ReplaceAll(aliased, "rcall('GET', KEYS[2])", "get(KEYS[2])")
	})
}

// propertyNeeded runs TestPropertyNeeded's scripts, each as rewrite (when
// not nil) makes it.
func propertyNeeded(t *testing.T, rewrite func(string) string) {
	ctx, c := start(t)
	g := &neededGen{r: rand.New(rand.NewSource(*neededSeed))}
	keys := []string{"{n}1", "{n}2", "{n}3"}
	argv1 := []string{"3", "-2", "x", "", "2.5", "9", "nan", "inf"}
	argv2 := []string{"x", "7", "", "-", "-"}
	deadline := time.Now().Add(2 * time.Minute)
	scripts, unneeded, unneededFailed, halfDone := 0, 0, 0, 0
	for ; scripts < *neededRuns && time.Now().Before(deadline); scripts++ {
		src := g.script()
		if rewrite != nil {
			src = rewrite(src)
		}
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
			switch runUnwrapped(t, ctx, c, scripts, src, needed, keys, args, state) {
			case halfWay:
				halfDone++
			case cleanly:
				if !needed {
					unneededFailed++
				}
			}
		}
	}
	t.Logf("%d scripts: %d need no runtime (%d of their runs failed, writing nothing); %d runs of the others failed half way", scripts, unneeded, unneededFailed, halfDone)
	if *neededRuns >= 200 && (unneeded < scripts/10 || unneededFailed < 20 || halfDone < 20) {
		t.Fatalf("the generator no longer exercises the proof: %d of %d scripts unneeded, %d failed, %d half-done runs", unneeded, scripts, unneededFailed, halfDone)
	}
}

var sureRuns = flag.Int("sure.runs", 1500, "random scripts TestPropertySure runs on redis-server")

// sureGen writes random scripts of sorted-set, hash and string commands and PEXPIREs whose
// arguments come from ARGV through the checks scripts make (or not), on
// keys of any type, possibly two names for one key: the scripts Needed
// clears because their commands cannot fail (sure.go).
type sureGen struct{ r *rand.Rand }

func (g *sureGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *sureGen) number(arg string) string {
	return g.pick("tonumber("+arg+")", "tonumber("+arg+")", "int("+arg+", 0)", "int("+arg+", -5)", "math.floor(tonumber("+arg+") or 0)",
		"(tonumber("+arg+") or 1) * 2", "math.ceil(tonumber("+arg+") or 0)")
}

func (g *sureGen) guard(v string) string {
	return g.pick("", "if not "+v+" then return 'no' end", "if not ("+v+" and "+v+" > 0) then return 'low' end",
		"if not ("+v+" and "+v+" > 0 and "+v+" < 100) then return 'out' end",
		"if not "+v+" or "+v+" % 1 ~= 0 then return 'frac' end", v+" = math.min("+v+" or 0, 1000)",
		"if not ("+v+" and "+v+" >= -10 and "+v+" <= 10) then return 'far' end",
		v+" = "+v+" or 0 if "+v+" > 1000 then "+v+" = 1000 end", "if "+v+" and "+v+" <= 0 then "+v+" = 1 end",
		v+" = "+v+" or 0 if not ("+v+" < 50) then "+v+" = 50 end")
}

func (g *sureGen) key() string { return g.pick("KEYS[1]", "KEYS[2]", "k") }

func (g *sureGen) op() string {
	k := g.key()
	score := g.pick("x", "y", "x + y", "x * 2", "x - y", "2", "'inf'", "'x'", "-x", "'2.5'")
	bound := g.pick("x", "y", "'-inf'", "'(1'", "'+inf'", "'x'", "x + 1", "'(x'")
	idx := g.pick("0", "-1", "x", "'0'", "y", "'1.5'")
	ms := g.pick("x", "y", "100", "0", "math.min(x, 1000)", "x * 10", "math.floor(x)", "math.modf(x)")
	switch g.r.Intn(17) {
	case 15:
		return g.pick("redis.call('GET', "+k+")", "redis.call('EXISTS', "+k+")", "redis.call('PTTL', "+k+")", "redis.call('STRLEN', "+k+")")
	case 16:
		return g.pick("redis.call('SET', "+k+", "+g.pick("x", "'v'")+")", "redis.call('SET', "+k+", 'v', 'PX', "+ms+")",
			"redis.call('DEL', "+k+")", "redis.call('SET', "+k+", 'v', 'EX', 10)")
	case 13:
		return g.pick("redis.call('HGET', "+k+", 'f')", "redis.call('HMGET', "+k+", 'f', 'g')", "redis.call('HLEN', "+k+")",
			"redis.call('HEXISTS', "+k+", 'g')")
	case 14:
		return g.pick("redis.call('HSET', "+k+", 'f', "+g.pick("x", "'v'", "y", "x + 1")+")", "redis.call('HSET', "+k+", 'g', 1, 'h')",
			"redis.call('HDEL', "+k+", 'f')", "redis.call('HMSET', "+k+", 'g', 2)")
	case 0:
		return g.pick("redis.call('ZCARD', "+k+")", "redis.call('ZSCORE', "+k+", 'm')")
	case 1, 12:
		return "redis.call('ZRANGE', " + k + ", " + idx + ", " + g.pick(idx, "-1") + ", " + g.pick("'WITHSCORES'", "'LIMIT'") + ")"
	case 2:
		return "redis.call('ZCOUNT', " + k + ", " + bound + ", " + bound + ")"
	case 3:
		return g.pick("redis.pcall('ZCARD', "+k+")", "redis.call('GET', "+k+")", "redis.call('SET', "+k+", 'v')",
			"redis.call('DEL', "+k+")", "redis.call('HSET', "+k+", 'f', 1)", "if ARGV[3] == 'boom' then error('boom') end")
	case 4, 5:
		opts := g.pick("", "", "'GT', ", "'XX', ", "'NX', ", "'NX', 'GT', ", "'CH', ", "'GT', 'LT', ", "'INCR', ")
		return "redis.call('ZADD', " + k + ", " + opts + score + ", " + g.pick("'m'", "'n'", "'p'", "x") + ")"
	case 6:
		return "redis.call('ZADD', " + k + ", " + score + ", 'p', 2, 'q')"
	case 7:
		return "redis.call('ZREM', " + k + ", " + g.pick("'m'", "'n'", "'m', 'n'") + ")"
	case 8:
		return "redis.call('ZREMRANGEBYSCORE', " + k + ", " + bound + ", " + bound + ")"
	case 9:
		return "redis.call('PEXPIRE', " + k + ", " + ms + ")"
	case 10:
		return "if " + ms + " > 0 then redis.call('PEXPIRE', " + k + ", " + ms + ") end"
	}
	return "redis.call('ZRANGEBYSCORE', " + k + ", " + bound + ", " + bound + ", 'WITHSCORES', 'LIMIT', 0, " + idx + ")"
}

func (g *sureGen) script() string {
	var b strings.Builder
	b.WriteString("local MAX = 9007199254740991\nlocal function int(v, min)\n  local n = tonumber(v)\n" +
		"  if n and n % 1 == 0 and n >= min and n <= MAX then\n    return n\n  end\nend\nlocal k = KEYS[1]\n")
	b.WriteString("local x = " + g.number("ARGV[1]") + "\n" + g.guard("x") + "\n")
	b.WriteString("local y = " + g.number("ARGV[2]") + "\n" + g.guard("y") + "\n")
	if g.r.Intn(2) == 0 {
		b.WriteString("redis.call('ZCARD', " + g.key() + ")\n")
	}
	// A write that succeeds on a sorted set or nothing, first: what comes
	// after it must not fail.
	if g.r.Intn(4) == 0 {
		b.WriteString("redis.call('HSET', " + g.key() + ", 'g', 5)\n")
	} else {
		b.WriteString("redis.call('ZADD', " + g.key() + ", " + g.pick("2, 'p'", "'GT', 4, 'm'", "'XX', 1, 'n'", "7, 'r'") + ")\n")
	}
	for i := 1 + g.r.Intn(3); i > 0; i-- {
		switch g.r.Intn(5) {
		case 0: // ops in a loop: a later iteration's may fail after an earlier one's write
			b.WriteString("for i = 1, " + g.pick("2", "3", "math.min(3, x)") + " do\n  " + g.op() + "\n  " + g.op() + "\nend\n")
		case 1:
			b.WriteString("local w = 0\nwhile w < 2 do\n  w = w + 1\n  " + g.op() + "\nend\n")
		default:
			b.WriteString(g.op() + "\n")
		}
	}
	b.WriteString("return 'ok'\n")
	return b.String()
}

// TestPropertySure checks the commands Needed takes as unable to fail, on
// a real redis-server: random scripts of them run unwrapped from random
// keyspaces (sorted sets with integer and fractional scores, other types,
// nothing, one key under two names) and arguments (integers, fractions,
// nan, inf, 2^53+1, text), and every failed run of a script Needed clears
// must leave the keyspace as it was. Enough cleared scripts must write
// twice or more, and enough of their runs must fail.
func TestPropertySure(t *testing.T) {
	ctx, c := start(t)
	g := &sureGen{r: rand.New(rand.NewSource(*neededSeed))}
	args := []string{"5", "0", "-3", "2.5", "0.5", "nan", "inf", "-inf", "1e300", "9007199254740993", "x", "", "700"}
	deadline := time.Now().Add(2 * time.Minute)
	scripts, cleared, clearedFailed, halfDone := 0, 0, 0, 0
	for ; scripts < *sureRuns && time.Now().Before(deadline); scripts++ {
		src := g.script()
		needed := Needed(src)
		writes := 0
		for _, w := range []string{"'ZADD'", "'ZREM'", "'ZREMRANGEBYSCORE'", "'PEXPIRE'", "'HSET'", "'HDEL'", "'HMSET'", "'SET'", "'DEL'"} {
			writes += strings.Count(src, w)
		}
		multi := !needed && writes >= 2
		if multi {
			cleared++
		}
		for run := 0; run < 6; run++ {
			keys := []string{"{s}1", "{s}2"}
			if g.r.Intn(4) == 0 {
				keys[1] = keys[0]
			}
			state := [][]any{{"FLUSHALL"}}
			for i, k := range keys {
				if i > 0 && k == keys[0] {
					break // one key under two names
				}
				switch g.r.Intn(5) {
				case 0:
					state = append(state, []any{"ZADD", k, 3, "m", 5, "n"})
				case 1:
					state = append(state, []any{"ZADD", k, 1.5, "m", "-inf", "o"}, []any{"PEXPIRE", k, 100000})
				case 2:
					state = append(state, []any{"SET", k, "s"})
				case 3:
					state = append(state, []any{"HSET", k, "f", "1"})
				}
			}
			argv := []any{args[g.r.Intn(len(args))], args[g.r.Intn(len(args))], g.pick("", "boom")}
			switch runUnwrapped(t, ctx, c, scripts, src, needed, keys, argv, state) {
			case halfWay:
				halfDone++
			case cleanly:
				if multi {
					clearedFailed++
				}
			}
		}
	}
	t.Logf("%d scripts: %d cleared with two writes or more (%d of their runs failed, writing nothing); %d runs of the others failed half way", scripts, cleared, clearedFailed, halfDone)
	if *sureRuns >= 200 && (cleared < scripts/25 || clearedFailed < 20 || halfDone < 20) {
		t.Fatalf("the generator no longer exercises the proof: %d of %d cleared, %d failed, %d half-done runs", cleared, scripts, clearedFailed, halfDone)
	}
}

var loopRuns = flag.Int("loops.runs", 1500, "random scripts TestPropertyLoops runs on redis-server")

// TestPropertyLoops checks writes in loops on redis-server, as
// TestPropertySure does the commands: random loops of writes that cannot
// fail, writes that change a key's type, reads that fail on another type
// and failures on a later iteration only, before and after the writes of
// the body, and failures after the loop. A loop's write is final only when
// nothing in later iterations or after the loop may fail.
func TestPropertyLoops(t *testing.T) {
	ctx, c := start(t)
	r := rand.New(rand.NewSource(*neededSeed))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	op := func() string {
		return pick("redis.call('HSET', KEYS[1], 'f', i)", "redis.call('SET', KEYS[2], i)", "redis.call('ZADD', KEYS[1], i, 'm')",
			"redis.call('GET', KEYS[1])", "redis.call('HLEN', KEYS[1])", "redis.call('ZCARD', KEYS[2])", "redis.call('HLEN', KEYS[2])",
			"if i == n then error('late') end", "redis.call('DEL', KEYS[2])", "redis.call('PEXPIRE', KEYS[1], 1000)",
			"local x = redis.call('HGET', KEYS[1], 'f') if x then redis.call('HSET', KEYS[1], 'g', x) end")
	}
	scripts, cleared, clearedFailed, halfDone := 0, 0, 0, 0
	deadline := time.Now().Add(2 * time.Minute)
	for ; scripts < *loopRuns && time.Now().Before(deadline); scripts++ {
		var b strings.Builder
		b.WriteString("local n = tonumber(ARGV[1]) or 1\n")
		if r.Intn(3) == 0 {
			// Loops over KEYS: one that reads every element (or not), then
			// one that writes them; two names may be one key.
			kop := func() string {
				return pick("redis.call('ZADD', k, 1, 'm')", "redis.call('HSET', k, 'f', 1)", "redis.call('SET', k, 1)", "redis.call('ZREM', k, 'm')",
					"redis.call('PEXPIRE', k, 1000)", "redis.call('ZCARD', k)", "redis.call('HLEN', k)", "redis.call('DEL', k)",
					"if k == KEYS[2] and n == 2 then error('second') end")
			}
			if r.Intn(4) > 0 {
				b.WriteString("for _, k in ipairs(KEYS) do " + pick("redis.call('ZCARD', k)", "redis.call('HLEN', k)", "redis.call('GET', k)", "redis.call('EXISTS', k)") + " end\n")
			}
			b.WriteString("for _, k in ipairs(KEYS) do\n  " + kop() + "\n  " + kop() + "\nend\n")
		}
		if r.Intn(2) == 0 {
			b.WriteString(pick("redis.call('HLEN', KEYS[1])", "redis.call('GET', KEYS[2])", "redis.call('ZCARD', KEYS[1])") + "\n")
		}
		if r.Intn(3) == 0 { // a write before the loop: the loop's own are not its first
			b.WriteString(pick("redis.call('HSET', KEYS[1], 'pre', 1)", "redis.call('SET', KEYS[2], 'pre')") + "\n")
		}
		b.WriteString(pick("for i = 1, 3 do", "for i = 1, math.min(n, 3) do", "local i = 0\nwhile i < 3 do\ni = i + 1") + "\n")
		for k := 1 + r.Intn(3); k > 0; k-- {
			b.WriteString("  " + op() + "\n")
		}
		b.WriteString("end\n")
		if r.Intn(2) == 0 {
			b.WriteString(pick("redis.call('GET', KEYS[3])", "if ARGV[2] == 'after' then error('after') end", "redis.call('HSET', KEYS[1], 'z', 1)") + "\n")
		}
		b.WriteString("return 'ok'\n")
		src := b.String()
		needed := Needed(src)
		writes := !needed && strings.Count(src, "redis.call('HSET'")+strings.Count(src, "redis.call('SET'")+strings.Count(src, "'ZADD'") > 0
		if writes {
			cleared++
		}
		for run := 0; run < 4; run++ {
			keys := []string{"{l}1", "{l}2", "{l}3"}
			if r.Intn(4) == 0 {
				keys[1] = keys[0]
			}
			state := [][]any{{"FLUSHALL"}}
			for i, k := range keys {
				if i == 1 && k == keys[0] {
					continue // one key under two names
				}
				switch r.Intn(4) {
				case 0:
					state = append(state, []any{"SET", k, "s"})
				case 1:
					state = append(state, []any{"HSET", k, "f", "1"})
				case 2:
					state = append(state, []any{"ZADD", k, 1, "m"})
				}
			}
			argv := []any{pick("1", "2", "3", "x"), pick("", "after")}
			switch runUnwrapped(t, ctx, c, scripts, src, needed, keys, argv, state) {
			case halfWay:
				halfDone++
			case cleanly:
				if writes {
					clearedFailed++
				}
			}
		}
	}
	t.Logf("%d scripts: %d with writes cleared (%d of their runs failed, writing nothing); %d runs of the others failed half way", scripts, cleared, clearedFailed, halfDone)
	if *loopRuns >= 200 && (cleared < scripts/60 || clearedFailed < 20 || halfDone < 20) {
		t.Fatalf("the generator no longer exercises the proof: %d of %d cleared, %d failed, %d half-done runs", cleared, scripts, clearedFailed, halfDone)
	}
}

var tableRuns = flag.Int("tables.runs", 1200, "random scripts TestPropertyTables runs on redis-server")

// TestPropertyTables checks, on redis-server, what the proof knows of
// tables and sorted-set sweeps, in random scripts of two shapes. Log's: a
// table filled at every KEYS index (or on some paths only, or broken by a
// nil), every key read, then in a loop over KEYS entries added with a
// checked time as score (plainly, NX, in a repeat loop), sweeps below that
// time by a window from the table (or up to it, or after the time
// changed), and failures on a later key. Window's: records made in a loop
// over KEYS (a field missing or nil), written by a second loop that picks
// each key's, and failures there. Keys hold sorted sets with entries
// below, at and above the time, hashes, strings, or nothing; one key may
// have two names. Every failed run of a script Needed clears must leave
// the keyspace as it was.
func TestPropertyTables(t *testing.T) {
	ctx, c := start(t)
	r := rand.New(rand.NewSource(*neededSeed))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	scripts, cleared, clearedFailed, halfDone := 0, 0, 0, 0
	deadline := time.Now().Add(2 * time.Minute)
	for ; scripts < *tableRuns && time.Now().Before(deadline); scripts++ {
		var b strings.Builder
		b.WriteString("local MAX = 9007199254740991\nlocal function int(v, min)\n  local n = tonumber(v)\n" +
			"  if n and n % 1 == 0 and n >= min and n <= MAX then\n    return n\n  end\nend\n")
		if r.Intn(2) == 0 {
			recordsShaped(&b, pick)
		} else {
			logShaped(&b, pick, r)
		}
		src := b.String()
		needed := Needed(src)
		if !needed && strings.Count(src, "redis.call('")-strings.Count(src, "ipairs(KEYS) do redis.call") > 1 {
			cleared++
		}
		for run := 0; run < 8; run++ {
			keys := []string{"{t}1", "{t}2"}
			if r.Intn(3) == 0 {
				keys[1] = keys[0]
			}
			state := [][]any{{"FLUSHALL"}}
			for i, k := range keys {
				if i == 1 && k == keys[0] {
					break
				}
				switch r.Intn(9) {
				case 0, 1:
					state = append(state, []any{"ZADD", k, 95, "old", 100, "e1", 101, "new"})
				case 2, 3:
					state = append(state, []any{"ZADD", k, 90, "old"}, []any{"PEXPIRE", k, 100000})
				case 4:
					state = append(state, []any{"SET", k, "s"})
				case 5:
					state = append(state, []any{"HSET", k, "f1", "1"})
				case 6, 7:
					state = append(state, []any{"HSET", k, "f1", "x", "g", "7"}, []any{"PEXPIRE", k, 100000})
				}
			}
			argv := []any{pick("100", "100", "0", "-3", "2.5", "nan", "1e300"), pick("", "late", "after", "f1"),
				pick("5", "1", "3", "0", "0.5", "x"), pick("5", "2", "3", "0", "x")}
			switch runUnwrapped(t, ctx, c, scripts, src, needed, keys, argv, state) {
			case halfWay:
				halfDone++
			case cleanly:
				if !needed {
					clearedFailed++
				}
			}
		}
	}
	t.Logf("%d scripts: %d cleared with two writes or more (%d of their runs failed, writing nothing); %d runs of the others failed half way", scripts, cleared, clearedFailed, halfDone)
	if *tableRuns >= 200 && (cleared < scripts/60 || clearedFailed < 20 || halfDone < 20) {
		t.Fatalf("the generator no longer exercises the proof: %d of %d cleared, %d failed, %d half-done runs", cleared, scripts, clearedFailed, halfDone)
	}
}

// logShaped writes the rest of a TestPropertyTables script in log's shape.
func logShaped(b *strings.Builder, pick func(...string) string, r *rand.Rand) {
	b.WriteString("local w = {}\nfor i in ipairs(KEYS) do\n  local n = " + pick("int(ARGV[i + 2], 1)", "int(ARGV[i + 2], 0)", "tonumber(ARGV[i + 2])") + "\n")
	b.WriteString("  " + pick("if not n then return 'bad' end\n  w[i] = n", "if n then w[i] = n end", "w[i] = n or 1", "if not n then return 'bad' end\n  w[i] = n\n  if n == 3 then w[i] = nil end") + "\nend\n")
	b.WriteString("local now = " + pick("int(ARGV[1], 0)", "int(ARGV[1], -5)", "tonumber(ARGV[1])") + "\nif not now then return 'no' end\n")
	if r.Intn(5) > 0 {
		b.WriteString("for _, k in ipairs(KEYS) do " + pick("redis.call('ZCARD', k)", "redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')", "redis.call('EXISTS', k)") + " end\n")
	}
	op := func() string {
		return pick("redis.call('ZADD', k, now, 'e' .. i)", "redis.call('ZADD', k, now, string.format('%d:%d', now, i))",
			"redis.call('ZADD', k, 'NX', now, 'e1')", "redis.call('ZADD', k, now - 1, 'e1')",
			"local s = redis.call('ZCOUNT', k, now, now) repeat s = s + 1 redis.call('ZADD', k, now, 'r' .. s) until s >= 2",
			"redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i])", "redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i])",
			"redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i] + 1)", "redis.call('ZREMRANGEBYSCORE', k, '-inf', now)",
			"redis.call('PEXPIRE', k, w[i])", "redis.call('PEXPIRE', k, w[i])", "redis.call('PEXPIRE', k, w[i])",
			"redis.call('ZCOUNT', k, now, now)", "now = now + 1",
			"if i == 2 and ARGV[2] == 'late' then error('late') end")
	}
	b.WriteString("for i, k in ipairs(KEYS) do\n")
	for n := 2 + r.Intn(3); n > 0; n-- {
		b.WriteString("  " + op() + "\n")
	}
	b.WriteString("end\n")
	if r.Intn(3) == 0 {
		b.WriteString(pick("redis.call('ZCARD', KEYS[1])", "if ARGV[2] == 'after' then error('after') end") + "\n")
	}
	b.WriteString("return 'ok'\n")
}

// recordsShaped writes the rest of a TestPropertyTables script in window's
// shape.
func recordsShaped(b *strings.Builder, pick func(...string) string) {
	if pick("a", "a", "a", "") != "" {
		b.WriteString("for _, k in ipairs(KEYS) do " + pick("redis.call('HLEN', k)", "redis.call('HGET', k, 't')", "redis.call('EXISTS', k)") + " end\n")
	}
	b.WriteString("local cs = {}\nfor j, k in ipairs(KEYS) do\n  local n = " + pick("int(ARGV[j + 2], 1)", "tonumber(ARGV[j + 2])") + "\n")
	b.WriteString("  " + pick("if not n then return 'bad' end", "") + "\n")
	b.WriteString("  cs[#cs + 1] = {id = j, field = " + pick("'f' .. j", "ARGV[2]", "'g'") + ", v = " + pick("n", "n + 1", "ARGV[3]") + "}\n")
	b.WriteString("  " + pick("", "", "cs[#cs + 1] = {id = j, v = 2}", "cs[#cs + 1] = {id = j, field = 'h', v = 'w'}") + "\nend\n")
	op := func() string {
		return pick("redis.call('HSET', k, c.field, c.v)", "redis.call('HSET', k, c.field, c.v)", "redis.call('PEXPIRE', k, c.v)",
			"redis.call('HDEL', k, c.field)", "redis.call('HINCRBY', k, c.field, 1)", "if c.v == 3 then error('three') end")
	}
	b.WriteString("for j, k in ipairs(KEYS) do\n  for _, c in ipairs(cs) do\n    if c.id == j then\n      " + op() + "\n      " + op() + "\n    end\n  end\n")
	b.WriteString("  " + pick("redis.call('HSET', k, 't', 1)", "redis.call('PEXPIRE', k, 1000)", "if j == 2 and ARGV[2] == 'late' then error('late') end", "") + "\nend\n")
	b.WriteString("return 'ok'\n")
}
