package realworld

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/gen"
	"github.com/scriptgen/scriptgen/gen/bundle"
	"github.com/scriptgen/scriptgen/internal/annotate"
	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/lint"
)

// result is one project's line of the report.
type result struct {
	name, version     string
	scripts, analysed int
	crashes           int
	findings          map[string]int // lint on the shipped files, by rule
	newErrors         []string       // errors annotating added
	reannotated       int            // files a second annotate changed
	took              time.Duration
	peakHeap          uint64
}

func TestRealWorld(t *testing.T) {
	if os.Getenv("SCRIPTGEN_REALWORLD") != "1" {
		t.Skip("downloads releases from the module proxy and npm: run `make realworld`")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	var results []result
	for _, p := range projects {
		dir := filepath.Join(t.TempDir(), p.name)
		p.fetch(t, dir)
		r := check(t, p, dir, filepath.Join(mod, p.name))
		results = append(results, r)
	}
	t.Log("\n" + report(results))
	for _, r := range results {
		if r.analysed != r.scripts || r.crashes > 0 || len(r.newErrors) > 0 || r.reannotated > 0 {
			t.Errorf("%s: %d of %d scripts analysed, %d crashes, %d files changed by a second annotate, errors annotating added: %v",
				r.name, r.analysed, r.scripts, r.crashes, r.reannotated, r.newErrors)
		}
	}
	buildAndRun(t, root, mod)
}

// check runs every stage over the scripts of one project, in dir, and
// writes the generated package into pkgDir.
func check(t *testing.T, p project, dir, pkgDir string) (r result) {
	r = result{name: p.name, version: p.version}
	defer func() {
		if e := recover(); e != nil {
			r.crashes++
			t.Errorf("%s: crash: %v\n%s", p.name, e, debug.Stack())
		}
	}()
	stop := sampleHeap(&r.peakHeap)
	start := time.Now()
	defer func() { r.took = time.Since(start); stop() }()

	before, err := lint.Paths(lint.Options{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	r.scripts = entryPoints(t, dir)
	r.analysed = len(before.Scripts)
	r.findings = map[string]int{}
	for _, f := range before.Findings {
		r.findings[f.Rule]++
	}

	files, errs, err := annotate.Paths(dir)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%s: annotate: %v %v", p.name, err, errs)
	}
	for _, f := range files {
		if err := os.WriteFile(f.Path, f.New, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	again, _, err := annotate.Paths(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again {
		if f.Changed {
			r.reannotated++
		}
	}
	after, err := lint.Paths(lint.Options{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	r.newErrors = added(errorsByPlace(before.Findings), errorsByPlace(after.Findings))

	if _, err := bundle.Render(after.Scripts); err != nil {
		t.Errorf("%s: bundle: %v", p.name, err)
	}
	out, err := gen.Go(after.Scripts, p.name)
	if err != nil {
		t.Fatalf("%s: gen: %v", p.name, err)
	}
	for name, b := range out {
		path := filepath.Join(pkgDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// entryPoints counts the scripts under dir: the files no other includes.
func entryPoints(t *testing.T, dir string) int {
	files, err := script.Files([]string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	ld := script.NewLoader(nil)
	var all []*script.Script
	for _, f := range files {
		s, _, err := ld.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	return len(files) - len(ld.Helpers(all))
}

// errorsByPlace counts error findings by file and rule: annotating moves
// lines, so positions do not compare.
func errorsByPlace(fs []lint.Finding) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		if f.Severity == lint.Error {
			m[f.Path+" "+f.Rule]++
		}
	}
	return m
}

func added(before, after map[string]int) []string {
	var out []string
	for k, n := range after {
		if n > before[k] {
			out = append(out, fmt.Sprintf("%s: %d more", k, n-before[k]))
		}
	}
	sort.Strings(out)
	return out
}

// sampleHeap records the peak live heap until stop is called: a bounded
// sampler, every 2ms.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	finished := make(chan struct{})
	runtime.GC()
	go func() {
		defer close(finished)
		var m runtime.MemStats
		for !done.Load() {
			runtime.ReadMemStats(&m)
			*peak = max(*peak, m.HeapAlloc)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() {
		done.Store(true)
		<-finished
	}
}

func report(rs []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %-8s %7s %8s %7s %9s %9s  %s\n", "project", "version", "scripts", "analysed", "crashes", "time", "peak heap", "findings by rule (lint of the shipped files)")
	for _, r := range rs {
		var rules []string
		for rule := range r.findings {
			rules = append(rules, rule)
		}
		sort.Strings(rules)
		var fs []string
		for _, rule := range rules {
			fs = append(fs, fmt.Sprintf("%s %d", rule, r.findings[rule]))
		}
		fmt.Fprintf(&b, "%-10s %-8s %7d %8d %7d %9s %7.1fMiB  %s\n", r.name, r.version, r.scripts, r.analysed, r.crashes,
			r.took.Round(time.Millisecond), float64(r.peakHeap)/(1<<20), strings.Join(fs, ", "))
	}
	return b.String()
}

// buildAndRun builds and vets the generated packages in a module of their
// own, then runs the wrapper tests (wrappers_test.go's texts) against a
// real redis-server.
func buildAndRun(t *testing.T, root, mod string) {
	goMod := fmt.Sprintf("module realworld.test\n\ngo 1.26.8\n\nrequire github.com/scriptgen/scriptgen v0.0.0\n\nreplace github.com/scriptgen/scriptgen => %s\n", root)
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, src := range wrapperTests {
		if err := os.WriteFile(filepath.Join(mod, filepath.FromSlash(name)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"GOFLAGS=-mod=mod"}
	run(t, mod, env, "go", "mod", "tidy")
	run(t, mod, env, "go", "build", "./...")
	run(t, mod, env, "go", "vet", "./...")
	a, b := redistest.Start(t), redistest.Start(t)
	theirs := bullmqLog(t, b)
	out := run(t, mod, append(env, "REALWORLD_REDIS="+a.Addr, "REALWORLD_REDIS_B="+b.Addr, "REALWORLD_BULLMQ="+theirs),
		"go", "test", "-count=1", "-v", "./...")
	t.Logf("wrappers against redis-server:\n%s", out)
}
