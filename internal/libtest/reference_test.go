package libtest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestGcraMatchesRedisRate runs go-redis/redis_rate v10.0.1 (AllowN) and
// gcra side by side on one real server, call for call, and compares every
// answer. Both read the server's clock, microseconds apart; with one request
// every 6 s (10 a minute) no decision or count sits within microseconds of a
// boundary, so the answers must agree exactly, waits to the millisecond.
func TestGcraMatchesRedisRate(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	limit := redis_rate.Limit{Rate: 10, Burst: 20, Period: time.Minute}
	ref := redis_rate.NewLimiter(c)
	var s ratelimit.Scripts

	// redis_rate's own TestAllow costs first, then a fixed pseudo-random mix
	// that drains the limiter and keeps knocking on it.
	costs := []int{1, 2, 7, 1000, 0}
	rng := rand.New(rand.NewPCG(8, 8))
	for range 60 {
		costs = append(costs, rng.IntN(4))
	}
	allowed, firstGap := 0, int64(0)
	for i, cost := range costs {
		start := time.Now()
		want, err := ref.AllowN(ctx, "ref", limit, cost)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Gcra(ctx, c, ratelimit.GcraKeys{Tat: "gcra:ref"}, ratelimit.GcraArgs{
			Rate: int64(limit.Rate), Burst: int64(limit.Burst), PeriodMs: limit.Period.Milliseconds(), Cost: new(int64(cost)),
		})
		if err != nil {
			t.Fatal(err)
		}
		// The two ran at different instants of the server's clock: their
		// times may differ by what passed between them now and between
		// their first calls (where each limiter's state began), and 1 ms
		// of rounding.
		gap := ceilMs(time.Since(start))
		if i == 0 {
			firstGap = gap
		}
		tol := 1 + gap + firstGap
		// redis_rate answers Allowed = cost when it admits, so a look (cost 0)
		// shows as 0 either way; it admits exactly when RetryAfter is -1.
		wantAllowed := want.RetryAfter == -1
		if got.Allowed != wantAllowed || got.Remaining != int64(want.Remaining) {
			t.Fatalf("call %d (cost %d): gcra = %+v, redis_rate = %+v", i, cost, got, *want)
		}
		if wantAllowed {
			allowed++
			if got.RetryAfterMs != -1 {
				t.Fatalf("call %d: gcra retry_after_ms %d, want -1 as redis_rate", i, got.RetryAfterMs)
			}
		} else if d := got.RetryAfterMs - ceilMs(want.RetryAfter); d < -tol || d > tol {
			t.Fatalf("call %d: gcra retry_after_ms %d, redis_rate %v", i, got.RetryAfterMs, want.RetryAfter)
		}
		if d := got.ResetAfterMs - ceilMs(want.ResetAfter); d < -tol || d > tol {
			t.Fatalf("call %d: gcra reset_after_ms %d, redis_rate %v", i, got.ResetAfterMs, want.ResetAfter)
		}
	}
	if allowed < 3 || allowed == len(costs) {
		t.Fatalf("%d of %d calls admitted: the sequence must see both answers", allowed, len(costs))
	}
}

func ceilMs(d time.Duration) int64 {
	return int64(math.Ceil(float64(d) / float64(time.Millisecond)))
}
