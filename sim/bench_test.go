package sim

import (
	"context"
	"flag"
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
	tb := library(b)["token_bucket"]
	w := Workload{Duration: time.Duration(b.N) * time.Millisecond, Interval: time.Second, Shared: true,
		Callers: []Caller{{Rate: 1000}}}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	rep, err := Run(context.Background(), w, Limiter{Script: tb, Args: map[string]string{"capacity": "100", "rate": "500", "period_ms": "1000"}})
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

// BenchmarkCallers is BenchmarkRequest's rate spread over 100 callers with
// a bucket each: 100 keys with a TTL, which the engine's clock visits on
// every move, so the cost per request must not grow with the callers.
func BenchmarkCallers(b *testing.B) {
	tb := library(b)["token_bucket"]
	callers := make([]Caller, 100)
	for i := range callers {
		callers[i] = Caller{Name: "c" + strconv.Itoa(i), Rate: 10}
	}
	w := Workload{Duration: time.Duration(b.N) * time.Millisecond, Interval: time.Second, Callers: callers}
	b.ReportAllocs()
	b.ResetTimer()
	rep, err := Run(context.Background(), w, Limiter{Script: tb, Args: map[string]string{"capacity": "10", "rate": "5", "period_ms": "1000"}})
	if err != nil {
		b.Fatal(err)
	}
	if got := rep.Results[0].Totals().Requested; got < int64(b.N)-100 || got > int64(b.N)+100 {
		b.Fatalf("simulated %d requests, want about %d", got, b.N)
	}
}
