package peers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/lua"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// Scripts of our own for the replay's test, each shipped under the
// runtime: a job moved between a list, a hash, a sorted set and a stream
// (XADD * takes its ID from the clock), and a write before a command that
// fails on a hash (its own failure, rolled back).
const (
	moveJob = `local id = redis.call('LPOP', KEYS[1])
if not id then return false end
redis.call('HSET', KEYS[2], id, ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[1], id)
redis.call('XADD', KEYS[4], 'MAXLEN', '~', 100, '*', 'moved', id)
return {id, redis.call('ZCARD', KEYS[3])}
`
	countVisit = `redis.call('HSET', KEYS[1], 'last', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], 60000)
return redis.call('INCR', KEYS[3])
`
)

// ownWorkload runs our scripts on the server at addr, each call recorded
// first as the proxy does: limiters of lua/ratelimit (shipped unwrapped;
// token_bucket reads the clock) and the two scripts above.
func ownWorkload(t *testing.T, addr string, rec recorder) {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer c.Close()
	ctx := context.Background()
	bucket, queue := limiterSrc(t, "token_bucket"), limiterSrc(t, "queue")
	redistest.Apply(t, ctx, c, [][]any{{"RPUSH", "{q}wait", "j1", "j2", "j3", "j4", "j5", "j6"}, {"HSET", "{v}bad", "f", "v"}})
	type call struct {
		src        string
		keys, args []string
	}
	var calls []call
	for i := 0; i < 8; i++ {
		calls = append(calls,
			call{bucket, []string{"rl:{a}:tb"}, []string{"10", "1", "1000", "3"}},
			call{queue, []string{"rl:{a}:queue"}, []string{"5", "f", fmt.Sprint(i)}},
			call{moveJob, []string{"{q}wait", "{q}jobs", "{q}active", "{q}events"}, []string{fmt.Sprint(100 + i)}},
		)
		third := "{v}n"
		if i%3 == 2 {
			third = "{v}bad" // WRONGTYPE after two writes
		}
		calls = append(calls, call{countVisit, []string{"{v}h", "{v}l", third}, []string{fmt.Sprint(i)}})
	}
	for i, cl := range calls {
		rec.record(addr, scriptCall{Src: cl.src, Keys: cl.keys, Args: cl.args})
		// Errors are part of the workload (the WRONGTYPE, a full queue).
		if err := c.Do(ctx, evalArgs("EVAL", cl.src, cl.keys, cl.args)...).Err(); err != nil && err != redis.Nil && !strings.Contains(err.Error(), "WRONGTYPE") {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}

// limiterSrc is the text of a limiter of lua/ratelimit.
func limiterSrc(t *testing.T, name string) string {
	t.Helper()
	b, err := lua.FS.ReadFile("ratelimit/" + name + ".lua")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReplayOwn replays our own scripts' calls on redis-server (and, in a
// full run, on serve, whose own journal runs the injected failures): no
// difference, every call of every run failed in turn, server time
// measured. With the journal taken away (the runtime, or serve's), or a
// write planted in the bundle, the same replay must find differences.
func TestReplayOwn(t *testing.T) {
	recSrv := redistest.Start(t)
	rec := newRecorder().(*callRecorder)
	ownWorkload(t, recSrv.Addr, rec)
	rec.close()
	if rec.offered != 32 || len(rec.logs()) != 4 {
		t.Fatalf("recorded %d calls of %d scripts, want 32 of 4", rec.offered, len(rec.logs()))
	}
	targets := []target{startReplayRedis(t)}
	if !testing.Short() {
		targets = append(targets, startServe(t))
	}

	res := replayOn(t, rec, targets, shipped)
	logReplay(t, "as shipped", res)
	if len(res.Diffs) > 0 {
		t.Errorf("%d differences:\n%s", len(res.Diffs), strings.Join(res.Diffs, "\n"))
	}
	if res.Calls != 32 || res.Injected < 32 || len(res.Ratios) != 4 || res.SuiteRatio <= 0 {
		t.Errorf("replayed %d calls, %d injections, ratios %v (suite %.2f): want 32 calls, each injected, 4 ratios", res.Calls, res.Injected, res.Ratios, res.SuiteRatio)
	}
	if res.Beyond == 0 {
		t.Errorf("no injection after a final write: the limiters, shipped unwrapped, make some")
	}
	// The journal's reads, counted from INFO commandstats: moveJob's LPOP
	// reads the list's expiry and its XADD the stream (XINFO STREAM);
	// countVisit's PEXPIRE reads the expiry; the limiters, unwrapped,
	// read nothing more than they do plain.
	move, visit := res.Extra[sha1Hex(moveJob)], res.Extra[sha1Hex(countVisit)]
	t.Logf("journal reads: moveJob %v, countVisit %v (of %d and %d calls)", move, visit, res.Replayed[sha1Hex(moveJob)], res.Replayed[sha1Hex(countVisit)])
	if move["pexpiretime"] == 0 || move["xinfo|stream"] == 0 || visit["pexpiretime"] == 0 || res.Replayed[sha1Hex(moveJob)] != 8 {
		t.Errorf("journal reads: moveJob %v, countVisit %v: want PEXPIRETIME and XINFO STREAM, PEXPIRETIME", move, visit)
	}
	for _, src := range []string{limiterSrc(t, "token_bucket"), limiterSrc(t, "queue")} {
		if e := res.Extra[sha1Hex(src)]; len(e) > 0 {
			t.Errorf("a limiter shipped unwrapped made more commands than plain: %v", e)
		}
	}

	redisOnly := targets[:1]
	bare := replayOn(t, rec, redisOnly, shippers{ship: func(src string) string { return src }, inject: prelude.InjectPlain, journaled: prelude.InjectPlain})
	logReplay(t, "without a journal", bare)
	if !hasDiff(bare.Diffs, "countVisit", "the runtime") {
		t.Errorf("the journal taken away: the replay found no difference the runtime is blamed for:\n%s", strings.Join(bare.Diffs, "\n"))
	}

	if len(targets) > 1 {
		// serve's journal taken away: the host runs the injected script bare.
		bareHost := shipped
		bareHost.host = prelude.InjectPlain
		if r := replayOn(t, rec, targets, bareHost); !hasDiff(r.Diffs, "countVisit", "the host's journal") {
			t.Errorf("serve's journal taken away: no difference blamed on it:\n%s", strings.Join(r.Diffs, "\n"))
		}
	}

	planted := replayOn(t, rec, redisOnly, shippers{
		ship:      func(src string) string { return "redis.call('SET', 'planted', '1') " + prelude.Ship(src) },
		inject:    prelude.Inject,
		journaled: prelude.InjectJournaled,
	})
	if !hasDiff(planted.Diffs, "", "planted exists, want none") {
		t.Errorf("a write planted in the bundle: not found:\n%s", strings.Join(planted.Diffs, "\n"))
	}
}

// hasDiff reports whether a difference names the script (by its first
// line's key name, "" any) and says what.
func hasDiff(diffs []string, script, what string) bool {
	sha := map[string]string{"countVisit": short(sha1Hex(countVisit))}[script]
	for _, d := range diffs {
		if strings.Contains(d, what) && strings.Contains(d, sha) {
			return true
		}
	}
	return false
}

// logReplay prints a replay's figures: counts, and the per-script ratios
// (median and worst five).
func logReplay(t *testing.T, what string, r replayResult) {
	t.Helper()
	shas := make([]string, 0, len(r.Ratios))
	for sha := range r.Ratios {
		shas = append(shas, sha)
	}
	sort.Slice(shas, func(i, j int) bool { return r.Ratios[shas[i]] < r.Ratios[shas[j]] })
	med := median(values(r.Ratios))
	var worst []string
	for _, sha := range shas[max(0, len(shas)-5):] {
		worst = append(worst, fmt.Sprintf("%.2f %s (%s)", r.Ratios[sha], short(sha), r.Names[sha]))
	}
	t.Logf("%s: %d calls replayed (%d recorded of %d offered, %d left), %d injections (%d beyond the proof, %d of them left writes), %d unreached, %d differences, %d clock-bound, %d reordered, %d expiries drifted; server time shipped/plain of %d scripts: median %.2f, suite %.2f, worst: %s",
		what, r.Calls, r.Recorded, r.Offered, r.Left, r.Injected, r.Beyond, r.BeyondLeft, r.Unreached, len(r.Diffs), len(r.Clock), len(r.Unordered), r.Drift, len(shas), med, r.SuiteRatio, strings.Join(worst, ", "))
	for _, c := range r.Clock {
		t.Logf("clock-bound: %s", c)
	}
	for _, c := range r.Unordered {
		t.Logf("same reply in another order: %s", c)
	}
}

// TestRecorderBounds records 200 calls of one script from 8 connections at
// once: at most 25 are kept, every shape (here, argument count) among
// them, each with the keyspace it started from (value and expiry).
func TestRecorderBounds(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	c := srv.Client(t)
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	redistest.Apply(t, ctx, c, [][]any{{"SET", "k", "v", "PXAT", at.UnixMilli()}})
	rec := newRecorder().(*callRecorder)
	defer rec.close()
	const src = "return #ARGV"
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				rec.record(srv.Addr, scriptCall{Src: src, Keys: []string{"k"}, Args: make([]string, (g*25+i)%10)})
			}
		}()
	}
	wg.Wait()
	logs := rec.logs()
	if rec.offered != 200 || len(logs) != 1 {
		t.Fatalf("offered %d calls of %d scripts, want 200 of 1", rec.offered, len(logs))
	}
	kept := logs[0].calls
	shapes := map[int]bool{}
	for _, cl := range kept {
		shapes[len(cl.Args)] = true
		if len(cl.pre) != 1 || cl.pre[0].key != "k" || cl.pre[0].at != at.UnixMilli() || cl.pre[0].dump == "" {
			t.Fatalf("a call's keyspace: %+v, want k with its DUMP and expiry %d", cl.pre, at.UnixMilli())
		}
	}
	if len(kept) > 25 || len(shapes) != 10 {
		t.Errorf("kept %d calls of %d shapes, want at most 25 with all 10", len(kept), len(shapes))
	}
}

// TestReplayClock: a replayed call keeps its keys' remaining time to
// live, and a key that one run lacks because its expiry passed is the
// clock's doing, told apart from a difference; one with time left is a
// difference. What a run took from the clock is set aside.
func TestReplayClock(t *testing.T) {
	c := recordedCall{pre: []keySnap{{key: "lock", at: 31_000}, {key: "job", at: -1}}, taken: 1_000}
	got := c.at(time.UnixMilli(101_000))
	if got.pre[0].at != 131_000 || got.pre[1].at != -1 || c.pre[0].at != 31_000 {
		t.Errorf("shifted %+v (recorded %+v), want the lock at 131000 and the recording untouched", got.pre, c.pre)
	}
	rp := &replayer{t: t}
	before := runOutcome{after: []keySnap{{key: "lock", dump: "d", at: 5_000}, {key: "job", dump: "j", at: -1}}}
	after := runOutcome{after: []keySnap{{key: "job", dump: "j", at: -1}}, from: 4_000, to: 6_000}
	if d, _, gone := rp.differ(nil, before, after, 0); d != "" || !strings.Contains(gone, "lock expired") {
		t.Errorf("a lock past its expiry: difference %q, gone %q; want it gone by the clock", d, gone)
	}
	after.to = 4_500
	if d, _, gone := rp.differ(nil, before, after, 0); d != "lock missing" || gone != "" {
		t.Errorf("a lock with time left: difference %q, gone %q; want it missing", d, gone)
	}
	// Stream IDs a run made, however its XADDs fell on the clock's
	// milliseconds, and timestamps from its window; not older ones.
	run := runOutcome{from: 1795820000000, to: 1795820000100}
	if got := timeless("1795820000050-0 1795820000050-1 1795820000051-0 1795820000099 1795810000000-3", run); got != "T T T T 1795810000000-3" {
		t.Errorf("timeless: %q", got)
	}
}

// TestUnorderedReply: pairs in another order are the same reply; another
// pairing, value or nesting is not.
func TestUnorderedReply(t *testing.T) {
	bag := func(v any) string { return fmt.Sprintf("%#v", unorderedReply(v)) }
	job := []any{"opts", "{}", "atm", int64(1), "name", "job"}
	same := []any{"atm", int64(1), "name", "job", "opts", "{}"}
	if bag(job) != bag(same) {
		t.Errorf("pairs in another order differ: %s vs %s", bag(job), bag(same))
	}
	for _, other := range []any{
		[]any{"opts", int64(1), "atm", "{}", "name", "job"}, // values swapped between fields
		[]any{"atm", int64(2), "name", "job", "opts", "{}"},
		[]any{[]any{"opts", "{}", "atm", int64(1)}, "name", "job"},
		"opts",
	} {
		if bag(job) == bag(other) {
			t.Errorf("%#v reads as %#v", other, job)
		}
	}
	if nested := []any{[]any{"b", "2", "a", "1"}, "x", "y"}; bag(nested) != bag([]any{"y", "x", []any{"a", "1", "b", "2"}}) {
		t.Errorf("nested pairs in another order differ")
	}
}
