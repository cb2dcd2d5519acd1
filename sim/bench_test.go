package sim

import (
	"context"
	"flag"
	"math"
	"strconv"
	"testing"
	"time"
)

// BenchmarkRequest is the cost of one simulated request of a token bucket
// under a steady 1,000 req/s; hour-s is the projected wall time of one
// virtual hour at that rate (3.6 M requests), the figure the speed goal
// (< 10 s) is about, and hour-cpu-s the CPU time it takes, which a busy
// machine does not inflate.
func BenchmarkRequest(b *testing.B) {
	steady(b, "token_bucket", map[string]string{"capacity": "100", "rate": "500", "period_ms": "1000"})
}

// steady simulates b.N requests of one caller at 1,000 req/s against one
// shared key of a library script, and reports the projected hour, wall
// (hour-s) and CPU (hour-cpu-s).
func steady(b *testing.B, name string, args map[string]string) {
	l := library(b)[name]
	w := Workload{Duration: time.Duration(b.N) * time.Millisecond, Interval: time.Second, Shared: true,
		Callers: []Caller{{Rate: 1000}}}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	rep, err := Run(context.Background(), w, Limiter{Script: l, Args: args})
	cpu := cpuTime() - cpu0
	if err != nil {
		b.Fatal(err)
	}
	if got := rep.Results[0].Totals().Requested; got != int64(b.N) {
		b.Fatalf("simulated %d requests, want %d", got, b.N)
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*3.6e6, "hour-s")
	b.ReportMetric(cpu.Seconds()/float64(b.N)*3.6e6, "hour-cpu-s")
}

var hour = flag.Bool("hour", false, "let BenchmarkHour simulate a whole virtual hour (minutes of wall time)")

// BenchmarkHour is the speed goal itself: one virtual hour at 1,000 req/s
// for one limiter. It runs only with -hour, as `make bench` should not
// spend minutes on it: go test -run '^$' -bench Hour -hour ./sim
func BenchmarkHour(b *testing.B) {
	if !*hour {
		b.Skip("pass -hour to simulate a whole hour")
	}
	tb := library(b)["token_bucket"]
	w := Workload{Duration: time.Hour, Interval: time.Minute, Shared: true, Callers: []Caller{{Rate: 1000}}}
	for b.Loop() {
		cpu0 := cpuTime()
		rep, err := Run(context.Background(), w, Limiter{Script: tb, Args: map[string]string{"capacity": "100", "rate": "500", "period_ms": "1000"}})
		if err != nil {
			b.Fatal(err)
		}
		if got := rep.Results[0].Totals().Requested; got != 3_600_000 {
			b.Fatalf("simulated %d requests, want 3,600,000", got)
		}
		b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s")
	}
}

// BenchmarkCallers is BenchmarkRequest's rate spread over n callers with
// a bucket each, arriving at random (Poisson) so that every request is a
// clock move, with buckets that refill slowly enough to keep n keys alive.
// A clock move costs the keys it expires, not the n keys with a TTL
// (miniredis's deadline heap), so the cost per request should barely grow
// with n; this shows by how much.
func BenchmarkCallers(b *testing.B) {
	for _, n := range []int{10, 1000, 5000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			tb := library(b)["token_bucket"]
			callers := make([]Caller, n)
			for i := range callers {
				callers[i] = Caller{Name: "c" + strconv.Itoa(i), Rate: 1000 / float64(n), Poisson: true}
			}
			w := Workload{Duration: time.Duration(b.N) * time.Millisecond, Interval: time.Second, Callers: callers}
			b.ReportAllocs()
			b.ResetTimer()
			rep, err := Run(context.Background(), w, Limiter{Script: tb, Args: map[string]string{"capacity": "10", "rate": "1", "period_ms": "600000"}})
			if err != nil {
				b.Fatal(err)
			}
			// Poisson arrivals: about b.N requests, within a few deviations.
			if got, want := rep.Results[0].Totals().Requested, int64(b.N); math.Abs(float64(got-want)) > 5*math.Sqrt(float64(want))+10 {
				b.Fatalf("simulated %d requests, want about %d", got, want)
			}
		})
	}
}

// BenchmarkLog is the sliding log (one sorted-set entry per admitted
// request) under BenchmarkRequest's 1,000 req/s, with a window of a minute
// that holds up to n entries: the cost of a request as the log grows.
// miniredis sorted a sorted set on every read in order, several a request;
// its copy here keeps the order (ssindex.go).
func BenchmarkLog(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			steady(b, "log", map[string]string{"limits": "[[60000," + strconv.Itoa(n) + "]]"})
		})
	}
}

// BenchmarkLimiters is BenchmarkRequest for every limiter of the library,
// each configured to let about half of a steady 1,000 req/s through (the
// window and the log over a minute, their state at its largest), with
// hour-s the projected wall time of a virtual hour. It is where a limiter
// whose cost grows with its state shows.
func BenchmarkLimiters(b *testing.B) {
	cases := []struct {
		name, script string
		args         map[string]string
	}{
		{"token_bucket", "token_bucket", map[string]string{"capacity": "100", "rate": "500", "period_ms": "1000"}},
		{"gcra", "gcra", map[string]string{"rate": "500", "burst": "100", "period_ms": "1000"}},
		{"cl_throttle", "cl_throttle", map[string]string{"max_burst": "100", "count": "500", "period": "1"}},
		{"credits", "credits", map[string]string{"credits": "30000", "window_ms": "60000"}},
		{"fixed_window", "window", map[string]string{"limits": "[[60000,30000]]"}},
		{"sliding_window", "window", map[string]string{"limits": "[[60000,30000,1000]]"}},
		{"log", "log", map[string]string{"limits": "[[60000,30000]]"}},
		{"concurrency", "concurrency", map[string]string{"limit": "1000", "request_id": RequestVar, "ttl_ms": "2000", "release": "0"}},
		{"gate", "gate", map[string]string{"interval_ms": "2"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { steady(b, c.script, c.args) })
	}
}
