package prelude

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// asynqEnqueueSrc is asynq v0.26.0's enqueueCmd (internal/rdb/rdb.go), the
// model of a write to a key the script found absent.
const asynqEnqueueSrc = `if redis.call("EXISTS", KEYS[1]) == 1 then
	return 0
end
redis.call("HSET", KEYS[1],
           "msg", ARGV[1],
           "state", "pending",
           "pending_since", ARGV[3])
redis.call("LPUSH", KEYS[2], ARGV[2])
return 1
`

func TestInlineAbsent(t *testing.T) {
	w := Wrap(asynqEnqueueSrc)
	if !strings.HasPrefix(w, inlineHead) || !strings.Contains(w, `ARGV[3]) __scriptgen_d1 = true`) || strings.Contains(w, "__scriptgen_log = l") {
		t.Fatalf("enqueueCmd is not under the inline journal with a DEL undo and no log:\n%s", w)
	}
	// A write that is not a statement of its own is logged instead.
	if w := Wrap(strings.Replace(asynqEnqueueSrc, `redis.call("HSET"`, `local n = redis.call("HSET"`, 1)); !strings.Contains(w, `ARGV[3]), KEYS[1], 0)`) {
		t.Fatalf("an HSET in an expression is not logged for DEL:\n%s", w)
	}
	if got, want := strings.Count(w, "\n"), strings.Count(asynqEnqueueSrc, "\n")+1; got != want {
		t.Errorf("%d lines, want %d", got, want)
	}
}

// TestPropertyInlineAbsent runs random scripts that test keys with EXISTS
// or GET and then write them (writes of every type, other writes, pushes
// and failures mixed in) on redis-server, shipped and as is, as
// TestPropertyInline does: a failed shipped run leaves the keyspace as it
// was, a successful one as the plain run leaves it.
func TestPropertyInlineAbsent(t *testing.T) {
	ctx, c := start(t)
	r := rand.New(rand.NewSource(*propSeed))
	keys := []string{"{x}1", "{x}2", "{x}3"}
	writes := []string{"redis.call('HSET', KEYS[%d], 'a', ARGV[2])", "redis.call('LPUSH', KEYS[%d], ARGV[2], 'y')",
		"redis.call('SADD', KEYS[%d], ARGV[2])", "redis.call('ZADD', KEYS[%d], 3, ARGV[2])", "redis.call('SET', KEYS[%d], ARGV[2])",
		"redis.call('INCR', KEYS[%d])", "redis.call('PEXPIREAT', KEYS[%d], 4102444800000)", "redis.call('XADD', KEYS[%d], '5-*', 'f', ARGV[2])",
		"redis.call('HINCRBY', KEYS[%d], 'n', 2)", "redis.call('RPOP', KEYS[%d])", "redis.call('RPUSH', KEYS[%d], 'r', ARGV[2], 's')"}
	deadline := time.Now().Add(time.Minute)
	runs, inlined, rolledBack := 0, 0, 0
	for ; runs < *inlineRuns && time.Now().Before(deadline); runs++ {
		var b strings.Builder
		tested := []int{}
		for k := 1; k <= 3; k++ {
			if r.Intn(3) > 0 {
				tested = append(tested, k)
				switch r.Intn(3) {
				case 0:
					fmt.Fprintf(&b, "if redis.call('EXISTS', KEYS[%d]) == 1 then return 'had %d' end\n", k, k)
				case 1:
					fmt.Fprintf(&b, "if redis.call('EXISTS', KEYS[%d]) ~= 0 then return 'had %d' end\n", k, k)
				default:
					// WRONGTYPE on a hash or a list: a failure before any write.
					fmt.Fprintf(&b, "local g%d = redis.call('GET', KEYS[%d]) if g%d then return g%d end\n", k, k, k, k)
				}
			}
		}
		for i := 1 + r.Intn(5); i > 0; i-- {
			switch r.Intn(6) {
			case 0:
				b.WriteString("if ARGV[1] == 'fail' then error('injected') end\n")
			case 1:
				fmt.Fprintf(&b, writes[r.Intn(len(writes))]+"\n", 1+r.Intn(3))
			case 2:
				// A push, undone by a pop whether or not the key was tested.
				fmt.Fprintf(&b, writes[[]int{1, 10}[r.Intn(2)]]+"\n", 1+r.Intn(3))
			default:
				k := 1 + r.Intn(3)
				if len(tested) > 0 {
					k = tested[r.Intn(len(tested))]
				}
				if r.Intn(3) == 0 {
					b.WriteString("local _ = ") // logged, not flagged
				}
				fmt.Fprintf(&b, writes[r.Intn(len(writes))]+"\n", k)
			}
		}
		body := endScript(r, &b)
		wrapped := Ship(body)
		isInline := strings.HasPrefix(wrapped, inlineHead)
		inlined += boolInt(isInline)
		var state [][]any
		for _, k := range keys {
			switch r.Intn(4) {
			case 0:
				state = append(state, []any{"HSET", k, "a", "1"}, []any{"PEXPIREAT", k, 4102444900000 + r.Intn(1000)})
			case 1:
				state = append(state, []any{"RPUSH", k, "p", "q"})
			}
		}
		argv := []string{"", "fail", "late"}[r.Intn(3)]
		call := func(tx bool) (any, error) {
			if tx {
				return c.Eval(ctx, wrapped, keys, argv, fmt.Sprint(runs)).Result()
			}
			return c.Eval(ctx, body, keys, argv, fmt.Sprint(runs)).Result()
		}
		failed, undone := againstPlain(t, ctx, c, keys, state, call, false, fmt.Sprintf("run %d", runs), body)
		if failed && undone && isInline {
			rolledBack++
		}
	}
	t.Logf("%d scripts, %d under the inline journal, %d of their failed runs rolled back what the plain run left half done", runs, inlined, rolledBack)
	if inlined < runs/8 || rolledBack < runs/30 {
		t.Fatalf("the generator no longer exercises the absent plan: %d inlined, %d rolled back of %d", inlined, rolledBack, runs)
	}
}
