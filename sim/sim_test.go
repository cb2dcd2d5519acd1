package sim

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/script"
)

func loadFile(t *testing.T, path string) *script.Script {
	t.Helper()
	ss, errs, err := script.Load(path)
	if err != nil || len(errs) > 0 || len(ss) != 1 {
		t.Fatalf("loading %s: %v %v", path, err, errs)
	}
	return ss[0]
}

func run1(t *testing.T, w Workload, l Limiter) *Result {
	t.Helper()
	rep, err := Run(context.Background(), w, l)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Results[0]
}

func column(r *Result, caller int) []int64 {
	out := make([]int64, len(r.Admitted))
	for i := range r.Admitted {
		out[i] = r.Admitted[i][caller]
	}
	return out
}

// The token bucket admits what it was filled with plus what it refilled:
// under a demand always above the refill rate, by time t it has admitted
// floor(capacity + rate·t) requests, counting the request at t itself.
// The model is computed here from that rule, independently of the Lua.
func TestTokenBucketMatchesModel(t *testing.T) {
	const capacity, rate, reqPerSec = 10, 5, 20
	w := Workload{Duration: 10 * time.Second, Interval: time.Second, Callers: []Caller{{Rate: reqPerSec}}}
	r := run1(t, w, Limiter{Script: library(t)["token_bucket"], Args: map[string]string{"capacity": "10", "rate": "5", "period_ms": "1000"}})

	step := time.Second / reqPerSec
	var want []int64
	prev := int64(0)
	for i := range w.Intervals() {
		last := time.Duration(i+1)*time.Second - step // the interval's last request
		cum := int64(math.Floor(capacity + rate*last.Seconds()))
		want = append(want, cum-prev)
		prev = cum
	}
	if got := column(r, 0); !equal(got, want) {
		t.Errorf("admitted per second = %v, want %v", got, want)
	}
	if r.Callers[0].Requested != reqPerSec*10 {
		t.Errorf("requested %d, want %d", r.Callers[0].Requested, reqPerSec*10)
	}
	// The worst 1s window is the first: the whole bucket plus what 950ms refilled.
	if want := int64(math.Floor(capacity + rate*(time.Second-step).Seconds())); r.Burst != want {
		t.Errorf("burst = %d, want %d", r.Burst, want)
	}
	// The first denial is of the first request the supply cannot cover.
	k := 0
	for math.Floor(capacity+rate*(time.Duration(k)*step).Seconds()) >= float64(k+1) {
		k++
	}
	if !r.Callers[0].HasDenied || r.Callers[0].FirstDenied != time.Duration(k)*step {
		t.Errorf("first denial at %v, want %v", r.Callers[0].FirstDenied, time.Duration(k)*step)
	}
}

// The gate admits one request, then refuses everything until its key
// expires on the engine's virtual clock: with a 250ms interval and a
// request every 100ms, the next pass is at the first request at or after
// expiry, every 300ms.
func TestGateFollowsVirtualExpiry(t *testing.T) {
	w := Workload{Duration: 10 * time.Second, Interval: 5 * time.Second, Callers: []Caller{{Rate: 10}}}
	r := run1(t, w, Limiter{Script: library(t)["gate"], Args: map[string]string{"interval_ms": "250"}})
	period := 300 * time.Millisecond
	want := int64((w.Duration + period - 1) / period)
	if got := r.Callers[0].Admitted; got != want {
		t.Errorf("admitted %d, want %d", got, want)
	}
	if r.Burst != 4 { // 0, 300, 600, 900ms all fall in one 1s window
		t.Errorf("burst = %d, want 4", r.Burst)
	}
}

// Skew reaches the script as now_ms: a caller half a second ahead sees the
// other half of every second.
func TestSkewShiftsCallerClock(t *testing.T) {
	w := Workload{Duration: 4 * time.Second, Interval: time.Second,
		Callers: []Caller{{Name: "on-time", Rate: 10}, {Name: "ahead", Rate: 10, Skew: 500 * time.Millisecond}, {Name: "behind", Rate: 10, Skew: -200 * time.Millisecond}}}
	r := run1(t, w, Limiter{Script: loadFile(t, "testdata/half.lua")})
	// Requests at 0,100,…,900ms of each second; on-time passes 0-400
	// (5), ahead sees 500-1400 and passes 1000-1400 (5), behind sees
	// -200..700 and passes 0-400 (5) in every second but the first, where
	// -200 and -100 precede the epoch second and are 800, 900 mod 1000.
	for ci, c := range w.Callers {
		for i, got := range column(r, ci) {
			if got != 5 {
				t.Errorf("caller %s, second %d: admitted %d, want 5", c.Name, i, got)
			}
		}
	}
	if f := r.Fairness(); f != 1 {
		t.Errorf("fairness = %v, want 1 for equal shares", f)
	}
}

func TestArrivals(t *testing.T) {
	w := Workload{Duration: 10 * time.Second, Callers: []Caller{
		{Name: "steady", Rate: 3},
		{Name: "bursty", Burst: 7, Every: 4 * time.Second, Start: time.Second},
		{Name: "late", Rate: 2, Start: 5 * time.Second, Stop: 8 * time.Second},
		{Name: "once", Burst: 3},
	}}
	if err := w.normalize(); err != nil {
		t.Fatal(err)
	}
	a := newArrivals(&w)
	count := make([]int, len(w.Callers))
	last := time.Duration(-1)
	for n := 0; ; n++ {
		if n > 1000 {
			t.Fatal("arrivals do not end")
		}
		c, at, ok := a.next()
		if !ok {
			break
		}
		if at < last {
			t.Fatalf("arrival at %v after one at %v", at, last)
		}
		last = at
		count[c]++
	}
	// steady: 0, 1/3s, … below 10s; bursty: 7 at 1s, 5s, 9s; late: 5s..7.5s.
	want := []int{30, 21, 6, 3}
	for i := range want {
		if count[i] != want[i] {
			t.Errorf("%s: %d requests, want %d", w.Callers[i].Name, count[i], want[i])
		}
	}
}

func TestFairness(t *testing.T) {
	r := &Result{Callers: []CallerStats{{Requested: 10, Admitted: 10}, {Requested: 10, Admitted: 0}}}
	if f := r.Fairness(); f != 0.5 {
		t.Errorf("one caller starved: fairness %v, want 0.5", f)
	}
	r = &Result{Callers: []CallerStats{{Requested: 10, Admitted: 5}, {Requested: 40, Admitted: 20}}}
	if f := r.Fairness(); f != 1 {
		t.Errorf("equal shares: fairness %v, want 1", f)
	}
}

func TestSetupErrors(t *testing.T) {
	lib := library(t)
	w := Workload{Duration: time.Second, Callers: []Caller{{Rate: 1}}}
	for _, tc := range []struct {
		l    Limiter
		want string
	}{
		{Limiter{Script: lib["token_bucket"], Args: map[string]string{"capacity": "1"}}, "missing argument(s) rate, period_ms"},
		{Limiter{Script: lib["gate"], Args: map[string]string{"interval_ms": "1", "nope": "1"}}, "unknown argument(s) nope; the script takes: interval_ms int"},
		{Limiter{Script: lib["token_bucket"], Args: map[string]string{"capacity": "1", "rate": "1", "period_ms": "1"}, Keys: []string{"a", "b"}}, "2 key(s) given, the script declares 1: bucket"},
	} {
		_, err := Run(context.Background(), w, tc.l)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", err, tc.want)
		}
	}
	_, err := Run(context.Background(), w, Limiter{Script: lib["gate"], Args: map[string]string{"interval_ms": "0"}})
	var re *RunError
	if !errors.As(err, &re) || re.Request != 1 || !strings.Contains(err.Error(), "interval_ms must be a positive integer") {
		t.Errorf("a failing script: error %v, want a *RunError of request 1 with the script's message", err)
	}
}

func TestSplitSpec(t *testing.T) {
	kv, err := SplitSpec("limits=[[1000,5],[60000,100]],cost=2,label=a b")
	if err != nil {
		t.Fatal(err)
	}
	if kv["limits"] != "[[1000,5],[60000,100]]" || kv["cost"] != "2" || kv["label"] != "a b" || len(kv) != 3 {
		t.Errorf("SplitSpec = %v", kv)
	}
	if _, err := SplitSpec("a=1,a=2"); err == nil {
		t.Error("a name given twice: no error")
	}
	c, err := ParseCaller("name=api,rate=2.5,burst=3,every=2s,skew=-40ms")
	if err != nil || c.Name != "api" || c.Rate != 2.5 || c.Burst != 3 || c.Every != 2*time.Second || c.Skew != -40*time.Millisecond {
		t.Errorf("ParseCaller = %+v, %v", c, err)
	}
	if _, err := ParseCaller("speed=3"); err == nil || !strings.Contains(err.Error(), CallerFields) {
		t.Errorf("unknown field: %v, want the valid fields listed", err)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Poisson arrivals are random but reproducible: the same seed gives the
// same instants, another seed others, and the rate holds on average.
func TestPoissonArrivals(t *testing.T) {
	times := func(seed uint64) []time.Duration {
		w := Workload{Duration: 100 * time.Second, Seed: seed, Callers: []Caller{{Rate: 100, Poisson: true}}}
		if err := w.normalize(); err != nil {
			t.Fatal(err)
		}
		a := newArrivals(&w)
		var out []time.Duration
		for len(out) < 100000 {
			_, at, ok := a.next()
			if !ok {
				break
			}
			if len(out) > 0 && at < out[len(out)-1] {
				t.Fatalf("arrival at %v after one at %v", at, out[len(out)-1])
			}
			out = append(out, at)
		}
		return out
	}
	a, b, c := times(1), times(1), times(2)
	if len(a) != len(b) || a[len(a)/2] != b[len(b)/2] {
		t.Error("the same seed gave different arrivals")
	}
	if len(a) == len(c) && a[len(a)/2] == c[len(c)/2] {
		t.Error("different seeds gave the same arrivals")
	}
	// 10,000 expected; a Poisson count's standard deviation is 100.
	if n := len(a); n < 9500 || n > 10500 {
		t.Errorf("%d requests in 100s at 100/s", n)
	}
}

// TestFillClock holds callerRun.fill's integer clock to what it replaces,
// base.Add(at+skew).UnixMilli(), around whole milliseconds and seconds,
// before 1970 and with skews that take the clock back past the base.
func TestFillClock(t *testing.T) {
	bases := []time.Time{
		time.Unix(1_700_000_000, 0), time.Unix(1_700_000_000, 999_999_999), time.Unix(1_700_000_000, 500_000),
		time.Unix(-5, 300_000_001), time.Unix(0, 0), time.Date(2500, 1, 1, 0, 0, 0, 1, time.UTC),
	}
	offsets := []time.Duration{0, 1, 999_999, 1_000_000, -1, -999_999, -1_000_001, 1500 * time.Millisecond, -3 * time.Second, time.Hour + 7}
	for _, base := range bases {
		for _, at := range offsets {
			for _, skew := range offsets {
				r := &callerRun{skew: skew, nowAt: 0, cmd: []string{""}}
				r.fill(base.Unix(), int64(base.Nanosecond()), at, 1)
				if want := strconv.FormatInt(base.Add(at+skew).UnixMilli(), 10); r.cmd[0] != want {
					t.Errorf("base %v, at %v, skew %v: %s, want %s", base, at, skew, r.cmd[0], want)
				}
			}
		}
	}
}
