package peers

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	withNode = flag.Bool("peers.node", false,
		"also run the BullMQ and Bull scenarios (npm ci into a temp dir)")
	withMiniredis = flag.Bool("peers.miniredis", false,
		"add upstream miniredis v2.40.0 as a third target (information only, no gate)")
)

// row is one suite on one target.
type row struct {
	suite, target string
	res           result
}

// TestPeers runs every suite against every target, prints the table and
// holds serve to Redis: a test that passes on redis-server must pass on
// serve, unless known lists it (and then it must still fail there).
func TestPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("the peers harness downloads and runs other projects' suites (minutes); make test runs it in a line of its own, without -short")
	}
	targets := []target{startRedis(t), startServe(t)}
	if *withMiniredis {
		targets = append(targets, startMiniredis(t))
	}
	for _, tg := range targets {
		t.Logf("%s on %s", tg.name, tg.addr)
	}
	var rows []row
	mods := &modules{root: t.TempDir(), dirs: map[string]string{}}
	for _, s := range goSuites {
		dir := mods.dir(t, s.module, s.patch)
		suiteRows := eachTarget(t, s.name, targets, func(tg target) result { return s.run(dir, tg.addr) })
		for i := 1; i < len(targets); i++ { // targets[0] is Redis, the reference
			if again := s.retry(dir, targets[i].addr, suiteRows[0].res, suiteRows[i].res); len(again) > 0 {
				t.Logf("%s on %s: passed on a second run: %s", s.name, targets[i].name, strings.Join(again, ", "))
			}
		}
		rows = append(rows, suiteRows...)
	}
	if *withNode {
		dir := nodeDir(t)
		for _, s := range nodeSuites {
			rows = append(rows, eachTarget(t, s.name, targets, func(tg target) result { return runNode(dir, s.file, tg.addr) })...)
		}
	}
	t.Log("\n" + table(rows))
	gate(t, rows)
}

// eachTarget runs one suite on every target at once, each on its own
// server: the suites mostly wait (asynq's top-level tests sleep through
// most of their minutes), so the run takes as long as the slowest target,
// not their sum. It logs each target's time, the figure that decides what
// CI can afford.
func eachTarget(t *testing.T, suite string, targets []target, run func(target) result) []row {
	t.Helper()
	rows := make([]row, len(targets))
	var wg sync.WaitGroup
	for i, tg := range targets {
		wg.Go(func() {
			start := time.Now()
			res := run(tg)
			t.Logf("%s on %s: %d/%d passed in %v", suite, tg.name, res.passed(), len(res), time.Since(start).Round(100*time.Millisecond))
			rows[i] = row{suite, tg.name, res}
		})
	}
	wg.Wait()
	return rows
}

// gate fails the test for each of check's problems.
func gate(t *testing.T, rows []row) {
	t.Helper()
	for _, p := range check(rows, knownBySuite()) {
		t.Error(p)
	}
}

// check holds serve to Redis: every test that passes on Redis and fails on
// serve without a known entry is a problem, as is every known entry that
// no longer fails that way, and a suite that proves nothing because
// nothing of it passes on Redis.
func check(rows []row, known map[string]map[string]string) []string {
	var problems []string
	ref := map[string]result{}
	for _, r := range rows {
		if r.target == targetRedis {
			ref[r.suite] = r.res
			if r.res.passed() == 0 {
				problems = append(problems, fmt.Sprintf("%s: no test passes on Redis, so it holds serve to nothing", r.suite))
			}
		}
	}
	for _, r := range rows {
		if r.target != targetServe {
			continue
		}
		seen := map[string]bool{}
		for _, name := range regressions(ref[r.suite], r.res) {
			if _, ok := known[r.suite][name]; ok {
				seen[name] = true
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: %s passes on Redis but fails on serve: %s", r.suite, name, r.res[name].first))
		}
		for _, name := range sortedKeys(known[r.suite]) {
			if !seen[name] {
				problems = append(problems, fmt.Sprintf("%s: %s is listed in known (%s) but no longer fails on serve where it passes on Redis: remove its entry",
					r.suite, name, known[r.suite][name]))
			}
		}
	}
	return problems
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// regressions are the tests that pass on Redis (ref) and not on res,
// including those res never ran.
func regressions(ref, res result) []string {
	var out []string
	for _, name := range ref.names() {
		if ref[name].pass && !res[name].pass {
			out = append(out, name)
		}
	}
	return out
}

// table renders the run as Markdown: passed/total per suite and target,
// then the first failure line of each test that passes on Redis and not
// on the target.
func table(rows []row) string {
	var b strings.Builder
	b.WriteString("| suite | target | passed/total |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d/%d |\n", r.suite, r.target, r.res.passed(), len(r.res))
	}
	ref := map[string]result{}
	for _, r := range rows {
		if r.target == targetRedis {
			ref[r.suite] = r.res
		}
	}
	var fails strings.Builder
	for _, r := range rows {
		if r.target == targetRedis {
			continue
		}
		for _, name := range regressions(ref[r.suite], r.res) {
			first := r.res[name].first
			if _, ran := r.res[name]; !ran {
				first = "(did not run)"
			}
			fmt.Fprintf(&fails, "| %s | %s | %s | %s |\n", r.suite, r.target, name, cell(first))
		}
	}
	if fails.Len() > 0 {
		b.WriteString("\nPassing on Redis, failing on the target:\n\n| suite | target | test | first failure |\n|---|---|---|---|\n")
		b.WriteString(fails.String())
	}
	return b.String()
}

// cell keeps a failure line inside its Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
