package prelude

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// The foreign scripts BenchmarkForeignServerTime runs: pinned releases,
// downloaded at run time into a cache (SCRIPTGEN_REALWORLD_CACHE, as
// internal/realworld's), never committed.
const (
	asynqModule   = "github.com/hibiken/asynq@v0.26.0"
	bullmqPackage = "bullmq@6.7.0"
)

// foreignSuite is a project's scripts and a workload that keeps its queue
// in a steady state: each cycle adds a job, takes one and completes it.
type foreignSuite struct {
	name    string
	scripts func(tb testing.TB) map[string]string
	// setup fills a server with the state of a queue in use; cycle runs
	// the i-th cycle's calls.
	setup, cycle func(i int, w workload)
}

// workload is what a suite's calls go through: run calls a script and
// returns its reply (nil for a nil reply), failing on an error; pack is
// cmsgpack.pack of a JSON value, as BullMQ's client packs its arguments.
type workload struct {
	run  func(script string, keys []string, args ...any) any
	pack func(json string) string
}

// BenchmarkForeignServerTime is BenchmarkServerTime on other projects'
// scripts with a realistic state (a queue with a thousand waiting jobs, a
// full events stream): asynq's enqueue, dequeue and done, BullMQ's
// addStandardJob, moveToActive and moveToFinished, plain on one
// redis-server 7.0.15 and as the bundler ships them transactional on
// another, calls interleaved, replies compared. Per script, server time is
// the median growth of INFO commandstats' EVALSHA usec in a call, and the
// journal's commands are the growth of the other commands' counts, by
// name (logged), with dumps the snapshots among them. Per suite, the ratio
// is of the whole cycle.
//
// It needs the module proxy and npm: without them it is skipped, unless
// CI=true, where that fails it.
func BenchmarkForeignServerTime(b *testing.B) {
	ctx := context.Background()
	for _, s := range foreignSuites {
		b.Run(s.name, func(b *testing.B) {
			scripts := s.scripts(b)
			plainSrv, wrappedSrv := redistest.Start(b), redistest.Start(b)
			plain, wrapped := plainSrv.Client(b), wrappedSrv.Client(b)
			shas := map[*redis.Client]map[string]string{plain: {}, wrapped: {}}
			for name, src := range scripts {
				for c, text := range map[*redis.Client]string{plain: src, wrapped: Ship(src)} {
					sha, err := c.ScriptLoad(ctx, text).Result()
					if err != nil {
						b.Fatalf("%s: SCRIPT LOAD: %v", name, err)
					}
					shas[c][name] = sha
				}
			}
			for name, src := range foreignScripts {
				for _, c := range []*redis.Client{plain, wrapped} {
					sha, err := c.ScriptLoad(ctx, src).Result()
					if err != nil {
						b.Fatalf("%s: SCRIPT LOAD: %v", name, err)
					}
					shas[c][name] = sha
				}
			}
			call := func(c *redis.Client, script string, keys []string, args []any) (any, error) {
				v, err := c.EvalSha(ctx, shas[c][script], keys, args...).Result()
				if errors.Is(err, redis.Nil) {
					err = nil
				}
				return v, err
			}
			// Packing runs EVAL on a server of its own: commandstats
			// counts only the scripts' calls.
			packer := redistest.Start(b).Client(b)
			pack := func(js string) string {
				v, err := packer.Eval(ctx, "return cmsgpack.pack(cjson.decode(ARGV[1]))", nil, js).Text()
				if err != nil {
					b.Fatalf("pack %s: %v", js, err)
				}
				return v
			}
			for _, c := range []*redis.Client{plain, wrapped} {
				s.setup(0, workload{pack: pack, run: func(script string, keys []string, args ...any) any {
					v, err := call(c, script, keys, args)
					if err != nil {
						b.Fatalf("setup %s: %v", script, err)
					}
					return v
				}})
			}
			stats := map[string]*foreignStat{}
			total := &foreignStat{}
			before := map[*redis.Client]commandStats{plain: commandStatsOf(b, ctx, plain), wrapped: commandStatsOf(b, ctx, wrapped)}
			// measure adds what the last call cost each server to its
			// script's figures and the suite's.
			measure := func(script string) {
				st := stats[script]
				if st == nil {
					st = &foreignStat{}
					stats[script] = st
				}
				for _, c := range []*redis.Client{plain, wrapped} {
					now := commandStatsOf(b, ctx, c)
					d := now.minus(before[c])
					before[c] = now
					st.add(c == wrapped, d)
					total.add(c == wrapped, d)
				}
			}
			// The first cycle runs under MONITOR: what the journal added,
			// command and key, is logged per script.
			watch := map[*redis.Client]*monitor{plain: startMonitor(b, ctx, plain), wrapped: startMonitor(b, ctx, wrapped)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.cycle(i, workload{pack: pack, run: func(script string, keys []string, args ...any) any {
					p, errP := call(plain, script, keys, args)
					w, errW := call(wrapped, script, keys, args)
					b.StopTimer()
					defer b.StartTimer()
					if fmt.Sprint(errP) != fmt.Sprint(errW) || leaves(p) != leaves(w) {
						b.Fatalf("cycle %d, %s: plain %v, %v; shipped %v, %v", i, script, p, errP, w, errW)
					}
					if errP != nil {
						b.Fatalf("cycle %d, %s: %v", i, script, errP)
					}
					measure(script)
					if watch != nil {
						b.Logf("%s journal (first call): %s", script, watch[wrapped].added(watch[plain]))
					}
					return p
				}})
				if watch != nil {
					for _, m := range watch {
						m.stop()
					}
					watch = nil
				}
			}
			b.StopTimer()
			names := make([]string, 0, len(stats))
			for n := range stats {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				st := stats[n]
				b.ReportMetric(st.ratio(), n+"-ratio")
				b.ReportMetric(st.extra(), n+"-extra-calls")
				b.ReportMetric(st.dumps(), n+"-dumps")
				b.Logf("%s: plain %.1f us, shipped %.1f us, ratio %.2f; journal per call: %s", n, st.us(false), st.us(true), st.ratio(), st.journal())
			}
			// A cycle runs each script once: the suite's ratio is that of
			// the sums of their medians.
			var p, w float64
			for _, st := range stats {
				p += st.us(false)
				w += st.us(true)
			}
			b.ReportMetric(w/p, "suite-ratio")
			b.Logf("suite: plain %.1f us, shipped %.1f us a cycle, ratio %.2f; journal per cycle: %s", p, w, w/p, total.journal())
		})
	}
}

// commandStats is INFO commandstats: per command, calls and usec.
type commandStats map[string][2]float64

func commandStatsOf(tb testing.TB, ctx context.Context, c *redis.Client) commandStats {
	tb.Helper()
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		tb.Fatal(err)
	}
	out := commandStats{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		name, isCmd := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isCmd {
			continue
		}
		var v [2]float64
		for _, f := range strings.Split(rest, ",") {
			k, x, _ := strings.Cut(f, "=")
			switch k {
			case "calls":
				v[0], _ = strconv.ParseFloat(x, 64)
			case "usec":
				v[1], _ = strconv.ParseFloat(x, 64)
			}
		}
		out[name] = v
	}
	return out
}

func (s commandStats) minus(old commandStats) commandStats {
	out := commandStats{}
	for k, v := range s {
		o := old[k]
		if d := [2]float64{v[0] - o[0], v[1] - o[1]}; d[0] != 0 {
			out[k] = d
		}
	}
	return out
}

// foreignStat adds up a script's calls on both servers.
type foreignStat struct {
	calls float64
	usec  [2][]float64          // plain, shipped: each call's
	inner [2]map[string]float64 // commands the scripts ran, by name
}

func (f *foreignStat) add(shipped bool, d commandStats) {
	i := 0
	if shipped {
		i = 1
	} else {
		f.calls++
	}
	if f.inner[i] == nil {
		f.inner[i] = map[string]float64{}
	}
	for name, v := range d {
		switch name {
		case "evalsha":
			f.usec[i] = append(f.usec[i], v[1])
		case "info":
		default:
			f.inner[i][name] += v[0]
		}
	}
}

// us is the median server time of a call: the machine is shared, and a
// call that was preempted only looks slower.
func (f *foreignStat) us(shipped bool) float64 {
	i := 0
	if shipped {
		i = 1
	}
	u := slices.Clone(f.usec[i])
	if len(u) == 0 {
		return math.NaN()
	}
	slices.Sort(u)
	return u[len(u)/2]
}

func (f *foreignStat) ratio() float64 { return f.us(true) / f.us(false) }

// extra is the commands the journal added per call.
func (f *foreignStat) extra() float64 {
	var n float64
	for name, v := range f.inner[1] {
		n += v - f.inner[0][name]
	}
	return n / f.calls
}

func (f *foreignStat) dumps() float64 { return (f.inner[1]["dump"] - f.inner[0]["dump"]) / f.calls }

// journal lists the commands the journal added per call, by name.
func (f *foreignStat) journal() string {
	var parts []string
	for name, v := range f.inner[1] {
		if d := (v - f.inner[0][name]) / f.calls; d > 0.005 {
			parts = append(parts, fmt.Sprintf("%s %.2f", name, d))
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// foreignCache is where the pinned releases are kept between runs:
// internal/realworld's cache when SCRIPTGEN_REALWORLD_CACHE names it.
func foreignCache() string {
	if d := os.Getenv("SCRIPTGEN_REALWORLD_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "scriptgen-realworld")
}

// unreachable skips tb for a download that failed, outside CI; under
// CI=true the failure is the benchmark's.
func unreachable(tb testing.TB, what string, err error, out []byte) {
	tb.Helper()
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		tb.Fatalf("%s: %v\n%s", what, err, out)
	}
	tb.Skipf("%s failed (no network?), skipped outside CI: %v\n%s", what, err, out)
}

// asynqScripts are the redis.NewScript constants of asynq's internal/rdb,
// by variable name.
func asynqScripts(tb testing.TB) map[string]string {
	cmd := exec.Command("go", "mod", "download", "-json", asynqModule)
	cmd.Dir = tb.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var info struct{ Dir string }
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err != nil || info.Dir == "" {
		unreachable(tb, "go mod download "+asynqModule, err, out)
	}
	files, err := filepath.Glob(filepath.Join(info.Dir, "internal", "rdb", "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	scripts := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Names) != len(vs.Values) {
				return true
			}
			for i, v := range vs.Values {
				if call, ok := v.(*ast.CallExpr); ok && len(call.Args) == 1 {
					if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if src, err := strconv.Unquote(lit.Value); err == nil {
							scripts[vs.Names[i].Name] = src
						}
					}
				}
			}
			return true
		})
	}
	return scripts
}

// bullmqScripts are the texts BullMQ's client sends, includes pasted: the
// `content` of each module under dist/cjs/scripts of its npm package.
func bullmqScripts(tb testing.TB) map[string]string {
	cache := foreignCache()
	if err := os.MkdirAll(cache, 0o755); err != nil {
		tb.Fatal(err)
	}
	tgz := filepath.Join(cache, strings.ReplaceAll(bullmqPackage, "@", "-")+".tgz")
	if _, err := os.Stat(tgz); err != nil {
		cmd := exec.Command("npm", "pack", "--silent", bullmqPackage)
		cmd.Dir = cache
		if out, err := cmd.CombinedOutput(); err != nil {
			unreachable(tb, "npm pack "+bullmqPackage, err, out)
		}
	}
	dir := tb.TempDir()
	if out, err := exec.Command("tar", "-xzf", tgz, "-C", dir, "package/dist/cjs/scripts").CombinedOutput(); err != nil {
		tb.Fatalf("tar: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(dir, "package", "dist", "cjs", "scripts", "*.js"))
	if err != nil {
		tb.Fatal(err)
	}
	scripts := map[string]string{}
	for _, f := range files {
		js, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if src, ok := templateContent(string(js)); ok {
			scripts[strings.TrimSuffix(filepath.Base(f), ".js")] = src
		}
	}
	if len(scripts) == 0 {
		tb.Fatalf("%s: no scripts under dist/cjs/scripts", bullmqPackage)
	}
	return scripts
}

// templateContent is the text of `const content = `...`;` in a module
// BullMQ's build writes: a JavaScript template literal, whose only
// escapes there are a backslash before \, ` and $.
func templateContent(js string) (string, bool) {
	_, rest, ok := strings.Cut(js, "const content = `")
	if !ok {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '`':
			return b.String(), true
		case c == '\\' && i+1 < len(rest):
			i++
			b.WriteByte(rest[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// foreignSuites: asynq's task lifecycle and BullMQ's job lifecycle, on a
// queue that holds foreignBacklog waiting jobs (and, for BullMQ, an events
// stream at its default cap).
var foreignSuites = []foreignSuite{
	{name: "asynq", scripts: asynqScripts, setup: func(_ int, w workload) {
		for id := 0; id < foreignBacklog; id++ {
			asynqEnqueue(w, id)
		}
	}, cycle: func(i int, w workload) {
		asynqEnqueue(w, foreignBacklog+i)
		const q = "asynq:{default}:"
		// Leases and day counters as asynq's worker sets them (a lease
		// of 30 s, the counter kept 90 days), in fixed times so that
		// both servers see the same calls.
		w.run("dequeueCmd", []string{q + "pending", q + "paused", q + "active", q + "lease"}, 4102444800+i, q+"t:")
		id := strconv.Itoa(i)
		w.run("doneCmd", []string{q + "active", q + "lease", q + "t:" + id, q + "processed:2100-01-01", q + "processed"},
			id, 4110220800, int64(1<<63-1))
	}},
	{name: "bullmq", scripts: bullmqScripts, setup: func(_ int, w workload) {
		// A queue in use has a full events stream: BullMQ caps it at
		// 10,000 entries by default (meta's opts.maxLenEvents).
		w.run("foreign:fill", []string{bullmqKey("events")}, 10000-foreignBacklog)
		for i := 0; i < foreignBacklog; i++ {
			bullmqAdd(w, i)
		}
	}, cycle: func(i int, w workload) {
		bullmqAdd(w, foreignBacklog+i)
		ts := strconv.Itoa(foreignEpoch + foreignBacklog + i)
		opts := w.pack(`{"token": "tok", "lockDuration": 30000, "name": "w"}`)
		r, _ := w.run("moveToActive-11", bullmqKeys("wait", "active", "prioritized", "events", "stalled", "limiter",
			"delayed", "paused", "meta", "pc", "marker"), bullmqPrefix, ts, opts).([]any)
		if len(r) < 2 {
			panic(fmt.Sprintf("moveToActive took no job: %v", r))
		}
		id, _ := r[1].(string)
		opts = w.pack(`{"token": "tok", "keepJobs": {"count": -1}, "lockDuration": 30000, "attempts": 1, "maxMetricsSize": ""}`)
		w.run("moveToFinished-14", append(bullmqKeys("wait", "active", "prioritized", "events", "stalled", "limiter",
			"delayed", "paused", "meta", "pc", "completed"), bullmqPrefix+id, bullmqKey("metrics"), bullmqKey("marker")),
			id, ts, "returnvalue", `"done"`, "completed", "0", bullmqPrefix, opts)
	}},
}

const (
	// foreignBacklog is how many jobs wait in a queue.
	foreignBacklog = 1000
	// foreignEpoch is the jobs' timestamps' start, in ms: fixed, so that
	// both servers store the same job hashes.
	foreignEpoch = 4102444800000
	bullmqPrefix = "bull:q:"
)

// foreignScripts holds scripts the benchmark adds to a suite's: they set
// up state and are not measured.
var foreignScripts = map[string]string{
	"foreign:fill": "for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], '*', 'event', 'waiting', 'jobId', i) end",
}

// asynqEnqueue adds task id to the default queue, as asynq's client
// does: a task hash whose msg is the encoded task, pushed on pending.
func asynqEnqueue(w workload, id int) {
	const q = "asynq:{default}:"
	s := strconv.Itoa(id)
	msg := "\x0a\x05email\x12\x40" + strings.Repeat("p", 64) + "\x1a\x24" + fmt.Sprintf("%036d", id) + "\x22\x07default\x28\x19\x40\x84\x07"
	w.run("enqueueCmd", []string{q + "t:" + s, q + "pending"}, msg, s, foreignEpoch*1000000+int64(id))
}

func bullmqKey(name string) string { return bullmqPrefix + name }

func bullmqKeys(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = bullmqKey(n)
	}
	return out
}

// bullmqAdd adds a job as BullMQ's Queue.add does with default options.
func bullmqAdd(w workload, i int) {
	ts := foreignEpoch + i
	args := w.pack(fmt.Sprintf(`[%q, "", "job", %d]`, bullmqPrefix, ts))
	opts := w.pack(`{"attempts": 1, "delay": 0}`)
	w.run("addStandardJob-9", bullmqKeys("wait", "paused", "meta", "id", "completed", "delayed", "active", "events", "marker"),
		args, `{"to":"someone@example.com","subject":"hello","body":"`+strings.Repeat("x", 200)+`"}`, opts)
}

// leaves is a reply's strings and numbers, sorted: two servers list the
// fields of a large hash in different orders (each hashes with a seed of
// its own), so replies are compared as the values they hold.
func leaves(v any) string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		if a, ok := v.([]any); ok {
			for _, e := range a {
				walk(e)
			}
			return
		}
		out = append(out, fmt.Sprint(v))
	}
	walk(v)
	sort.Strings(out)
	return strings.Join(out, "\x00")
}

// monitor collects the commands scripts run on a server, as "CMD key",
// from MONITOR on a connection of its own (RESP2: one status line each).
type monitor struct {
	conn  net.Conn
	lines chan string
	seen  []string
}

func startMonitor(tb testing.TB, ctx context.Context, c *redis.Client) *monitor {
	tb.Helper()
	conn, err := net.Dial("tcp", c.Options().Addr)
	if err != nil {
		tb.Fatal(err)
	}
	m := &monitor{conn: conn, lines: make(chan string, 1<<16)}
	rd := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		tb.Fatal(err)
	}
	if l, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(l, "+OK") {
		tb.Fatalf("MONITOR: %q, %v", l, err)
	}
	go func() {
		defer close(m.lines)
		for {
			l, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case m.lines <- strings.TrimSpace(l):
			default: // a full channel drops lines rather than block Redis
			}
		}
	}()
	return m
}

func (m *monitor) stop() { m.conn.Close() }

// drain takes what MONITOR has shown of scripts' commands since the last
// drain.
func (m *monitor) drain() {
	time.Sleep(50 * time.Millisecond) // MONITOR's lines come after the reply
	for {
		select {
		case l := <-m.lines:
			_, rest, ok := strings.Cut(l, " lua] ")
			if !ok {
				continue
			}
			f := strings.SplitN(rest, " ", 3)
			if len(f) > 2 {
				f = f[:2]
			}
			m.seen = append(m.seen, strings.Join(f, " "))
		default:
			return
		}
	}
}

// added is what m saw that plain did not, since the last call.
func (m *monitor) added(plain *monitor) string {
	m.drain()
	plain.drain()
	count := map[string]int{}
	for _, l := range plain.seen {
		count[l]++
	}
	var out []string
	for _, l := range m.seen {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, strings.ReplaceAll(l, `"`, ""))
	}
	m.seen, plain.seen = nil, nil
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
