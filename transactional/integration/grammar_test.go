package integration

import (
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/commands"
)

var (
	grammarRuns = flag.Int("grammar.runs", 150, "command sequences TestGrammarCommands sends; the documented long run is -grammar.runs=20000 -grammar.time=30m")
	grammarTime = flag.Duration("grammar.time", 90*time.Second, "time limit of TestGrammarCommands")
	grammarSeed = flag.Int64("grammar.seed", 1, "seed of TestGrammarCommands")
)

// grammarCommands are the commands TestGrammarCommands draws, their
// arguments drawn from Redis 7.0.15's own grammar (COMMAND DOCS, kept in
// internal/commands). Left out: commands whose reply depends on chance,
// on hash order or on the clock (SPOP, SRANDMEMBER, SMEMBERS, HGETALL,
// SCAN, OBJECT, XADD's "*"), blocking ones, and the ones grammarKnown
// lists with the reason.
var grammarCommands = []string{
	"set", "get", "getdel", "getex", "append", "strlen", "incr", "decr", "incrby", "decrby", "setrange", "getrange",
	"setnx", "getset", "mset", "mget", "msetnx", "setex", "psetex", "bitcount", "bitpos", "setbit", "getbit", "bitop", "substr",
	"bitfield", "bitfield_ro", "lcs",
	"hset", "hget", "hmget", "hdel", "hincrby", "hexists", "hlen", "hsetnx", "hstrlen",
	"lpush", "rpush", "lpop", "rpop", "lrange", "llen", "lindex", "lset", "lrem", "ltrim", "linsert", "lpos",
	"lmove", "rpoplpush", "lpushx", "rpushx", "lmpop",
	"sadd", "srem", "scard", "sismember", "smismember", "smove", "sintercard", "sunionstore", "sinterstore", "sdiffstore",
	"zadd", "zincrby", "zscore", "zmscore", "zrange", "zrangebyscore", "zrevrange", "zrevrangebyscore", "zrank", "zrevrank",
	"zrem", "zremrangebyscore", "zremrangebyrank", "zcard", "zcount", "zpopmin", "zpopmax", "zunionstore", "zinterstore",
	"zmpop", "zrangestore",
	"zrangebylex", "zrevrangebylex", "zlexcount", "zremrangebylex", "expireat", "pexpireat",
	"xadd", "xlen", "xrange", "xrevrange", "xdel", "xtrim",
	"del", "exists", "expire", "pexpire", "ttl", "pttl", "persist", "type", "rename", "renamenx", "copy", "unlink", "touch",
}

// grammarKnown are differences TestGrammarCommands finds and that stay,
// by command, with the reason; a command listed here is still drawn, and
// its replies not compared. Counted in the test's log.
var grammarKnown = map[string]string{
	"expire":  "GT compares with the TTL, which the clocks see differently: the engine's stands still between commands, so an equal expiry is not greater",
	"pexpire": "GT compares with the TTL, which the clocks see differently: the engine's stands still between commands, so an equal expiry is not greater",
	"ttl":     "the engine's clock stands still between commands; redis-server's moves",
	"pttl":    "the engine's clock stands still between commands; redis-server's moves",
}

// grammarGen draws one command line from a grammar.
type grammarGen struct {
	r      *rand.Rand
	tokens []string // every token of the command: option words used as data
}

var (
	gKeys    = []string{"{g}a", "{g}b", "{g}c"}
	gStrings = []string{"a", "b", "1", "0", "", "x y", "-1", "~", "=", "*", "nan", "inf", "-inf", "(1"}
	gInts    = []string{"0", "1", "2", "3", "-1", "10", "01", "+1", "-0", "x", "1.5", "9223372036854775807", "-9223372036854775808", "9223372036854775808"}
	gFloats  = []string{"0", "1", "1.5", "-2.5", "inf", "-inf", "+inf", "x", "1e3", "(1", "(-inf", "nan", "-nan"}
	gIDs     = []string{"1-1", "2-0", "0-1", "1", "3", "0-0", "-", "+", "x", "(1-1"}
)

func (g *grammarGen) line(name string, args []commands.Arg) []string {
	g.tokens = g.tokens[:0]
	collectTokens(args, &g.tokens)
	out := strings.Split(strings.ToUpper(name), "|")
	for _, a := range args {
		out = g.arg(out, a, false)
	}
	// Now and then a line off the grammar: an option word, an argument
	// dropped, or two swapped.
	switch n := len(out); {
	case n > 2 && g.r.Intn(12) == 0:
		i := 1 + g.r.Intn(n-1)
		out = append(out[:i], out[i+1:]...)
	case n > 1 && len(g.tokens) > 0 && g.r.Intn(12) == 0:
		i := 1 + g.r.Intn(n)
		if i > n {
			i = n
		}
		out = append(out[:i], append([]string{g.tokens[g.r.Intn(len(g.tokens))]}, out[i:]...)...)
	}
	return out
}

func collectTokens(args []commands.Arg, into *[]string) {
	for _, a := range args {
		if a.Token != "" && a.Token != "*" {
			*into = append(*into, a.Token)
		}
		collectTokens(a.Args, into)
	}
}

func (g *grammarGen) arg(out []string, a commands.Arg, inRepeat bool) []string {
	if a.Optional && !inRepeat && g.r.Intn(2) == 0 {
		return out
	}
	reps := 1
	if a.Multiple && !inRepeat {
		reps = 1 + g.r.Intn(3)
	}
	for i := 0; i < reps; i++ {
		if a.Token != "" && (i == 0 || a.MultipleToken) {
			out = append(out, g.token(a.Token))
		}
		switch a.Type {
		case "pure-token":
		case "oneof":
			choices := a.Args
			for {
				c := choices[g.r.Intn(len(choices))]
				if c.Token == "*" || c.Token == "$" {
					continue // an ID from the clock, or the last one
				}
				out = g.arg(out, c, true)
				break
			}
		case "block":
			for _, c := range a.Args {
				out = g.arg(out, c, false)
			}
		default:
			out = append(out, g.value(a))
		}
	}
	return out
}

// token spells an option word as clients do, in either case.
func (g *grammarGen) token(t string) string {
	if g.r.Intn(4) == 0 {
		return strings.ToLower(t)
	}
	return t
}

// value draws a value of a's type; a key or a string is sometimes one of
// the command's own option words, as data that looks like an option, and
// a string one that reads as a number ("nan", "inf", "(1").
func (g *grammarGen) value(a commands.Arg) string {
	pick := func(pool []string) string { return pool[g.r.Intn(len(pool))] }
	switch {
	case a.Type == "key" && len(g.tokens) > 0 && g.r.Intn(8) == 0:
		// A key named like one of the command's options: a check that
		// looks for option words anywhere takes it for one.
		return g.tokens[g.r.Intn(len(g.tokens))]
	case a.Type == "key":
		return pick(gKeys)
	case a.Type == "integer" && (strings.Contains(a.Name, "milliseconds") || a.Name == "timeout"):
		return pick(gInts) + "000"
	case a.Type == "integer":
		return pick(gInts)
	case a.Type == "double":
		return pick(gFloats)
	case a.Type == "unix-time":
		// Deadlines in the past only: a future one is a TTL that the two
		// clocks, a second apart, may round to different seconds.
		return pick([]string{"1", "0", "-1", "x", "01"})
	case a.Type == "pattern":
		return pick([]string{"*", "a*", "[ab]"})
	case strings.Contains(a.Name, "id") || a.Name == "threshold" || a.Name == "start" || a.Name == "end":
		if g.r.Intn(2) == 0 {
			return pick(gIDs)
		}
		return pick(gInts)
	case a.Name == "min" || a.Name == "max":
		return pick(gFloats)
	case a.Name == "operation": // BITOP's, a string in the grammar
		return pick([]string{"AND", "or", "XOR", "NOT", "x"})
	case a.Name == "encoding": // BITFIELD's type, a string in the grammar
		return pick([]string{"u8", "i8", "u1", "i64", "u63", "u64", "i16", "x"})
	case a.Name == "offset" && g.r.Intn(4) == 0: // BITFIELD's #n form
		return "#" + pick(gInts)
	case len(g.tokens) > 0 && g.r.Intn(5) == 0:
		return g.token(g.tokens[g.r.Intn(len(g.tokens))])
	}
	return pick(gStrings)
}

// TestGrammarCommands sends random command sequences drawn from Redis's
// own argument grammar to redis-server and to the engine, and compares
// every reply and the keyspace after each sequence. A difference is
// reported once per command.
func TestGrammarCommands(t *testing.T) {
	real, engine, _ := differentialTargets(t)
	grammars := map[string][]commands.Arg{}
	for _, name := range grammarCommands {
		g, ok := commands.Grammar(name)
		if !ok {
			t.Fatalf("no grammar for %s", name)
		}
		grammars[name] = g
	}
	gen := &grammarGen{r: rand.New(rand.NewSource(*grammarSeed))}
	deadline := time.Now().Add(*grammarTime)
	seen := map[string]bool{}
	known := map[string]int{}
	sent := 0
	for n := 0; n < *grammarRuns && time.Now().Before(deadline); n++ {
		var cmds [][]string
		for range 15 {
			name := grammarCommands[gen.r.Intn(len(grammarCommands))]
			cmds = append(cmds, gen.line(name, grammars[name]))
		}
		sent += len(cmds)
		tc := tcase{name: fmt.Sprintf("grammar/%d", n), cmds: cmds, resp3: n%3 == 2}
		// In a subtest, so that its connections close with it: thousands
		// of sequences would run out of file descriptors.
		var want, got [][]byte
		var wantKeys, gotKeys string
		t.Run(tc.name, func(t *testing.T) {
			want, wantKeys = run(t, real, tc)
			got, gotKeys = run(t, engine, tc)
		})
		if want == nil {
			t.FailNow()
		}
		i := firstDivergence(want, got)
		if i < 0 {
			keyspaceOnce(t, seen, n, cmds, wantKeys, gotKeys)
			continue
		}
		name := strings.ToLower(cmds[i][0])
		if _, ok := grammarKnown[name]; ok {
			known[name]++
		} else if !seen[name] {
			seen[name] = true
			t.Errorf("run %d, command %d %q:\nredis:  %s\nengine: %s\nsequence:\n%s", n, i, cmds[i], clip(want[i]), clip(got[i]), sequence(cmds[:i+1]))
		}
	}
	var names []string
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("known difference, %s: %d sequences (%s)", k, known[k], grammarKnown[k])
	}
	t.Logf("%d commands sent", sent)
}
