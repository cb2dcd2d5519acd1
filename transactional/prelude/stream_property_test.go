package prelude

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// streamOps are the stream writes of TestPropertyStreams: %[1]s is a
// fresh entry ID (after every ID of the states), %[2]d a small count,
// %[3]d an old ID's first part.
var streamOps = []string{
	"redis.call('XADD', KEYS[a], '%[1]s', 'f', 'v')",
	"redis.call('XADD', KEYS[a], 'MAXLEN', '~', %[2]d, '%[1]s', 'f', 'v')",
	"redis.call('XADD', KEYS[a], 'MAXLEN', %[2]d, '%[1]s', 'f', 'w', 'g', 'x')",
	"redis.call('XADD', KEYS[a], 'NOMKSTREAM', 'MINID', '~', %[3]d, '%[1]s', 'f', 'v')",
	"redis.call('XADD', KEYS[a], 'MINID', %[3]d, 'LIMIT', 0, '%[1]s', 'f', 'v')",
	"redis.call('XTRIM', KEYS[a], 'MAXLEN', '~', %[2]d)",
	"redis.call('XTRIM', KEYS[a], 'MAXLEN', %[2]d)",
	"redis.call('XTRIM', KEYS[a], 'MINID', '%[3]d-1')",
	"redis.call('XDEL', KEYS[a], '%[3]d-1')",
	"redis.call('DEL', KEYS[a])",
	"redis.call('PEXPIREAT', KEYS[a], 4102444800%[2]d00)",
	"redis.call('XADD', KEYS[a], '%[1]s', 'f', 'v') redis.call('XADD', KEYS[a], 'MAXLEN', '~', %[2]d, '*', 'f', 'v')",
	// Reads after a deferred trim (unpend) must see it done.
	"out[#out + 1] = redis.call('XLEN', KEYS[a])",
	"out[#out + 1] = #redis.pcall('XRANGE', KEYS[a], '-', '+')",
	"out[#out + 1] = redis.call('EXISTS', KEYS[a], KEYS[b])",
	"redis.call('XADD', KEYS[a], 'MAXLEN', '~', %[2]d, '%[1]s', 'f', 'v') out[#out + 1] = redis.call('XTRIM', KEYS[a], 'MAXLEN', '~', %[3]d)",
}

// TestPropertyStreams is TestPropertyRollback for the stream journal
// (streamed, trimmed, rebuild in prelude.lua) on a redis-server whose
// stream nodes hold 3 entries, so that approximate trims remove whole
// nodes often: random streams (with deletions, a consumer group, an
// expiry, or another type) and random stream writes, most scripts failing
// at a random point. A failed run must leave each stream as it was,
// including what XINFO STREAM says of its nodes and counters.
func TestPropertyStreams(t *testing.T) {
	srv := redistest.Start(t, "stream-node-max-entries 3")
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r := rand.New(rand.NewSource(*propSeed))
	keys := []string{"{x}k0", "{x}k1", "{x}k2"}
	runs, failed, deadline := 2000, 0, time.Now().Add(*propBudget)
	if testing.Short() {
		runs = 300
	}
	// The nodes of a stream are compared when no entry was removed from
	// inside one (clean): rebuild splits them as appends do, which is
	// how they were split then. A stream with such holes comes back with
	// the same entries, IDs and counters, in nodes without the holes.
	var clean map[string]bool
	describe := func() string {
		var b strings.Builder
		b.WriteString(redistest.Describe(t, ctx, c, keys))
		for _, k := range keys {
			if info, err := c.XInfoStream(ctx, k).Result(); err == nil {
				fmt.Fprintf(&b, "%s length=%d first=%s", k, info.Length, info.RecordedFirstEntryID)
				if clean[k] {
					fmt.Fprintf(&b, " nodes=%d/%d", info.RadixTreeKeys, info.RadixTreeNodes)
				}
				b.WriteString("\n")
			}
		}
		return b.String()
	}
	i := 0
	for ; i < runs && time.Now().Before(deadline); i++ {
		var state [][]any
		state, clean = streamState(r, keys)
		body := streamScript(r)
		// Entries added with '*' get the time as ID: each run is compared
		// only when it failed, or by what does not hold that time.
		apply(t, ctx, c, state)
		before := describe()
		got, err := c.Eval(ctx, Wrap(body), keys).Result()
		wrapped := describe()
		apply(t, ctx, c, state)
		want, errPlain := c.Eval(ctx, body, keys).Result()
		plain := describe()
		if errText(err) != errText(errPlain) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("run %d: wrapped %v, %v; plain %v, %v\nstate: %v\nscript:\n%s", i, got, err, want, errPlain, state, body)
		}
		if err != nil {
			failed++
			if wrapped != before {
				t.Fatalf("run %d: failed with %v but the keyspace changed:\n%s\nbefore:\n%s\nscript:\n%s", i, err, wrapped, before, body)
			}
		} else if !strings.Contains(body, "'*'") && wrapped != plain {
			t.Fatalf("run %d: succeeded but left\n%s\nwhere the plain script leaves\n%s\nscript:\n%s", i, wrapped, plain, body)
		}
	}
	t.Logf("%d random stream scripts, %d failed and were rolled back", i, failed)
	if failed < i/3 || failed == i {
		t.Fatalf("%d of %d runs failed: the generator no longer exercises both rollback and success", failed, i)
	}
}

// streamState is a random keyspace of streams of up to 14 entries (IDs
// 1-1 … 14-1), some with deletions, a consumer group or an expiry; now
// and then a key is absent or a string. clean: the streams no entry was
// removed from but by whole nodes.
func streamState(r *rand.Rand, keys []string) (cmds [][]any, clean map[string]bool) {
	cmds = [][]any{{"FLUSHALL"}}
	clean = map[string]bool{}
	for _, k := range keys {
		switch r.Intn(8) {
		case 0:
			continue
		case 1:
			cmds = append(cmds, []any{"SET", k, "s"})
			continue
		}
		n := r.Intn(15)
		for i := 1; i <= n; i++ {
			cmds = append(cmds, []any{"XADD", k, fmt.Sprintf("%d-1", i), "f", i})
		}
		if n == 0 {
			cmds = append(cmds, []any{"XADD", k, "1-1", "f", 1}, []any{"XDEL", k, "1-1"})
		}
		if r.Intn(4) == 0 {
			cmds = append(cmds, []any{"XGROUP", "CREATE", k, "g", "0"})
			if n > 0 {
				cmds = append(cmds, []any{"XREADGROUP", "GROUP", "g", "c", "COUNT", 2, "STREAMS", k, ">"})
			}
		}
		clean[k] = n > 0
		switch r.Intn(5) {
		case 0:
			cmds = append(cmds, []any{"XDEL", k, fmt.Sprintf("%d-1", 1+r.Intn(n+1))})
			clean[k] = false
		case 1:
			cmds = append(cmds, []any{"XTRIM", k, "MAXLEN", r.Intn(n + 1)})
			clean[k] = false
		case 2:
			cmds = append(cmds, []any{"XTRIM", k, "MAXLEN", "~", r.Intn(n + 1)})
		}
		if r.Intn(3) == 0 {
			cmds = append(cmds, []any{"PEXPIREAT", k, 4102444900000 + r.Intn(1000)})
		}
	}
	return cmds, clean
}

// streamScript is 1–6 random stream writes on random keys, most scripts
// failing at a random point.
func streamScript(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("local out = {}\n")
	n := 1 + r.Intn(6)
	failAt := -1
	if r.Intn(2) > 0 {
		failAt = r.Intn(n + 1)
	}
	for i := 0; i <= n; i++ {
		if i == failAt {
			b.WriteString("error('injected')\n")
		}
		if i < n {
			op := streamOps[r.Intn(len(streamOps))]
			op = strings.ReplaceAll(op, "KEYS[a]", fmt.Sprintf("KEYS[%d]", 1+r.Intn(3)))
			op = strings.ReplaceAll(op, "KEYS[b]", fmt.Sprintf("KEYS[%d]", 1+r.Intn(3)))
			fmt.Fprintf(&b, op+"\n", fmt.Sprintf("100-%d", i+1), r.Intn(8), 1+r.Intn(15))
		}
	}
	b.WriteString("return out\n")
	return b.String()
}

// TestLongPopsRollBack pops more than the 1,000 elements one undo holds,
// from both ends, and fails: h_pop's undos, in pieces, must put every
// element back where it was.
func TestLongPopsRollBack(t *testing.T) {
	ctx, c := start(t)
	keys := []string{"{l}a"}
	var push []any
	for i := 0; i < 2500; i++ {
		push = append(push, fmt.Sprintf("e%d", i))
	}
	apply(t, ctx, c, [][]any{{"FLUSHALL"}, append([]any{"RPUSH", keys[0]}, push...), {"PEXPIREAT", keys[0], 4102444800123}})
	before := redistest.Describe(t, ctx, c, keys)
	body := "redis.call('LPOP', KEYS[1], 2100) redis.call('RPOP', KEYS[1], 300) redis.call('LPOP', KEYS[1]) error('injected')\n"
	if err := c.Eval(ctx, Wrap(body), keys).Err(); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("want the injected error, got %v", err)
	}
	if after := redistest.Describe(t, ctx, c, keys); after != before {
		t.Fatalf("the pops were not undone:\n%.300s\nbefore:\n%.300s", after, before)
	}
}
