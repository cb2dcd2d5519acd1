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
	// XTRIM MAXLEN ~ whose reply is dropped, which the runtime defers
	// (proxied_trim): through an alias and a helper, as BullMQ's
	// trimEvents, after an XADD whose trim is deferred too, and with a
	// length Redis refuses.
	"rcall('XTRIM', KEYS[a], 'MAXLEN', '~', %[2]d)",
	"trim(KEYS[a], %[2]d)",
	"rcall('XADD', KEYS[a], 'MAXLEN', '~', %[3]d, '%[1]s', 'f', 'v') trim(KEYS[a], %[2]d)",
	"redis.call('XADD', KEYS[a], '%[1]s', 'f', 'v') rcall('XTRIM', KEYS[a], 'MAXLEN', '~', %[2]d) rcall('XTRIM', KEYS[a], 'MAXLEN', '~', %[3]d)",
	"rcall('XTRIM', KEYS[a], 'MAXLEN', '~', -%[2]d)",
	// Appends after a deferred trim keep it deferred (grow).
	"trim(KEYS[a], %[2]d) rcall('XADD', KEYS[a], 'MAXLEN', '~', %[3]d, '%[1]s', 'f', 'v')",
	"trim(KEYS[a], %[2]d) redis.call('XADD', KEYS[a], '%[1]s', 'f', 'v') out[#out + 1] = redis.call('XLEN', KEYS[a])",
}

// streamHead declares what the ops above call: an alias of redis.call and
// a helper that trims with it.
const streamHead = "local out = {}\nlocal rcall = redis.call\nlocal function trim(k, n)\n  rcall('XTRIM', k, 'MAXLEN', '~', n)\nend\n"

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
	b.WriteString(streamHead)
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

// trimEventsSrc is BullMQ's way of capping its events stream, reduced: an
// XADD, then the XTRIM MAXLEN ~ of its helper trimEvents (before it when
// ARGV[3] is "first", as moveToFinished does), called through the alias
// rcall, whose count it drops; the stream is named after the trim when
// ARGV[2] says so, and ARGV[1] makes the run fail.
const trimEventsSrc = `local rcall = redis.call
local function trimEvents(k, n)
  rcall("XTRIM", k, "MAXLEN", "~", n)
end
rcall("HSET", KEYS[2], "state", "done")
if ARGV[3] == "first" then
  trimEvents(KEYS[1], 6)
end
rcall("XADD", KEYS[1], "*", "event", "completed")
if ARGV[3] ~= "first" then
  trimEvents(KEYS[1], 6)
end
if ARGV[2] == "len" then
  rcall("HSET", KEYS[2], "len", rcall("XLEN", KEYS[1]))
end
if ARGV[1] == "fail" then
  error("injected")
end
return 1
`

// TestDeferredTrim runs trimEventsSrc on a stream of 30 entries in nodes of
// 3: shipped, its XTRIM goes through trimName (it is deferred), a run that
// succeeds reads no entry the trim removes (no XRANGE) and leaves the
// stream's entries and nodes as the plain script does, one that reads
// the stream after the trim sees it trimmed (the trim is done then, its
// entries read first), and one that fails leaves the stream and the hash
// as they were; so does one failed by injection at each of its calls.
func TestDeferredTrim(t *testing.T) {
	srv := redistest.Start(t, "stream-node-max-entries 3")
	c := srv.Client(t)
	ctx := context.Background()
	keys := []string{"{q}events", "{q}job"}
	shipped := Ship(trimEventsSrc)
	if !strings.Contains(shipped, rawName+"."+trimName+".call(") {
		t.Fatalf("the XTRIM is not sent to %s.%s:\n%s", rawName, trimName, shipped)
	}
	state := [][]any{{"FLUSHALL"}, {"HSET", keys[1], "state", "active"}}
	for i := 1; i <= 30; i++ {
		state = append(state, []any{"XADD", keys[0], fmt.Sprintf("%d-1", i), "f", i})
	}
	// XINFO STREAM FULL's nodes and entries, without the time the XADD *
	// gave its entry (the runs are compared by entries and node count).
	describe := func() string {
		info, err := c.XInfoStream(ctx, keys[0]).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids, err := c.XRange(ctx, keys[0], "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("length=%d nodes=%d first=%s entries=%d job=%v", info.Length, info.RadixTreeKeys,
			ids[0].ID, len(ids), c.HGetAll(ctx, keys[1]).Val())
	}
	for _, args := range [][]string{{"", "", ""}, {"", "len", ""}, {"fail", "", ""}, {"fail", "len", ""},
		{"", "", "first"}, {"", "len", "first"}, {"fail", "", "first"}} {
		apply(t, ctx, c, state)
		before := describe()
		_, errPlain := c.Eval(ctx, trimEventsSrc, keys, args).Result()
		plain := describe()
		apply(t, ctx, c, state)
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		_, err := c.Eval(ctx, shipped, keys, args).Result()
		stats := c.Info(ctx, "commandstats").Val()
		got := describe()
		if errText(err) != errText(errPlain) {
			t.Fatalf("%v: shipped %v, plain %v", args, err, errPlain)
		}
		if err != nil {
			if got != before {
				t.Errorf("%v: failed but left\n%s\nwhere it was\n%s", args, got, before)
			}
			continue
		}
		if got != plain {
			t.Errorf("%v: left\n%s\nwhere the plain script leaves\n%s", args, got, plain)
		}
		if args[1] == "" && strings.Contains(stats, "cmdstat_xrange") {
			t.Errorf("%v: the journal read the entries the trim removes (XRANGE):\n%s", args, stats)
		}
	}
	// Failure injection counts the deferred XTRIM as the script's third
	// call, as the plain script makes it: every one of the five calls of
	// a run that reads the stream after it can fail, and is rolled back.
	for k := 1; k <= 5; k++ {
		apply(t, ctx, c, state)
		before := describe()
		err := c.Eval(ctx, Inject(trimEventsSrc, k), keys, "", "len", "").Err()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s at call %d", InjectedError, k)) {
			t.Fatalf("injected at call %d: %v", k, err)
		}
		if got := describe(); got != before {
			t.Errorf("injected at call %d: left\n%s\nwhere it was\n%s", k, got, before)
		}
	}
}
