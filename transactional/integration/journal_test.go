package integration

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

var (
	journalRuns   = flag.Int("journal.runs", 10000, "random script runs TestJournalProperty makes in the engine (-short: a tenth)")
	journalSample = flag.Int("journal.sample", 10, "every n-th run is also made on redis-server and compared")
	journalBudget = flag.Duration("journal.budget", 4*time.Minute, "time TestJournalProperty may take at most")
	journalSeed   = flag.Int64("journal.seed", 11, "seed of TestJournalProperty's scripts and keyspaces")
)

const journalKeys = 5

// jops are statements on KEYS[a] (and KEYS[b]), by the type they need (-1:
// any); on a key of another type most fail, which is part of the test.
// They use absolute expiries only, so that the engine's virtual clock and
// the server's wall clock agree on them.
var jops = []struct {
	lua string
	typ int
}{
	{"redis.call('SET', KEYS[a], '%d')", 0},
	{"redis.call('SET', KEYS[a], '%d', 'PXAT', 4102444800000)", 0},
	// Integers Redis refuses and miniredis would take.
	{"redis.pcall('INCRBY', KEYS[a], '0%d')", 0},
	{"redis.pcall('SETRANGE', KEYS[a], '0%d', 'x')", 0},
	{"redis.pcall('SET', KEYS[a], 'x', 'PXAT', '+4102444800000')", 0},
	{"redis.pcall('LTRIM', KEYS[a], '-0', -1)", 2},
	{"redis.pcall('LPOP', KEYS[a], '0%d')", 2},
	{"redis.pcall('SPOP', KEYS[a], '-%d')", 3},
	{"redis.pcall('ZREMRANGEBYRANK', KEYS[a], '+0', 0)", 4},
	{"redis.pcall('PEXPIREAT', KEYS[a], '04102444800%03d')", -1},
	{"redis.call('APPEND', KEYS[a], '1')", 0},
	{"redis.call('INCRBY', KEYS[a], %d)", 0},
	{"redis.call('GETDEL', KEYS[a])", 0},
	{"redis.call('SET', KEYS[a], '%d', 'KEEPTTL')", 0},
	{"redis.call('INCRBYFLOAT', KEYS[a], '0.5')", 0},
	{"redis.call('HSET', KEYS[a], 'f%d', 'v')", 1},
	{"redis.call('HDEL', KEYS[a], 'f1', 'f2')", 1},
	{"redis.call('HINCRBY', KEYS[a], 'n', %d)", 1},
	{"redis.call('h' .. 'set', KEYS[a], 'dyn', %d)", 1},
	{"redis.call('HSETNX', KEYS[a], 'f%d', 'x')", 1},
	{"redis.call('RPUSH', KEYS[a], 'e%d', 'e')", 2},
	{"redis.call('LPOP', KEYS[a])", 2},
	{"redis.call('LPUSHX', KEYS[a], 'x', 'y')", 2},
	{"redis.call('LMOVE', KEYS[a], KEYS[b], 'LEFT', 'RIGHT')", 2},
	{"redis.call('SADD', KEYS[a], '%d', 'm')", 3},
	{"redis.call('SREM', KEYS[a], 'm', '1')", 3},
	{"redis.call('SMOVE', KEYS[a], KEYS[b], 'm')", 3},
	{"redis.call('SUNIONSTORE', KEYS[a], KEYS[a], KEYS[b])", 3},
	{"redis.call('ZADD', KEYS[a], %d, 'z')", 4},
	{"redis.call('ZINCRBY', KEYS[a], 1.5, 'y')", 4},
	{"redis.call('ZREM', KEYS[a], 'z')", 4},
	{"redis.call('ZREMRANGEBYRANK', KEYS[a], 0, 0)", 4},
	{"redis.call('XADD', KEYS[a], '%d-1', 'f', 'v')", 5},
	{"redis.call('XDEL', KEYS[a], '1-1')", 5},
	{"redis.call('DEL', KEYS[a], KEYS[b])", -1},
	{"redis.call('PEXPIREAT', KEYS[a], 4102444800%03d)", -1},
	{"redis.call('PERSIST', KEYS[a])", -1},
	{"redis.call('RENAME', KEYS[a], KEYS[b])", -1},
	{"redis.call('COPY', KEYS[a], KEYS[b], 'REPLACE')", -1},
	{"redis.pcall('INCR', KEYS[a])", -1},
	{"redis.call('EXPIREAT', KEYS[a], 4102444%03d)", -1},
}

// jfailures end a script early. The last one does not fail: a script that
// returns an error reply keeps its writes, in Redis and with the prelude.
var jfailures = []string{
	"error('injected')",
	"error({err = 'INJECTED failure %d'})",
	"redis.call('INCR', KEYS[a]) redis.call('HSET', KEYS[a], 'f', 1)",
	"local t = nil; t.x = %d",
	"return redis.error_reply('REPLIED %d')",
}

func jline(r *rand.Rand, tmpl string, a, b int) string {
	s := strings.ReplaceAll(tmpl, "KEYS[a]", fmt.Sprintf("KEYS[%d]", a))
	s = strings.ReplaceAll(s, "KEYS[b]", fmt.Sprintf("KEYS[%d]", b))
	if strings.Contains(s, "%") {
		s = fmt.Sprintf(s, 1+r.Intn(9))
	}
	return s
}

// jscript is 1–8 random statements, most scripts with a failure at a
// random point, some switching to RESP3. A typed script keeps to the type each key has in a typed
// state (KEYS[i] holds type i-1), so that many of them get far.
func jscript(r *rand.Rand, typed bool) string {
	var b strings.Builder
	n := 1 + r.Intn(8)
	failAt := -1
	if !typed || r.Intn(3) > 0 {
		failAt = r.Intn(n + 1)
	}
	// Some scripts switch to RESP3 on the way, which the prelude's journal
	// must not read its own replies in.
	resp3At := -1
	if r.Intn(4) == 0 {
		resp3At = r.Intn(n + 1)
	}
	for i := 0; i <= n; i++ {
		if i == resp3At {
			b.WriteString("redis.setresp(3)\n")
		}
		if i == failAt {
			b.WriteString(jline(r, jfailures[r.Intn(len(jfailures))], 1+r.Intn(journalKeys), 1) + "\n")
			break
		}
		if i >= n {
			continue
		}
		op := jops[r.Intn(len(jops))]
		a, k := 1+r.Intn(journalKeys), 1+r.Intn(journalKeys)
		if typed {
			if op.typ >= 0 {
				a = op.typ%journalKeys + 1
			}
			k = a
		}
		b.WriteString(jline(r, op.lua, a, k) + "\n")
	}
	if !strings.HasPrefix(b.String()[strings.LastIndex(strings.TrimSuffix(b.String(), "\n"), "\n")+1:], "return") {
		b.WriteString("return 'ok'\n")
	}
	return b.String()
}

// jstate fills the keys with random types and values, some with an
// expiry, as commands that can be replayed on both targets.
func jstate(r *rand.Rand, keys []string, typed bool) [][]string {
	cmds := [][]string{{"FLUSHALL"}}
	n := func(k int) string { return fmt.Sprint(r.Intn(k)) }
	for i, k := range keys {
		typ := r.Intn(7) - 1
		if typed && typ >= 0 {
			typ = i
		}
		switch typ {
		case -1:
			continue
		case 0:
			cmds = append(cmds, []string{"SET", k, n(20)})
		case 1:
			cmds = append(cmds, []string{"HSET", k, "f1", "a", "n", n(5)})
		case 2:
			cmds = append(cmds, []string{"RPUSH", k, "e1", "e2"})
		case 3:
			cmds = append(cmds, []string{"SADD", k, "m", "1", n(5)})
		case 4:
			cmds = append(cmds, []string{"ZADD", k, "1", "z", "2.5", "y"})
		case 5:
			cmds = append(cmds, []string{"XADD", k, "1-1", "f", "v"}, []string{"XGROUP", "CREATE", k, "g", "0-0"})
		}
		if r.Intn(3) == 0 {
			cmds = append(cmds, []string{"PEXPIREAT", k, fmt.Sprint(4102444900000 + r.Intn(1000))})
		}
	}
	return cmds
}

// doer sends one command and returns the reply as the engine's Do does
// (nil, int64, string, []any) and the error reply, if any.
type doer func(args ...string) (any, error)

func engineDoer(e *transactional.Engine) doer {
	return func(args ...string) (any, error) {
		return engineReply(e.Do(args...))
	}
}

// engineReply makes Do's values compare with go-redis's: statuses as
// strings, no value next to an error.
func engineReply(v any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if _, ok := v.(transactional.Status); ok {
		v = fmt.Sprint(v)
	}
	return v, nil
}

func redisDoer(ctx context.Context, c *redis.Client) doer {
	return func(args ...string) (any, error) {
		a := make([]any, len(args))
		for i, s := range args {
			a[i] = s
		}
		v, err := c.Do(ctx, a...).Result()
		if errors.Is(err, redis.Nil) {
			return nil, nil
		}
		return v, err
	}
}

// jdescribe renders the keys' type, value and absolute expiry, the way
// both targets can tell them: what "the keyspace is identical" means here.
func jdescribe(t testing.TB, do doer, keys []string) string {
	t.Helper()
	var b strings.Builder
	must := func(args ...string) any {
		v, err := do(args...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return v
	}
	strs := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	for _, k := range keys {
		typ := fmt.Sprint(must("TYPE", k))
		fmt.Fprintf(&b, "%s %s", k, typ)
		switch typ {
		case "none":
			b.WriteString("\n")
			continue
		case "string":
			fmt.Fprintf(&b, " %q", must("GET", k))
		case "list":
			fmt.Fprintf(&b, " %q", strs(must("LRANGE", k, "0", "-1")))
		case "set":
			m := strs(must("SMEMBERS", k))
			sort.Strings(m)
			fmt.Fprintf(&b, " %q", m)
		case "zset":
			fmt.Fprintf(&b, " %q", strs(must("ZRANGE", k, "0", "-1", "WITHSCORES")))
		case "hash":
			m := strs(must("HGETALL", k))
			var fs []string
			for i := 0; i+1 < len(m); i += 2 {
				fs = append(fs, m[i]+"="+m[i+1])
			}
			sort.Strings(fs)
			fmt.Fprintf(&b, " %q", fs)
		case "stream":
			fmt.Fprintf(&b, " %v", must("XRANGE", k, "-", "+"))
			info := strs(must("XINFO", "STREAM", k))
			for i := 0; i+1 < len(info); i += 2 {
				if info[i] == "last-generated-id" {
					fmt.Fprintf(&b, " last=%s", info[i+1])
				}
			}
			// Sorted: Redis lists groups by name, miniredis in map order.
			var groups []string
			for _, g := range must("XINFO", "GROUPS", k).([]any) {
				var fields []string
				switch g := g.(type) {
				case []any:
					fields = strs(g)
				case map[any]any:
					for k, v := range g {
						fields = append(fields, fmt.Sprint(k), fmt.Sprint(v))
					}
				}
				var desc strings.Builder
				for i := 0; i+1 < len(fields); i += 2 {
					if fields[i] == "name" || fields[i] == "last-delivered-id" || fields[i] == "pending" {
						fmt.Fprintf(&desc, " %s=%s", fields[i], fields[i+1])
					}
					if fields[i] == "name" {
						// Each pending entry: ID, consumer, deliveries
						// (idle times change between two looks).
						for _, p := range must("XPENDING", k, fields[i+1], "-", "+", "100").([]any) {
							p := p.([]any)
							fmt.Fprintf(&desc, " %v:%v:%v", p[0], p[1], p[3])
						}
					}
				}
				groups = append(groups, desc.String())
			}
			sort.Strings(groups)
			b.WriteString(strings.Join(groups, ""))
		default:
			t.Fatalf("%s: unexpected type %s", k, typ)
		}
		fmt.Fprintf(&b, " expires=%v\n", must("PEXPIRETIME", k))
	}
	return b.String()
}

func japply(t testing.TB, do doer, cmds [][]string) {
	t.Helper()
	for _, c := range cmds {
		if _, err := do(c...); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
	}
}

var (
	scriptSuffix = regexp.MustCompile(` script: \S+, on @user_(script|function):\d+\.$`)
	functionLine = regexp.MustCompile(`user_function:\d+:`)
)

// jerr is an error reply without Redis's suffix naming the line that
// raised it last, and with a function's line numbers blanked: the
// transactional and plain functions sit at different lines of one library.
func jerr(err error) string {
	if err == nil {
		return ""
	}
	return functionLine.ReplaceAllString(scriptSuffix.ReplaceAllString(err.Error(), ""), "user_function:N:")
}

// jmode is how a run executes its script.
type jmode int

const (
	modeWrapped  jmode = iota // prelude.Wrap'd EVAL: hosted on the engine, the prelude's Lua on Redis
	modeFunction              // a library with prelude.Declare, FCALL
	modeGoAPI                 // the plain script through Engine.DoTransactional
	numModes
)

var modeNames = [...]string{"wrapped EVAL", "library FCALL", "DoTransactional"}

// jlibrary is the Functions library for body: tx (transactional) and plain.
func jlibrary(body string) string {
	code := "local function tx(KEYS, ARGV)\n" + prelude.Run(body) + "end\n" +
		"local function plain(KEYS, ARGV)\n" + body + "end\n" +
		"redis.register_function('tx', tx) redis.register_function('plain', plain)\n"
	return "#!lua name=j\n" + prelude.Declare(code) + code
}

// run executes body on do, transactional or not, in mode.
func jrun(do doer, mode jmode, tx bool, body string, keys []string, onEngine *transactional.Engine) (any, error) {
	switch {
	case mode == modeFunction:
		fn := "plain"
		if tx {
			fn = "tx"
		}
		return do(append([]string{"FCALL", fn, fmt.Sprint(len(keys))}, keys...)...)
	case !tx:
		return do(append([]string{"EVAL", body, fmt.Sprint(len(keys))}, keys...)...)
	case mode == modeGoAPI && onEngine != nil:
		return engineReply(onEngine.DoTransactional(append([]string{"EVAL", body, fmt.Sprint(len(keys))}, keys...)...))
	}
	return do(append([]string{"EVAL", prelude.Wrap(body), fmt.Sprint(len(keys))}, keys...)...)
}

// TestJournalProperty runs random multi-key scripts, most with a failure
// injected at a random point, in the engine: each from a random keyspace,
// transactionally (the prelude hosted by the engine, through EVAL or a
// library's FCALL, or the plain script under DoTransactional) and as is. A
// failed transactional run must leave the keyspace as it was before (type,
// value, expiry) and fail with the plain run's error; a successful one must
// reply and leave what the plain run does. Every journal.sample-th run is
// made on a real redis-server too, the prelude's own Lua doing the work
// there, and both replies and both resulting keyspaces must be the
// server's.
func TestJournalProperty(t *testing.T) {
	runs, sample := *journalRuns, *journalSample
	if testing.Short() {
		runs /= 10
	}
	srv := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), *journalBudget+time.Minute)
	defer cancel()
	// RESP2, as the engine's Do speaks by default.
	client := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { client.Close() })
	rd := redisDoer(ctx, client)
	e := transactional.New()
	t.Cleanup(e.Close)
	ed := engineDoer(e)

	r := rand.New(rand.NewSource(*journalSeed))
	keys := make([]string, journalKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("{j}k%d", i)
	}
	// A pool of scripts: each is compiled once per target, then met again
	// with other keyspaces.
	pool := make([]string, 0, 600)
	typedPool := make([]bool, 0, 600)
	for i := 0; i < cap(pool); i++ {
		typed := r.Intn(2) == 0
		pool, typedPool = append(pool, jscript(r, typed)), append(typedPool, typed)
	}

	start := time.Now()
	deadline := start.Add(*journalBudget)
	var done, rolledBack, onRedis, plainKept int
	var perMode [numModes]int
	for ; done < runs && time.Now().Before(deadline); done++ {
		i := r.Intn(len(pool))
		body, typed := pool[i], typedPool[i]
		state := jstate(r, keys, typed)
		mode := jmode(r.Intn(int(numModes)))
		perMode[mode]++
		if mode == modeFunction {
			japply(t, ed, [][]string{{"FUNCTION", "LOAD", "REPLACE", jlibrary(body)}})
		}
		where := func() string { return fmt.Sprintf("run %d (%s), script:\n%s", done, modeNames[mode], body) }

		japply(t, ed, state)
		before := jdescribe(t, ed, keys)
		got, err := jrun(ed, mode, true, body, keys, e)
		after := jdescribe(t, ed, keys)

		japply(t, ed, state)
		want, errPlain := jrun(ed, mode, false, body, keys, e)
		plain := jdescribe(t, ed, keys)

		if jerr(err) != jerr(errPlain) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s\ntransactional: %v, %v\nplain: %v, %v", where(), got, err, want, errPlain)
		}
		// An error reply the script returns is not a failure: the writes stay.
		returned := err != nil && strings.HasPrefix(err.Error(), "REPLIED")
		if err != nil && !returned {
			rolledBack++
			if after != before {
				t.Fatalf("%s\nfailed with %v but the keyspace changed:\n%s\nbefore:\n%s", where(), err, after, before)
			}
			if plain != before {
				plainKept++
			}
		} else if after != plain {
			t.Fatalf("%s\nsucceeded but left\n%s\nwhere the plain script leaves\n%s", where(), after, plain)
		}

		if done%sample != 0 {
			continue
		}
		// The same two runs on redis-server.
		onRedis++
		if mode == modeFunction {
			japply(t, rd, [][]string{{"FUNCTION", "LOAD", "REPLACE", jlibrary(body)}})
		}
		for _, tx := range []bool{true, false} {
			japply(t, rd, state)
			rmode := mode
			if rmode == modeGoAPI {
				rmode = modeWrapped // the prelude is what DoTransactional stands for on a server
			}
			rgot, rerr := jrun(rd, rmode, tx, body, keys, nil)
			rafter := jdescribe(t, rd, keys)
			egot, eerr, eafter := got, err, after
			if !tx {
				egot, eerr, eafter = want, errPlain, plain
			}
			// Error texts whole, suffix included (the same script text has
			// the same SHA-1 on both, and the hosted prelude raises from the
			// prelude's line), except for DoTransactional, whose script is
			// not the wrapped one.
			same := fmt.Sprint(rerr) == fmt.Sprint(eerr)
			if mode == modeGoAPI && tx {
				same = jerr(rerr) == jerr(eerr)
			}
			if !same || fmt.Sprint(rgot) != fmt.Sprint(egot) {
				t.Fatalf("%s\ntransactional=%v: redis replies %v, %v; the engine %v, %v", where(), tx, rgot, rerr, egot, eerr)
			}
			if rafter != eafter {
				t.Fatalf("%s\ntransactional=%v: redis leaves\n%s\nthe engine leaves\n%s", where(), tx, rafter, eafter)
			}
		}
	}
	took := time.Since(start)
	t.Logf("%d runs in %v (%v a run, both variants and keyspace reads included), per mode %v; %d failed and were rolled back (the plain run kept writes in %d); %d compared with redis-server",
		done, took.Round(time.Millisecond), (took / time.Duration(max(done, 1))).Round(time.Microsecond), perMode, rolledBack, plainKept, onRedis)
	if done < runs {
		t.Fatalf("only %d of %d runs within %v", done, runs, *journalBudget)
	}
	// The generator must keep exercising both outcomes, and failures that
	// the plain script leaves half done: otherwise the test proves nothing.
	if rolledBack < done/4 || rolledBack > done*9/10 || plainKept < rolledBack/5 {
		t.Fatalf("%d of %d runs failed, %d of those left writes when plain: the generator no longer exercises rollback", rolledBack, done, plainKept)
	}
}
