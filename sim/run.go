package sim

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/scriptgen/scriptgen/transactional"
)

// Report is the outcome of one workload against several limiters.
type Report struct {
	Workload Workload // normalized: defaults filled in
	Results  []*Result
}

// Result is what one limiter let through.
type Result struct {
	Label  string
	Script string
	// Admitted and Denied count requests per interval and caller:
	// [interval][caller], callers in workload order.
	Admitted, Denied [][]int64
	Callers          []CallerStats
	// Burst is the most requests admitted in any window of Workload.Window
	// (callers together), and BurstAt the end of the first such window.
	Burst   int64
	BurstAt time.Duration
}

// CallerStats are one caller's totals.
type CallerStats struct {
	Name              string
	Requested         int64
	Admitted, Denied  int64
	Burst             int64 // the caller's own worst window
	FirstDenied       time.Duration
	HasDenied         bool
	AdmittedPerSecond float64
}

// RunError is a script that failed during a simulation, as opposed to a
// workload or limiter that could not be set up.
type RunError struct {
	Limiter string
	Request int64 // from 1
	Caller  string
	At      time.Duration
	Err     error
}

func (e *RunError) Error() string {
	return fmt.Sprintf("%s: request %d (caller %s at %v): %v", e.Limiter, e.Request, e.Caller, e.At, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// Run simulates w against each limiter, each on a fresh engine of its own,
// concurrently. ctx stops a long run between requests.
func Run(ctx context.Context, w Workload, limiters ...Limiter) (*Report, error) {
	return run(ctx, newEngine, w, limiters)
}

// target is where requests run: the embedded engine, or in tests a real
// redis-server to check that the simulation counts what Redis would.
type target interface {
	Do(args ...string) (any, error)
	SetTime(t time.Time)
	Now() time.Time
	Close()
}

// evalSHAer is a target that runs EVALSHA without a command line:
// transactional.Engine's fast path, which the simulator's loop lives in.
type evalSHAer interface {
	EvalSHA(sha string, keys, argv []string) (any, error)
}

var _ evalSHAer = (*transactional.Engine)(nil)

func newEngine() (target, error) { return transactional.New(), nil }

func run(ctx context.Context, newTarget func() (target, error), w Workload, limiters []Limiter) (*Report, error) {
	if err := w.normalize(); err != nil {
		return nil, err
	}
	if len(limiters) == 0 {
		return nil, fmt.Errorf("sim: no limiters")
	}
	plans := make([]*plan, len(limiters))
	labels := map[string]bool{}
	for i := range limiters {
		p, err := limiters[i].plan(&w)
		if err != nil {
			return nil, err
		}
		if labels[p.label] {
			return nil, fmt.Errorf("sim: two limiters are labelled %q: give them labels", p.label)
		}
		labels[p.label] = true
		plans[i] = p
	}
	rep := &Report{Workload: w, Results: make([]*Result, len(plans))}
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := newTarget()
			if err != nil {
				errs[i] = err
				return
			}
			defer t.Close()
			rep.Results[i], errs[i] = simulate(ctx, t, &rep.Workload, p)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// window counts admitted requests in the trailing window, as a ring of
// their times.
type window struct {
	width time.Duration
	ring  []time.Duration
	head  int
	n     int
	max   int64
	maxAt time.Duration
}

func (w *window) add(t time.Duration) {
	for w.n > 0 && w.ring[w.head] <= t-w.width {
		w.head = (w.head + 1) % len(w.ring)
		w.n--
	}
	if w.n == len(w.ring) {
		grown := make([]time.Duration, 2*len(w.ring)+16)
		for i := 0; i < w.n; i++ {
			grown[i] = w.ring[(w.head+i)%len(w.ring)]
		}
		w.ring, w.head = grown, 0
	}
	w.ring[(w.head+w.n)%len(w.ring)] = t
	w.n++
	if int64(w.n) > w.max {
		w.max, w.maxAt = int64(w.n), t
	}
}

// caller is a caller's per-run state: its prepared KEYS and ARGV.
type callerRun struct {
	name  string
	skew  time.Duration
	cmd   []string // EVALSHA sha numkeys keys... args...
	nkeys int
	// slots of cmd filled per request
	nowAt  int
	perReq []int
	tmpls  []string
	burst  window
	stats  CallerStats
}

func simulate(ctx context.Context, e target, w *Workload, p *plan) (*Result, error) {
	shaV, err := e.Do("SCRIPT", "LOAD", p.src)
	if err != nil {
		return nil, fmt.Errorf("%s: loading the script: %w", p.label, err)
	}
	sha, _ := shaV.(string)
	base := e.Now()
	baseSec, baseNsec := base.Unix(), int64(base.Nanosecond())

	n := w.Intervals()
	res := &Result{Label: p.label, Script: p.name, Admitted: make([][]int64, n), Denied: make([][]int64, n)}
	for i := range n {
		res.Admitted[i] = make([]int64, len(w.Callers))
		res.Denied[i] = make([]int64, len(w.Callers))
	}
	callers := make([]*callerRun, len(w.Callers))
	for i, c := range w.Callers {
		callers[i] = prepare(p, sha, c, w.Window)
	}
	total := window{width: w.Window}
	arr := newArrivals(w)
	direct, _ := e.(evalSHAer)
	var seq int64
	last := time.Duration(-1)
	for {
		ci, at, ok := arr.next()
		if !ok {
			break
		}
		seq++
		if seq&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if at != last {
			e.SetTime(base.Add(at))
			last = at
		}
		c := callers[ci]
		c.fill(baseSec, baseNsec, at, seq)
		var reply any
		if direct != nil {
			reply, err = direct.EvalSHA(sha, c.keys(), c.argv())
		} else {
			reply, err = e.Do(c.cmd...)
		}
		if err == nil {
			ok, err = p.verdict.allowed(reply)
		}
		if err != nil {
			return nil, &RunError{Limiter: p.label, Request: seq, Caller: c.name, At: at, Err: err}
		}
		bin := int(at / w.Interval)
		c.stats.Requested++
		if ok {
			res.Admitted[bin][ci]++
			c.stats.Admitted++
			c.burst.add(at)
			total.add(at)
		} else {
			res.Denied[bin][ci]++
			c.stats.Denied++
			if !c.stats.HasDenied {
				c.stats.HasDenied, c.stats.FirstDenied = true, at
			}
		}
	}
	secs := w.Duration.Seconds()
	for _, c := range callers {
		c.stats.Burst = c.burst.max
		c.stats.AdmittedPerSecond = float64(c.stats.Admitted) / secs
		res.Callers = append(res.Callers, c.stats)
	}
	res.Burst, res.BurstAt = total.max, total.maxAt
	return res, nil
}

func prepare(p *plan, sha string, c Caller, win time.Duration) *callerRun {
	r := &callerRun{name: c.Name, skew: c.Skew, nowAt: -1, stats: CallerStats{Name: c.Name}, burst: window{width: win}}
	r.cmd = append(r.cmd, "EVALSHA", sha, strconv.Itoa(len(p.keys)))
	r.nkeys = len(p.keys)
	for _, k := range p.keys {
		r.cmd = append(r.cmd, expand(k, c.Name, 0))
	}
	for _, a := range p.args {
		switch {
		case a.now:
			r.nowAt = len(r.cmd)
		case a.perReq:
			r.perReq = append(r.perReq, len(r.cmd))
			r.tmpls = append(r.tmpls, a.text)
		}
		r.cmd = append(r.cmd, a.text)
	}
	return r
}

// keys and argv are the request's KEYS and ARGV, views of cmd.
func (r *callerRun) keys() []string { return r.cmd[3 : 3+r.nkeys] }
func (r *callerRun) argv() []string { return r.cmd[3+r.nkeys:] }

// fill writes the request's clock and placeholders into the command.
// The clock is base.Add(at+skew).UnixMilli() (base given as its Unix
// seconds and nanoseconds), in integers.
func (r *callerRun) fill(baseSec, baseNsec int64, at time.Duration, seq int64) {
	if r.nowAt >= 0 {
		ns := baseNsec + int64(at+r.skew)
		ms := ns / 1e6
		if ns%1e6 < 0 {
			ms-- // floored, as UnixMilli is
		}
		r.cmd[r.nowAt] = strconv.FormatInt(baseSec*1000+ms, 10)
	}
	for i, at := range r.perReq {
		r.cmd[at] = expand(r.tmpls[i], r.name, seq)
	}
}
