package peers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The proxied columns: a server behind the proxy, every script shipped as
// its transactional bundle.
const (
	targetTxn      = "through the prelude"
	targetTxnServe = "through the prelude on serve"
)

// txnRow is one suite of TestPeersTxn: its runs direct and through the
// proxy, the scripts the proxy shipped, and what the replay found.
type txnRow struct {
	suite           string
	direct, through result
	serve           result // through the prelude on serve
	ships           []shipment
	replay          replayResult
	names           map[string]string // script names in the suite's source, by SHA-1 of the text (scriptNames)
}

// txnTargets are the servers of a run: direct for the plain runs, redis
// and serve behind a proxy each.
type txnTargets struct{ direct, redis, serve target }

// TestPeersTxn runs every suite direct on a redis-server and through the
// proxy in front of another and in front of `scriptgen serve` (which
// recognises the bundles and runs them on its own journal), replays the script calls each recorded
// (replay_test.go), prints one table and a last line a script can read,
// and fails when a test that passes direct fails through the prelude
// (after one retry of just those, as TestPeers retries) or when the replay
// finds a keyspace difference.
func TestPeersTxn(t *testing.T) {
	if testing.Short() {
		t.Skip("peers-txn downloads and runs other projects' suites twice (minutes); make peers-txn runs it")
	}
	tt := txnTargets{startRedis(t), startRedis(t), startServe(t)}
	var rows []txnRow
	mods := &modules{root: t.TempDir(), dirs: map[string]string{}}
	for _, s := range goSuites {
		dir := mods.dir(t, s.module, s.patch)
		row := runTxn(t, s.name, tt,
			func(addr string) result { return s.run(dir, addr) },
			func(addr string, ref, res result) []string { return s.retry(dir, addr, ref, res) })
		row.names = scriptNames(dir)
		rows = append(rows, row)
	}
	if *withNode {
		dir := nodeDir(t)
		names := scriptNames(nodeScriptDirs(dir)...)
		for _, s := range nodeSuites {
			row := runTxn(t, s.name, tt,
				func(addr string) result { return runNode(dir, s.file, addr) }, nil)
			row.names = names
			rows = append(rows, row)
		}
	}
	t.Log("\n" + txnTable(rows) + "\nPer script:\n\n" + scriptTable(rows))
	for _, p := range txnProblems(rows) {
		t.Error(p)
	}
	fmt.Println(txnSummary(rows))
}

// runTxn runs one suite direct and through a proxy of its own in front of
// each of redis and serve, at once, then replays what the proxy in front
// of redis recorded (the one in front of serve records nothing: the
// replay runs its calls on both servers itself).
func runTxn(t *testing.T, suite string, tt txnTargets, run func(addr string) result,
	retry func(addr string, ref, res result) []string) txnRow {
	t.Helper()
	rec := newRecorder()
	p := startProxy(t, tt.redis.addr, rec)
	ps := startProxy(t, tt.serve.addr, nil)
	targets := []target{tt.direct, {name: targetTxn, addr: p.addr()}, {name: targetTxnServe, addr: ps.addr()}}
	rows := eachTarget(t, suite, targets, func(tg target) result { return run(tg.addr) })
	for i := 1; retry != nil && i < len(rows); i++ {
		if again := retry(targets[i].addr, rows[0].res, rows[i].res); len(again) > 0 {
			t.Logf("%s %s: passed on a second run: %s", suite, targets[i].name, strings.Join(again, ", "))
		}
	}
	p.close() // nothing more is recorded while the replay runs
	ps.close()
	row := txnRow{suite: suite, direct: rows[0].res, through: rows[1].res, serve: rows[2].res, ships: p.ships.all()}
	row.replay = replay(t, rec)
	return row
}

// txnProblems are the tests that pass direct and fail through the prelude,
// and the replay's keyspace differences.
func txnProblems(rows []txnRow) []string {
	var problems []string
	for _, r := range rows {
		for _, name := range regressions(r.direct, r.through) {
			problems = append(problems, fmt.Sprintf("%s: %s passes direct but fails through the prelude: %s", r.suite, name, r.through[name].first))
		}
		for _, name := range regressions(r.direct, r.serve) {
			problems = append(problems, fmt.Sprintf("%s: %s passes direct but fails through the prelude on serve: %s", r.suite, name, r.serve[name].first))
		}
		for _, d := range r.replay.Diffs {
			problems = append(problems, fmt.Sprintf("%s: keyspace difference: %s", r.suite, d))
		}
	}
	return problems
}

// txnTable renders the run as Markdown: one row a suite, then the scripts
// that could not be bundled and why.
func txnTable(rows []txnRow) string {
	var b strings.Builder
	b.WriteString("| suite | passed direct | passed through the prelude | on serve | injected failures | keyspace differences | median server-time ratio (suite) " +
		"| scripts seen | runtime | inline journal | unwrapped | not bundled | script calls |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var failed strings.Builder
	for _, r := range rows {
		kinds := map[string]int{}
		calls := 0
		for _, s := range r.ships {
			kinds[s.kind]++
			calls += s.calls
			if s.kind == shipFailed {
				fmt.Fprintf(&failed, "| %s | %s | %s |\n", r.suite, s.src.sha, cell(s.why))
			}
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %d/%d | %d/%d | %d | %d | %s (%s) | %d | %d | %d | %d | %d | %d |\n",
			r.suite, r.direct.passed(), len(r.direct), r.through.passed(), len(r.through), r.serve.passed(), len(r.serve),
			r.replay.Injected, len(r.replay.Diffs), ratio(median(values(r.replay.Ratios))), ratio(r.replay.SuiteRatio),
			len(r.ships), kinds[shipRuntime], kinds[shipInline], kinds[shipUnwrapped], kinds[shipFailed], calls)
	}
	if failed.Len() > 0 {
		b.WriteString("\nNot bundled (forwarded as sent):\n\n| suite | script SHA-1 | why |\n|---|---|---|\n")
		b.WriteString(failed.String())
	}
	return b.String()
}

// txnSummary is the run's last line: the keyspace differences and the
// median of every script's server-time ratio, wrapped over plain, across
// the suites.
func txnSummary(rows []txnRow) string {
	var diffs int
	var all []float64
	for _, r := range rows {
		diffs += len(r.replay.Diffs)
		all = append(all, values(r.replay.Ratios)...)
	}
	return fmt.Sprintf("peers-txn: %d differences, %s× median", diffs, ratio(median(all)))
}

func values(m map[string]float64) []float64 {
	out := make([]float64, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// median is 0 for no values.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// ratio prints a ratio, "n/a" for none measured.
func ratio(r float64) string {
	if r == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", r)
}

// TestTxnReport holds the table's arithmetic and the gate to made-up rows;
// it runs in -short mode, where TestPeersTxn does not.
func TestTxnReport(t *testing.T) {
	rows := []txnRow{
		{suite: "a", direct: result{"T1": {pass: true}, "T2": {pass: true}}, through: result{"T1": {pass: true}, "T2": {first: "boom"}},
			serve:  result{"T1": {pass: true}, "T2": {pass: true}},
			ships:  []shipment{{kind: shipRuntime, calls: 3}, {kind: shipFailed, why: "x.lua:1: bad", calls: 1}},
			replay: replayResult{Injected: 7, Ratios: map[string]float64{"s1": 1.5, "s2": 1.1}, SuiteRatio: 1.2}},
		{suite: "b", direct: result{"T": {pass: true}}, through: result{"T": {pass: true}}, serve: result{"T": {first: "hang"}},
			ships:  []shipment{{kind: shipUnwrapped, calls: 2}, {kind: shipInline, calls: 1}},
			replay: replayResult{Diffs: []string{"k: string \"a\" vs none"}, Ratios: map[string]float64{"s3": 1.0}}},
	}
	problems := txnProblems(rows)
	if len(problems) != 3 || !strings.Contains(problems[0], "a: T2 passes direct but fails through the prelude: boom") ||
		!strings.Contains(problems[1], "b: T passes direct but fails through the prelude on serve: hang") ||
		!strings.Contains(problems[2], "b: keyspace difference: k:") {
		t.Errorf("problems %q", problems)
	}
	table := txnTable(rows)
	for _, want := range []string{
		"| a | 2/2 | 1/2 | 2/2 | 7 | 0 | 1.30 (1.20) | 2 | 1 | 0 | 0 | 1 | 4 |",
		"| b | 1/1 | 1/1 | 0/1 | 0 | 1 | 1.00 (n/a) | 2 | 0 | 1 | 1 | 0 | 3 |",
		"x.lua:1: bad",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if got, want := txnSummary(rows), "peers-txn: 1 differences, 1.10× median"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := txnSummary(nil); got != "peers-txn: 0 differences, n/a× median" {
		t.Errorf("summary of nothing measured: %q", got)
	}
}
