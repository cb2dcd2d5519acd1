package peers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// shippers are the texts the replay runs for a script: what the bundler
// ships, the same with a failure injected at the k-th call, that with
// every write journaled (to tell the proof's mistakes from the runtime's),
// and the text a host runs on its own journal with that failure. The
// tests plant differences by swapping them.
type shippers struct {
	ship      func(src string) string
	inject    func(src string, k int) string
	journaled func(src string, k int) string
	host      func(src string, k int) string
}

var shipped = shippers{ship: prelude.Ship, inject: prelude.Inject, journaled: prelude.InjectJournaled, host: hostInjected}

// hostInjected is what a host (serve) runs on its own journal with the
// k-th call failing. prelude.Inject's text is recognised by no host: the
// engine would run the runtime's Lua. The script with the failure written
// into it, shipped, is Wrap's text for that script (the hook's names keep
// the proof from taking any write as final, so every write is journaled),
// and serve swaps the runtime for its journal as it does for any bundle.
func hostInjected(src string, k int) string { return prelude.Ship(prelude.InjectPlain(src, k)) }

// replayTarget is a server the replay runs on: DB 0 holds the call's
// keyspace, DB 1 is scratch for comparing two DUMP payloads decoded.
// Only the first target, redis-server, counts calls and server time; on
// serve (hosted) the injected runs are the host's own journal's.
type replayTarget struct {
	target
	c, scratch   *redis.Client
	cost, hosted bool
}

// runOutcome is one run: its reply (or error) and the keyspace after it,
// with the window of server time it ran in (ms), which stream IDs and
// timestamps it generated fall in.
type runOutcome struct {
	reply    string
	bag      string // reply with every array's elements (or pairs) sorted
	failed   bool
	after    []keySnap
	from, to int64
	cmds     map[string]int // on the cost target: the commands the run made, by INFO commandstats name
}

type replayer struct {
	t   *testing.T
	ctx context.Context
	sh  shippers
	res *replayResult
}

// replayOn replays r's calls on targets (the first one is redis-server,
// where calls and server time are counted), each call from its recorded
// keyspace: plain and shipped, compared; then failed at every call k the
// plain run made, which must leave the keyspace as before.
func replayOn(t *testing.T, r *callRecorder, targets []target, sh shippers) replayResult {
	t.Helper()
	res := replayResult{Ratios: map[string]float64{}, Names: map[string]string{},
		Extra: map[string]map[string]int{}, Replayed: map[string]int{}}
	rp := &replayer{t: t, ctx: context.Background(), sh: sh, res: &res}
	var tgs []*replayTarget
	for i, tg := range targets {
		o := func(db int) *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: tg.addr, DB: db, Protocol: 2, ReadTimeout: time.Minute})
			t.Cleanup(func() { _ = c.Close() })
			return c
		}
		rt := &replayTarget{target: tg, c: o(0), scratch: o(1), cost: i == 0, hosted: tg.name == targetServe}
		// Keys the recording saw alive must not expire while a call is
		// replayed; only their access may expire them, as it would there.
		if err := rt.c.Do(rp.ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err(); err != nil {
			t.Logf("%s: DEBUG SET-ACTIVE-EXPIRE 0: %v", tg.name, err)
		}
		tgs = append(tgs, rt)
	}
	r.mu.Lock()
	res.Offered = r.offered
	r.mu.Unlock()
	deadline := time.Now().Add(*replayBudget)
	var sumPlain, sumShip int64
	for _, s := range r.logs() {
		res.Recorded += len(s.calls)
		res.Names[s.sha] = scriptName(s.src)
		text := sh.ship(s.src)
		var plainUs, shipUs int64
		for _, call := range s.calls {
			if time.Now().After(deadline) {
				res.Left++
				continue
			}
			res.Calls++
			res.Replayed[s.sha]++
			k := 0
			for _, tg := range tgs {
				call := call.at(time.Now())
				pre, p, sp, n := rp.compare(tg, s, call, text)
				if tg.cost {
					plainUs, shipUs, k = plainUs+p, shipUs+sp, n
				}
				rp.injectEach(tg, s, call, pre, k)
			}
		}
		for _, tg := range tgs {
			tg.c.ScriptFlush(rp.ctx)
		}
		if plainUs > 0 {
			res.Ratios[s.sha] = float64(shipUs) / float64(plainUs)
		}
		sumPlain, sumShip = sumPlain+plainUs, sumShip+shipUs
	}
	if sumPlain > 0 {
		res.SuiteRatio = float64(sumShip) / float64(sumPlain)
	}
	if res.Left > 0 {
		t.Logf("replay: %d calls left after the budget of %v (-peers.replay.budget)", res.Left, *replayBudget)
	}
	return res
}

// compare runs call plain and shipped on tg, rounds times on the cost
// target, and records a difference of replies or keyspaces. It returns
// the keyspace restored, the least server time of each (µs) and the number
// of calls the plain run made (cost target only).
func (rp *replayer) compare(tg *replayTarget, s *scriptLog, call recordedCall, text string) (pre []keySnap, plainUs, shipUs int64, calls int) {
	rounds := 1
	if tg.cost {
		rounds = max(*replayRounds, 1)
	}
	var plain, ship runOutcome
	for round := 0; round < rounds; round++ {
		rp.restore(tg, call.pre)
		if round == 0 {
			pre = rp.snap(tg)
		}
		o, us, n := rp.run(tg, s.src, call, round == 0)
		if round == 0 {
			plain, calls = o, n
		}
		plainUs = least(plainUs, us, round)
		rp.restore(tg, call.pre)
		o, us, _ = rp.run(tg, text, call, round == 0)
		if round == 0 {
			ship = o
		}
		shipUs = least(shipUs, us, round)
	}
	if tg.cost {
		rp.extra(s.sha, plain.cmds, ship.cmds)
	}
	want := plain
	if plain.failed {
		want.after = pre // a failed run is rolled back
	}
	where := fmt.Sprintf("%s %s %s", tg.name, short(s.sha), callText(call))
	d, drift, gone := rp.differ(tg, want, ship, ship.to-plain.from)
	if d != "" && plain.reply != ship.reply && timeless(plain.bag, plain) == timeless(ship.bag, ship) {
		// The same reply in another order: see unorderedReply. Only the
		// keyspace decides then.
		ship.reply = plain.reply
		if d2, _, _ := rp.differ(tg, want, ship, ship.to-plain.from); d2 == "" {
			rp.res.Unordered = append(rp.res.Unordered, where+": "+d)
			d = ""
		}
	}
	if d == "" {
		rp.res.Drift += drift
		if gone != "" {
			rp.res.Clock = append(rp.res.Clock, where+": "+gone)
		}
		return
	}
	// A difference two plain runs show as well is the script's own: it
	// reads the server's clock (or something else that moves).
	rp.restore(tg, call.pre)
	again, _, _ := rp.run(tg, s.src, call, true)
	if d2, _, _ := rp.differ(tg, plain, again, again.to-plain.from); d2 != "" {
		rp.res.Clock = append(rp.res.Clock, where+": "+d)
		return
	}
	if plain.failed {
		d += "; " + rp.blame(tg, s, call, pre, 0)
	}
	rp.res.Diffs = append(rp.res.Diffs, where+": "+d)
	return
}

// extra adds to the script's Extra the commands the shipped run made
// beyond the plain run's, by name: the journal's own reads (its undos run
// only when a run fails).
func (rp *replayer) extra(sha string, plain, ship map[string]int) {
	for name, n := range ship {
		if d := n - plain[name]; d > 0 {
			if rp.res.Extra[sha] == nil {
				rp.res.Extra[sha] = map[string]int{}
			}
			rp.res.Extra[sha][name] += d
		}
	}
}

// injectEach fails call's shipped run at each of its first calls calls on
// tg: each must leave pre, unless a final write ran before (Beyond). On a
// host every write is journaled: nothing is beyond.
func (rp *replayer) injectEach(tg *replayTarget, s *scriptLog, call recordedCall, pre []keySnap, calls int) {
	for k := 1; k <= calls; k++ {
		rp.restore(tg, call.pre)
		text := rp.sh.inject(s.src, k)
		if tg.hosted {
			text = rp.sh.host(s.src, k)
		}
		o, _, _ := rp.run(tg, text, call, true)
		if !strings.Contains(o.reply, prelude.InjectedError) {
			rp.res.Unreached++
			continue
		}
		rp.res.Injected++
		d, _, gone := rp.differ(tg, runOutcome{reply: o.reply, after: pre}, o, 0)
		if gone != "" && d == "" {
			rp.res.Clock = append(rp.res.Clock, fmt.Sprintf("%s %s %s k=%d: %s", tg.name, short(s.sha), callText(call), k, gone))
		}
		if !tg.hosted && strings.Contains(o.reply, prelude.BeyondProof) {
			rp.res.Beyond++
			if d == "" {
				continue
			}
			rp.res.BeyondLeft++
			// Outside the proof's model; the runtime must still undo it
			// when it journals every write.
			if j := rp.blame(tg, s, call, pre, k); !strings.HasPrefix(j, "the proof") {
				rp.res.Diffs = append(rp.res.Diffs, fmt.Sprintf("%s %s %s k=%d beyond the proof, every write journaled: %s", tg.name, short(s.sha), callText(call), k, j))
			}
			continue
		}
		if d != "" {
			blame := rp.blame(tg, s, call, pre, k)
			if tg.hosted {
				blame = "the host's journal (the runtime's Lua there: " + blame + ")"
			}
			rp.res.Diffs = append(rp.res.Diffs, fmt.Sprintf("%s %s %s k=%d: %s; %s", tg.name, short(s.sha), callText(call), k, d, blame))
		}
	}
}

// blame reruns a failed run (injected at k, or k = 0: its own failure)
// with every write journaled: if that leaves pre, a write the proof took as
// final needed an undo; else the runtime's undo is wrong.
func (rp *replayer) blame(tg *replayTarget, s *scriptLog, call recordedCall, pre []keySnap, k int) string {
	rp.restore(tg, call.pre)
	o, _, _ := rp.run(tg, rp.sh.journaled(s.src, k), call, true)
	if d, _, _ := rp.differ(tg, runOutcome{reply: o.reply, after: pre}, o, 0); d != "" {
		return "the runtime: every write journaled, it still differs: " + d
	}
	return "the proof: with every write journaled it is rolled back"
}

// restore makes tg's DB 0 the recorded keyspace: FLUSHDB, then RESTORE
// … ABSTTL of each key (a key whose expiry has passed is not created).
func (rp *replayer) restore(tg *replayTarget, pre []keySnap) {
	_, err := tg.c.Pipelined(rp.ctx, func(p redis.Pipeliner) error {
		p.FlushDB(rp.ctx)
		for _, k := range pre {
			if k.at > 0 {
				p.Do(rp.ctx, "RESTORE", k.key, k.at, k.dump, "ABSTTL", "REPLACE")
			} else {
				p.Do(rp.ctx, "RESTORE", k.key, 0, k.dump, "REPLACE")
			}
		}
		return nil
	})
	if err != nil {
		rp.t.Fatalf("%s: restoring %d keys: %v", tg.name, len(pre), err)
	}
}

func (rp *replayer) snap(tg *replayTarget) []keySnap {
	s, err := snapshot(rp.ctx, tg.c)
	if err != nil {
		rp.t.Fatalf("%s: %v", tg.name, err)
	}
	return s
}

// run runs text with call's keys and arguments by EVALSHA. With after,
// it reads the keyspace after it. On the cost target it also returns the
// server time of the EVALSHA (µs) and the number of commands the script
// ran, from INFO commandstats between CONFIG RESETSTAT and the call.
func (rp *replayer) run(tg *replayTarget, text string, call recordedCall, after bool) (o runOutcome, usec int64, calls int) {
	sha, err := tg.c.ScriptLoad(rp.ctx, text).Result()
	if err != nil {
		rp.t.Fatalf("%s: SCRIPT LOAD: %v", tg.name, err)
	}
	if tg.cost {
		tg.c.ConfigResetStat(rp.ctx)
	}
	o.from = time.Now().UnixMilli()
	v, err := tg.c.Do(rp.ctx, evalArgs("EVALSHA", sha, call.Keys, call.Args)...).Result()
	o.reply, o.failed = replyText(v, err)
	o.bag = o.reply
	if err == nil {
		o.bag = fmt.Sprintf("%#v", unorderedReply(v))
	}
	if tg.cost {
		usec, calls, o.cmds = commandStats(rp.t, rp.ctx, tg.c)
	}
	if after {
		o.after = rp.snap(tg)
	}
	// After the snapshot: a key may expire until it is read.
	o.to = time.Now().UnixMilli()
	return o, usec, calls
}

// commandStats reads evalsha's server time and the number of the other
// commands run (calls and rejected calls) since CONFIG RESETSTAT, in all
// and by name (xinfo|stream, hmget …).
func commandStats(t *testing.T, ctx context.Context, c *redis.Client) (usec int64, calls int, by map[string]int) {
	by = map[string]int{}
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	for _, line := range strings.Split(info, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		name, isStat := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isStat || name == "config|resetstat" {
			continue
		}
		for _, f := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(f, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch {
			case name == "evalsha" && k == "usec":
				usec = n
			case name != "evalsha" && (k == "calls" || k == "rejected_calls"):
				calls += int(n)
				by[name] += int(n)
			}
		}
	}
	return usec, calls, by
}

var scriptSuffix = regexp.MustCompile(` script: [0-9a-f]{40}, on @user_script:\d+\.`)

// replyText is a reply as the comparison reads it: Go's syntax of the
// value, or the error without Redis's suffix naming the line that raised
// it last (the prelude's first line, for a shipped script).
func replyText(v any, err error) (string, bool) {
	switch {
	case errors.Is(err, redis.Nil):
		return "nil", false
	case err != nil:
		return "error: " + scriptSuffix.ReplaceAllString(err.Error(), ""), true
	}
	return fmt.Sprintf("%#v", v), false
}

// unorderedReply is v with the elements of every array sorted, in pairs
// when the array's length is even. Redis gives no order to the fields of a
// hash or the members of a set held as a hash table (HGETALL, SMEMBERS),
// and the order it iterates them in moves with incremental rehashing,
// which every lookup advances: a shipped run's journal reads (an HMGET
// before an HSET) step it further than the plain run's, so that a script
// returning HGETALL of a large job hash (BullMQ's moveToActive) gets the
// same pairs in another order. Such a reply counts as Unordered, not as a
// difference, when the keyspaces after the runs are equal.
func unorderedReply(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	items := make([]string, 0, len(a))
	step := 1
	if len(a)%2 == 0 {
		step = 2
	}
	for i := 0; i+step <= len(a); i += step {
		item := ""
		for _, e := range a[i : i+step] {
			item += fmt.Sprintf("%#v,", unorderedReply(e))
		}
		items = append(items, item)
	}
	sort.Strings(items)
	return items
}

// clockMs matches what may be a millisecond timestamp, alone or as a
// stream ID (with its sequence number).
var clockMs = regexp.MustCompile(`\b1\d{12}(-\d+)?\b`)

// timeless replaces the timestamps in s that fall in o's window (a second
// of slack each side) by T: what the run took from the clock. A stream ID
// made in the run loses its sequence number too: two XADD * in one run
// get 5-0 and 5-1, or 5-0 and 6-0 when the run is slower.
func timeless(s string, o runOutcome) string {
	return clockMs.ReplaceAllStringFunc(s, func(m string) string {
		ms, _, _ := strings.Cut(m, "-")
		n, _ := strconv.ParseInt(ms, 10, 64)
		if n >= o.from-1000 && n <= o.to+1000 {
			return "T"
		}
		return m
	})
}

// differ describes how b differs from a, "" when it does not: the reply,
// then each key (presence, expiry, content). Expiries that differ by at
// most tol ms (the time between the two runs) count as drift, and a key
// one side lacks because its expiry passed before that side's run ended
// is told apart (gone): the clock's doing, not a run's. Content is
// compared by DUMP, and when the payloads differ, decoded (redistest's
// Describe of both restored in the scratch DB), with the timestamps each
// run took from the clock set aside.
func (rp *replayer) differ(tg *replayTarget, a, b runOutcome, tol int64) (diff string, drift int, gone string) {
	var out, expired []string
	if ra, rb := timeless(a.reply, a), timeless(b.reply, b); ra != rb {
		x, y := around(ra, rb)
		out = append(out, fmt.Sprintf("reply %s, want %s", y, x))
	}
	am, bm := map[string]keySnap{}, map[string]keySnap{}
	var keys []string
	for _, k := range a.after {
		am[k.key] = k
		keys = append(keys, k.key)
	}
	for _, k := range b.after {
		bm[k.key] = k
		if _, ok := am[k.key]; !ok {
			keys = append(keys, k.key)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, inA := am[k]
		y, inB := bm[k]
		switch {
		case !inA && y.at > 0 && y.at <= a.to:
			expired = append(expired, fmt.Sprintf("%s expired (at %d) before one run ended (%d)", k, y.at, a.to))
			continue
		case !inB && x.at > 0 && x.at <= b.to:
			expired = append(expired, fmt.Sprintf("%s expired (at %d) before one run ended (%d)", k, x.at, b.to))
			continue
		case !inA:
			out = append(out, fmt.Sprintf("%s exists, want none", k))
			continue
		case !inB:
			out = append(out, fmt.Sprintf("%s missing", k))
			continue
		}
		if x.at != y.at {
			if x.at > 0 && y.at > 0 && abs(x.at-y.at) <= tol {
				drift++
			} else {
				out = append(out, fmt.Sprintf("%s expires at %d, want %d", k, y.at, x.at))
			}
		}
		if x.dump != y.dump {
			da, db := timeless(rp.decode(tg, x.dump), a), timeless(rp.decode(tg, y.dump), b)
			if da != db {
				da, db = around(da, db)
				out = append(out, fmt.Sprintf("%s holds %s, want %s", k, db, da))
			}
		}
	}
	return firstThree(out), drift, firstThree(expired)
}

func firstThree(out []string) string {
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return strings.Join(out, "; ")
}

// around clips a and b to where they start to differ, with some context.
func around(a, b string) (string, string) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	if p <= 60 {
		return clip(a), clip(b)
	}
	return "…" + clip(a[p-60:]), "…" + clip(b[p-60:])
}

// decode is a DUMP payload's content as Describe renders it, restored
// in tg's scratch DB.
func (rp *replayer) decode(tg *replayTarget, dump string) string {
	const k = "decoded"
	if err := tg.scratch.Do(rp.ctx, "RESTORE", k, 0, dump, "REPLACE").Err(); err != nil {
		rp.t.Fatalf("%s: RESTORE in the scratch DB: %v", tg.name, err)
	}
	d := redistest.Describe(rp.t, rp.ctx, tg.scratch, []string{k})
	tg.scratch.Del(rp.ctx, k)
	return strings.TrimSpace(strings.TrimPrefix(d, k+" "))
}

func least(cur, v int64, round int) int64 {
	if round == 0 || v < cur {
		return v
	}
	return cur
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// evalArgs is an EVAL or EVALSHA command: the script (text or SHA-1),
// the key count, the keys and the arguments.
func evalArgs(cmd, script string, keys, args []string) []any {
	out := make([]any, 0, 3+len(keys)+len(args))
	out = append(out, cmd, script, len(keys))
	for _, s := range append(keys[:len(keys):len(keys)], args...) {
		out = append(out, s)
	}
	return out
}

func short(sha string) string { return sha[:8] }

// callText names a call in a difference's line: its keys and arguments,
// clipped.
func callText(c recordedCall) string {
	return clip(fmt.Sprintf("keys=%q args=%q", c.Keys, c.Args))
}
