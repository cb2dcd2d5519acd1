package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// TestLibraryClean lints the bundled library: every script in lua/ must be
// free of findings of any severity, so that `make test` keeps it so.
func TestLibraryClean(t *testing.T) {
	res, err := Paths(Options{}, filepath.Join("..", "lua"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scripts) == 0 {
		t.Fatal("no scripts found in ../lua")
	}
	for _, f := range res.Findings {
		t.Errorf("%s", f)
	}
}

// script100 is a 100-line script in the style of the library: a header,
// an alias, helpers that take keys, loops over KEYS and a few commands.
func script100(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--! name: s%d\n--! doc: generated for the benchmark\n--! key: main\n--! key: rest...\n--! arg: n int\n--! arg: ttl int\n", i)
	b.WriteString("local rcall = redis.call\nlocal n = tonumber(ARGV[1])\nlocal ttl = tonumber(ARGV[2])\n")
	b.WriteString("local function touch(key, amount)\n  local v = rcall('INCRBY', key, amount)\n  rcall('PEXPIRE', key, ttl)\n  return v\nend\n")
	lines := strings.Count(b.String(), "\n")
	last := 0
	for j := 0; lines < 96; j++ {
		switch j % 4 {
		case 0:
			fmt.Fprintf(&b, "local a%d = touch(KEYS[1], n + %d)\n", j, j)
			last = j
			lines++
		case 1:
			fmt.Fprintf(&b, "for _, k in ipairs(KEYS) do\n  if rcall('EXISTS', k) == 1 then\n    rcall('HSET', k, 'f%d', a%d)\n  end\nend\n", j, j-1)
			lines += 5
		case 2:
			fmt.Fprintf(&b, "local t%d = {}\nfor i = 2, #KEYS do t%d[#t%d + 1] = KEYS[i] end\n", j, j, j)
			lines += 2
		case 3:
			fmt.Fprintf(&b, "if #t%d > 0 then rcall('DEL', unpack(t%d)) end\n", j-1, j-1)
			lines++
		}
	}
	for lines < 99 {
		b.WriteString("-- padding\n")
		lines++
	}
	fmt.Fprintf(&b, "return {a%d, redis.call('GET', KEYS[1])}\n", last)
	return b.String()
}

func TestBenchScriptIsClean(t *testing.T) {
	src := script100(1)
	if n := strings.Count(src, "\n"); n != 100 {
		t.Fatalf("script has %d lines; want 100", n)
	}
	for _, f := range Source(Options{}, "s1.lua", []byte(src)) {
		t.Errorf("%s", f)
	}
}

// BenchmarkLint1000 lints 1,000 scripts of 100 lines from disk, as
// `scriptgen lint dir` does. The goal is under a second per op.
func BenchmarkLint1000(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.lua", i)), []byte(script100(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// The machine may be shared: CPU time per op is reported besides the
	// wall time, which other processes inflate.
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := Paths(Options{}, dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Scripts) != 1000 || len(res.Findings) != 0 {
			b.Fatalf("%d scripts, %d findings (first %v)", len(res.Scripts), len(res.Findings), res.Findings[:min(1, len(res.Findings))])
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// TestResultExitClasses checks what the CLI's exit code rests on: syntax
// errors (2), errors (1), warnings only (0).
func TestResultExitClasses(t *testing.T) {
	for _, tc := range []struct {
		src            string
		syntax, errors bool
	}{
		{"local x = = 1", true, true},
		{"return redis.call('GET', 'k')", false, true},
		{"local unused = 1\nreturn 1", false, false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "s.lua"), []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Paths(Options{}, dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Syntax() != tc.syntax || (res.Count(Error) > 0) != tc.errors || len(res.Findings) == 0 {
			t.Errorf("%q: syntax %v, errors %d, findings %v", tc.src, res.Syntax(), res.Count(Error), res.Findings)
		}
	}
	if _, err := Paths(Options{}, filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing path must be an error, not a finding")
	}
}

// BenchmarkLint9000 lints 9,000 scripts of 100 lines from disk and
// reports the peak of the heap's objects (live and not yet swept, read
// from runtime/metrics every millisecond) while it runs. The goal is
// under 200 MB.
func BenchmarkLint9000(b *testing.B) {
	dir := b.TempDir()
	for i := range 9000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.lua", i)), []byte(script100(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	peak := uint64(0)
	for b.Loop() {
		runtime.GC()
		done := make(chan struct{})
		sampled := make(chan uint64)
		go func() {
			sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			top := uint64(0)
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				metrics.Read(sample)
				top = max(top, sample[0].Value.Uint64())
				select {
				case <-done:
					sampled <- top
					return
				case <-tick.C:
				}
			}
		}()
		res, err := Paths(Options{}, dir)
		close(done)
		peak = max(peak, <-sampled)
		if err != nil || len(res.Scripts) != 9000 || len(res.Findings) != 0 {
			b.Fatalf("%v: %d scripts, %d findings", err, len(res.Scripts), len(res.Findings))
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
	b.ReportMetric(float64(peak)/9000/(1<<10), "peak-KB/script")
	if peak > 200<<20 {
		b.Errorf("peak heap %d MB; the goal is under 200 MB", peak>>20)
	}
}

// TestReleasedTreesParseAgain: lint drops the syntax trees of the scripts
// it returns (BenchmarkLint9000), and a later stage asking for one gets
// it parsed again.
func TestReleasedTreesParseAgain(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s1.lua"), []byte(script100(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Paths(Options{}, dir)
	if err != nil || len(res.Scripts) != 1 {
		t.Fatalf("%v, %d scripts", err, len(res.Scripts))
	}
	if res.Scripts[0].Lua.AST != nil {
		t.Error("the tree is still held")
	}
	if stmts, err := res.Scripts[0].Chunk(); err != nil || len(stmts) == 0 {
		t.Errorf("Chunk: %d statements, %v", len(stmts), err)
	}
}
