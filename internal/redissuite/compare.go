package redissuite

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Run is one unit run on one target.
type Run struct {
	Unit    string
	Target  string // "redis-server" or "serve"
	Results []Result
	// Died says the server was gone when the unit ended (a crash), Hung that
	// runtest did not finish in its time; either is the first thing to read.
	Died, Hung bool
	Note       string // the server's last words or the time limit
}

// Counts tallies a run by status.
func (r Run) Counts() map[Status]int {
	c := map[Status]int{}
	for _, res := range r.Results {
		c[res.Status]++
	}
	return c
}

// Gap is a test that passes on redis-server and not on serve.
type Gap struct {
	Name   string
	Status Status // Fail, Error or NeverReached
	Detail string
}

// Compare adds to serve's results a NeverReached entry for each test that
// passed on redis-server and was not run at all on serve, and returns the
// gaps: every test passing on redis-server more often than on serve (names
// repeat: the suite runs a test once per encoding, say), in redis-server's
// order.
func Compare(redis Run, serve *Run) []Gap {
	seen := map[string]int{}
	okOn := map[string]int{}
	failOn := map[string][]Result{}
	for _, r := range serve.Results {
		seen[r.Name]++
		if r.Status == OK {
			okOn[r.Name]++
		} else {
			failOn[r.Name] = append(failOn[r.Name], r)
		}
	}
	var gaps []Gap
	for _, r := range redis.Results {
		if r.Status != OK {
			continue
		}
		if okOn[r.Name] > 0 {
			okOn[r.Name]--
			seen[r.Name]--
			continue
		}
		if seen[r.Name] > 0 && len(failOn[r.Name]) > 0 {
			f := failOn[r.Name][0]
			failOn[r.Name] = failOn[r.Name][1:]
			seen[r.Name]--
			gaps = append(gaps, Gap{r.Name, f.Status, f.Detail})
			continue
		}
		serve.Results = append(serve.Results, Result{Name: r.Name, Status: NeverReached})
		gaps = append(gaps, Gap{Name: r.Name, Status: NeverReached})
	}
	return gaps
}

var columns = []Status{OK, Fail, Error, Block, NeverReached}

// WriteTable renders the runs as one Markdown table, in the order given.
func WriteTable(w io.Writer, runs []Run) {
	fmt.Fprintf(w, "| unit | target | %s | server at the end |\n", joinStatuses(" | "))
	fmt.Fprintf(w, "|---|---|%s---|\n", strings.Repeat("---|", len(columns)))
	for _, r := range runs {
		c := r.Counts()
		cells := make([]string, len(columns))
		for i, s := range columns {
			cells[i] = fmt.Sprint(c[s])
		}
		state := "alive"
		switch {
		case r.Hung:
			state = "HUNG: " + r.Note
		case r.Died:
			state = "CRASHED: " + r.Note
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Unit, r.Target, strings.Join(cells, " | "), state)
	}
}

func joinStatuses(sep string) string {
	s := make([]string, len(columns))
	for i, c := range columns {
		s[i] = string(c)
	}
	return strings.Join(s, sep)
}

// Known is the checked-in list of tests known to fail on serve, per unit:
// test name → the reason.
type Known map[string]map[string]string

// ParseKnown reads lines "unit<TAB>test name<TAB>reason"; blank lines and
// lines starting with # are skipped.
func ParseKnown(text string) (Known, error) {
	k := Known{}
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" || f[1] == "" || strings.TrimSpace(f[2]) == "" {
			return nil, fmt.Errorf("line %d: want unit<TAB>test name<TAB>reason, got %q", i+1, line)
		}
		if k[f[0]] == nil {
			k[f[0]] = map[string]string{}
		}
		if _, dup := k[f[0]][f[1]]; dup {
			return nil, fmt.Errorf("line %d: %s %q listed twice", i+1, f[0], f[1])
		}
		k[f[0]][f[1]] = f[2]
	}
	return k, nil
}

// Check sets a unit's gaps against the known list: the gaps not listed are
// regressions, the listed tests that no longer fail are fixed (and must
// leave the list, so that it stays the truth). A test whose reason starts
// with "flaky:" may go either way: it depends on timing the machine's load
// decides (a script started within Redis's 100 ms polls, say).
func (k Known) Check(unit string, gaps []Gap) (regressions []Gap, fixed []string) {
	failing := map[string]bool{}
	for _, g := range gaps {
		failing[g.Name] = true
		if _, ok := k[unit][g.Name]; !ok {
			regressions = append(regressions, g)
		}
	}
	for name, reason := range k[unit] {
		if !failing[name] && !strings.HasPrefix(reason, "flaky:") {
			fixed = append(fixed, name)
		}
	}
	sort.Strings(fixed)
	return regressions, fixed
}

const knownHeader = `# Tests of Redis's suite that pass on redis-server and not yet on
# scriptgen serve: unit<TAB>test name<TAB>reason. TestRedisSuite fails when a
# test not listed here fails, and when a listed test passes (remove it).
# A reason starting "flaky:" lets the test go either way.
# go test -run TestRedisSuite ./internal/redissuite -args -update rewrites it.
`

// Update returns the list rewritten with fresh gaps for the units they
// name: a test still failing keeps its reason, a new one gets its failure.
func (k Known) Update(fresh map[string][]Gap) string {
	units := map[string]bool{}
	for u := range k {
		units[u] = true
	}
	for u := range fresh {
		units[u] = true
	}
	var b strings.Builder
	b.WriteString(knownHeader)
	for _, u := range slices.Sorted(maps.Keys(units)) {
		gaps, ok := fresh[u]
		if !ok {
			for _, name := range slices.Sorted(maps.Keys(k[u])) {
				fmt.Fprintf(&b, "%s\t%s\t%s\n", u, name, k[u][name])
			}
			continue
		}
		done := map[string]bool{}
		for _, name := range slices.Sorted(maps.Keys(k[u])) {
			// A flaky test stays listed when it passed this time.
			if strings.HasPrefix(k[u][name], "flaky:") {
				gaps = append(gaps, Gap{Name: name})
			}
		}
		for _, g := range gaps {
			if done[g.Name] {
				continue
			}
			done[g.Name] = true
			reason := k[u][g.Name]
			if reason == "" {
				reason = strings.TrimSpace(string(g.Status) + ": " + g.Detail)
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\n", u, g.Name, reason)
		}
	}
	return b.String()
}
