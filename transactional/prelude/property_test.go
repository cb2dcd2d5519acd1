package prelude

import (
	"flag"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	propRuns   = flag.Int("prelude.runs", 1200, "random scripts TestPropertyRollback runs on redis-server")
	propBudget = flag.Duration("prelude.budget", 90*time.Second, "time TestPropertyRollback may take at most")
	propSeed   = flag.Int64("prelude.seed", 7, "seed of TestPropertyRollback's scripts and keyspaces")
)

const propKeys = 5

var functionLine = regexp.MustCompile(`user_function:\d+:`)

// ops are statements on KEYS[a] (and KEYS[b]), by the type they need (-1:
// any); each may fail on its own when the key holds another type, which is
// part of the test.
var ops = []struct {
	lua string
	typ int
}{
	{"redis.call('SET', KEYS[a], '%d')", 0},
	{"redis.call('SET', KEYS[a], '%d', 'PXAT', 4102444800000)", 0},
	{"redis.call('SET', KEYS[a], '%d', 'NX', 'PXAT', 4102444800000)", -1},
	{"redis.call('APPEND', KEYS[a], '1')", 0},
	{"redis.call('INCRBY', KEYS[a], %d)", 0},
	{"redis.call('GETDEL', KEYS[a])", 0},
	{"redis.call('HSET', KEYS[a], 'f%d', 'v')", 1},
	{"redis.call('HDEL', KEYS[a], 'f1', 'f2')", 1},
	{"redis.call('HINCRBY', KEYS[a], 'n', %d)", 1},
	{"redis.call('h' .. 'set', KEYS[a], 'dyn', %d)", 1},
	{"redis.call('RPUSH', KEYS[a], 'e%d', 'e')", 2},
	{"redis.call('LPOP', KEYS[a])", 2},
	{"redis.call('LMOVE', KEYS[a], KEYS[b], 'LEFT', 'RIGHT')", 2},
	{"redis.call('SADD', KEYS[a], '%d', 'm')", 3},
	{"redis.call('SREM', KEYS[a], 'm', '1')", 3},
	{"redis.call('SMOVE', KEYS[a], KEYS[b], 'm')", 3},
	{"redis.call('SUNIONSTORE', KEYS[a], KEYS[a], KEYS[b])", 3},
	{"redis.call('ZADD', KEYS[a], %d, 'z')", 4},
	{"redis.call('ZINCRBY', KEYS[a], 1.5, 'y')", 4},
	{"redis.call('ZREM', KEYS[a], 'z')", 4},
	{"redis.call('ZUNIONSTORE', KEYS[a], 2, KEYS[a], KEYS[b])", 4},
	{"redis.call('XADD', KEYS[a], '%d-1', 'f', 'v')", 5},
	{"redis.call('XTRIM', KEYS[a], 'MAXLEN', 1)", 5},
	{"redis.call('DEL', KEYS[a], KEYS[b])", -1},
	{"redis.call('PEXPIREAT', KEYS[a], 4102444800%03d)", -1},
	{"redis.call('PERSIST', KEYS[a])", -1},
	{"redis.call('RENAME', KEYS[a], KEYS[b])", -1},
	{"redis.call('COPY', KEYS[a], KEYS[b], 'REPLACE')", -1},
	{"redis.pcall('INCR', KEYS[a])", -1},
	{"redis.call('GET', KEYS[a])", 0},
	{"redis.call('SET', KEYS[a], '%d', 'KEEPTTL')", 0},
	{"redis.call('INCRBYFLOAT', KEYS[a], '0.5')", 0},
	{"redis.call('HMGET', KEYS[a], 'f1', 'n', 'f3')", 1},
	{"redis.call('HGET', KEYS[a], 'f%d')", 1},
	{"redis.call('HSETNX', KEYS[a], 'f%d', 'x')", 1},
	{"redis.call('HINCRBYFLOAT', KEYS[a], 'n', '1.25')", 1},
	{"redis.call('HMSET', KEYS[a], 'f1', 'a', 'f%d', 'b')", 1},
	{"redis.call('LPUSHX', KEYS[a], 'x', 'y')", 2},
	{"redis.call('RPUSHX', KEYS[a], 'z')", 2},
	{"redis.call('SREM', KEYS[a], 'm', '%d')", 3},
	{"redis.call('ZADD', KEYS[a], 'GT', 'CH', %d, 'z', 1, 'w')", 4},
	{"redis.call('ZREMRANGEBYSCORE', KEYS[a], '-inf', %d)", 4},
	{"redis.call('ZREMRANGEBYRANK', KEYS[a], 0, 0)", 4},
	{"redis.call('ZSCORE', KEYS[a], 'z')", 4},
	{"redis.call('ZSCORE', KEYS[a], 'w')", 4},
	{"redis.call('XADD', KEYS[a], 'MAXLEN', 1, '%d-2', 'g', 'w')", 5},
	{"redis.call('XDEL', KEYS[a], '1-1')", 5},
	{"redis.call('XADD', KEYS[a], 'MAXLEN', '~', 0, '%d-3', 'h', 'w')", 5},
	{"redis.call('XLEN', KEYS[a])", 5},
	{"redis.call('EXPIREAT', KEYS[a], 4102444%03d)", -1},
	{"redis.call('PEXPIRE', KEYS[a], -%d)", -1},
	{"redis.call('EXPIREAT', KEYS[a], %d)", -1},
	// Moves and pops, undone by the move back or a push (h_move, h_pop).
	{"redis.call('RPOPLPUSH', KEYS[a], KEYS[b])", 2},
	{"redis.call('LMOVE', KEYS[a], KEYS[a], 'RIGHT', 'LEFT')", 2},
	{"redis.call('LMOVE', KEYS[a], KEYS[b], 'LEFT', 'LEFT')", 2},
	{"redis.call('RPOP', KEYS[a], %d)", 2},
	{"redis.call('LPOP', KEYS[a], 2)", 2},
	{"redis.call('RPOP', KEYS[a])", 2},
	{"redis.call('LPUSH', KEYS[b], 'p%d')", 2},
	{"redis.call('SET', KEYS[b], 'gone') redis.call('DEL', KEYS[b]) redis.call('LMOVE', KEYS[a], KEYS[b], 'LEFT', 'RIGHT')", 2},
	// Strings a GET returned are deleted and undone by SET (h_del).
	{"redis.call('GET', KEYS[a]) redis.call('DEL', KEYS[a], KEYS[b])", 0},
	{"if redis.call('GET', KEYS[a]) then redis.call('UNLINK', KEYS[a]) end", -1},
	// Keys an EXISTS found absent are undone by DEL (r_exists).
	{"if redis.call('EXISTS', KEYS[a]) == 0 then redis.call('HSET', KEYS[a], 'f', '%d') end", -1},
	{"if redis.call('EXISTS', KEYS[a], KEYS[b]) == 0 then redis.call('RPUSH', KEYS[b], 'x') end", -1},
}

var failures = []string{
	"error('injected')",
	"error({err = 'INJECTED failure %d'})",
	"redis.call('INCR', KEYS[a]) redis.call('HSET', KEYS[a], 'f', 1)",
	"local t = nil; t.x = %d",
}

func line(r *rand.Rand, tmpl string, a, b int) string {
	s := strings.ReplaceAll(tmpl, "KEYS[a]", fmt.Sprintf("KEYS[%d]", a))
	s = strings.ReplaceAll(s, "KEYS[b]", fmt.Sprintf("KEYS[%d]", b))
	if strings.Contains(s, "%") {
		s = fmt.Sprintf(s, 1+r.Intn(9))
	}
	return s
}

// randomScript is 1–10 random statements with, for most scripts, a failure
// at a random point, and for some a switch to RESP3. A typed script keeps to the type each key has in a
// typed state (KEYS[i] holds type i-1), so that most of them succeed.
func randomScript(r *rand.Rand, typed bool) string {
	var b strings.Builder
	// A third of the scripts speak RESP3 to Redis, at the start or half
	// way: the journal must read in RESP2 whatever the script chose.
	resp3At := -1
	if r.Intn(3) == 0 {
		resp3At = r.Intn(4)
	}
	n := 1 + r.Intn(10)
	failAt := -1
	if !typed || r.Intn(4) == 0 {
		failAt = r.Intn(n + 1)
	}
	for i := 0; i <= n; i++ {
		if i == resp3At {
			b.WriteString("redis.setresp(3)\n")
		}
		if i == failAt {
			b.WriteString(line(r, failures[r.Intn(len(failures))], 1+r.Intn(propKeys), 1) + "\n")
		}
		if i >= n {
			continue
		}
		op := ops[r.Intn(len(ops))]
		a, k := 1+r.Intn(propKeys), 1+r.Intn(propKeys)
		if typed {
			if op.typ >= 0 {
				a = op.typ%propKeys + 1
			}
			k = a
		}
		b.WriteString(line(r, op.lua, a, k) + "\n")
	}
	b.WriteString("return 'ok'\n")
	return b.String()
}

// randomState fills the keys with random types and values, some with a
// TTL, as a list of commands so that it can be replayed exactly.
func randomState(r *rand.Rand, keys []string, typed bool) [][]any {
	cmds := [][]any{{"FLUSHALL"}}
	for i, k := range keys {
		typ := r.Intn(7) - 1
		if typed && typ >= 0 {
			typ = i
		}
		switch typ {
		case -1: // absent
			continue
		case 0:
			cmds = append(cmds, []any{"SET", k, r.Intn(20)})
		case 1:
			cmds = append(cmds, []any{"HSET", k, "f1", "a", "n", r.Intn(5)})
		case 2:
			cmds = append(cmds, []any{"RPUSH", k, "e1", "e2"})
		case 3:
			cmds = append(cmds, []any{"SADD", k, "m", "1", r.Intn(5)})
		case 4:
			cmds = append(cmds, []any{"ZADD", k, 1, "z", 2.5, "y"})
		case 5:
			cmds = append(cmds, []any{"XADD", k, "1-1", "f", "v"}, []any{"XGROUP", "CREATE", k, "g", "0"})
			if r.Intn(2) == 0 {
				cmds = append(cmds, []any{"XADD", k, "1-5", "f", "v"}, []any{"XDEL", k, "1-5"})
			}
		}
		if r.Intn(3) == 0 {
			cmds = append(cmds, []any{"PEXPIREAT", k, 4102444900000 + r.Intn(1000)})
		}
	}
	return cmds
}

// TestPropertyRollback runs random multi-key scripts, most with a failure
// injected at a random point, on a real redis-server, each twice from the
// same random keyspace: wrapped in the prelude and as is. A failed wrapped
// run must leave the keyspace exactly as before (type, value, expiry), with
// the error the plain run gets; a successful one must leave what the plain
// run leaves, with its reply. Every fourth script runs as a function of a
// Functions library instead of through EVAL; every third calls Redis
// through `local rcall = redis.call`.
func TestPropertyRollback(t *testing.T) {
	ctx, c := start(t)
	r := rand.New(rand.NewSource(*propSeed))
	keys := make([]string, propKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("{p}k%d", i)
	}
	deadline := time.Now().Add(*propBudget)
	failed, runs := 0, 0
	for ; runs < *propRuns && time.Now().Before(deadline); runs++ {
		typed := r.Intn(2) == 0
		body, state := randomScript(r, typed), randomState(r, keys, typed)
		functions := runs%4 == 3
		if runs%3 == 1 {
			// As BullMQ writes its scripts: the proof follows the alias,
			// and a final write through it goes straight to Redis.
			body = "local rcall = redis.call\n" + strings.ReplaceAll(body, "redis.call(", "rcall(")
		}

		run := func(wrapped bool) (any, error) {
			if !functions {
				src := body
				if wrapped {
					src = Wrap(body)
				}
				return c.Eval(ctx, src, keys).Result()
			}
			fn := "plain"
			if wrapped {
				fn = "tx"
			}
			return c.FCall(ctx, fn, keys).Result()
		}
		if functions {
			code := "local function tx(KEYS, ARGV)\n" + Run(body) + "end\n" +
				"local function plain(KEYS, ARGV)\n" + body + "end\n" +
				"redis.register_function('tx', tx) redis.register_function('plain', plain)\n"
			if err := c.FunctionLoadReplace(ctx, "#!lua name=p\n"+Declare(code)+code).Err(); err != nil {
				t.Fatalf("run %d: FUNCTION LOAD: %v", runs, err)
			}
		}

		if failedRun, _ := againstPlain(t, ctx, c, keys, state, run, functions, fmt.Sprintf("run %d (functions=%v)", runs, functions), body); failedRun {
			failed++
		}
	}
	t.Logf("%d random scripts, %d failed and were rolled back", runs, failed)
	if runs < 1000 && *propRuns >= 1000 {
		t.Fatalf("only %d runs within %v: the property needs at least 1000", runs, *propBudget)
	}
	if failed < runs/3 || failed > runs*9/10 {
		t.Fatalf("%d of %d runs failed: the generator no longer exercises both rollback and success", failed, runs)
	}
}
