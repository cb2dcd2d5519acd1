package peers

import (
	"flag"
	"fmt"
	"strings"
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
		for _, tg := range targets {
			rows = append(rows, timed(t, s.name, tg, func() result { return s.run(t, dir, tg.addr) }))
		}
	}
	if *withNode {
		dir := nodeDir(t)
		for _, s := range nodeSuites {
			for _, tg := range targets {
				rows = append(rows, timed(t, s.name, tg, func() result { return runNode(dir, s.file, tg.addr) }))
			}
		}
	}
	t.Log("\n" + table(rows))
	gate(t, rows)
}

// timed runs one suite on one target and logs how long it took, the
// figure that decides what CI can afford.
func timed(t *testing.T, suite string, tg target, run func() result) row {
	t.Helper()
	start := time.Now()
	res := run()
	t.Logf("%s on %s: %d/%d passed in %v", suite, tg.name, res.passed(), len(res), time.Since(start).Round(100*time.Millisecond))
	return row{suite, tg.name, res}
}

// gate fails the test for every test that passes on Redis and fails on
// serve without a known entry, for every known entry that no longer fails
// that way, and for a suite that proves nothing because it does not run
// on Redis.
func gate(t *testing.T, rows []row) {
	t.Helper()
	ref := map[string]result{}
	for _, r := range rows {
		if r.target == targetRedis {
			ref[r.suite] = r.res
			if r.res.passed() == 0 {
				t.Errorf("%s: no test passes on Redis, so it holds serve to nothing", r.suite)
			}
		}
	}
	known := knownBySuite()
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
			t.Errorf("%s: %s passes on Redis but fails on serve: %s", r.suite, name, r.res[name].first)
		}
		for name, reason := range known[r.suite] {
			if !seen[name] {
				t.Errorf("%s: %s is listed in known (%s) but no longer fails on serve where it passes on Redis: remove its entry", r.suite, name, reason)
			}
		}
	}
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
