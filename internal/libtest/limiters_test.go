package libtest

import (
	"context"
	"strconv"
	"time"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
)

// now is a fixed instant for the scripts that take now_ms: with the clock
// held, nothing refills during a run, so exactly the limit must pass however
// long the run takes on a loaded machine.
const now int64 = 1_700_000_000_000

const hour = int64(time.Hour / time.Millisecond)

// limit is the number of requests every limiter below admits for one
// identifier before it refuses; small against 128,000 requests, so that most
// calls race for a full limiter, where a lost update would show.
const limit = 500

// limiter is one script under test: call makes request i of goroutine g for
// the identifier whose keys carry hash tag tag, and reports whether it passed.
type limiter struct {
	name string
	call func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, g, i int) (bool, error)
}

func key(tag, part string) string { return ratelimit.Tag(tag, part) }

var limiters = []limiter{
	{"window", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		// Two identifiers, two limits: the sliding hour is the one that binds.
		r, err := s.Window(ctx, c, ratelimit.WindowKeys{Ids: []string{key(tag, "user"), key(tag, "ip")}},
			ratelimit.WindowArgs{Limits: [][]int64{{hour, limit, 60_000}, {1000, 1_000_000}}, NowMs: new(now)})
		return r.Allowed, err
	}},
	{"log", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		r, err := s.Log(ctx, c, ratelimit.LogKeys{Logs: []string{key(tag, "client"), key(tag, "resource")}},
			ratelimit.LogArgs{Limits: [][2]int64{{hour, 1_000_000}, {hour, limit}}, NowMs: new(now)})
		return r.Allowed, err
	}},
	{"gate", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		// One pass per interval: over an hour-long interval, exactly one.
		r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: key(tag, "gate")}, ratelimit.GateArgs{IntervalMs: hour})
		return r.Allowed, err
	}},
	{"credits", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		r, err := s.Credits(ctx, c, ratelimit.CreditsKeys{Pool: key(tag, "pool")},
			ratelimit.CreditsArgs{Credits: limit, WindowMs: hour, NowMs: new(now)})
		return r.Allowed, err
	}},
	{"queue", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, g, i int) (bool, error) {
		r, err := s.Queue(ctx, c, ratelimit.QueueKeys{Queue: key(tag, "queue")},
			ratelimit.QueueArgs{Limit: limit, Fields: []string{"g", strconv.Itoa(g), "i", strconv.Itoa(i)}})
		return r.Allowed, err
	}},
	{"token_bucket", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		r, err := s.TokenBucket(ctx, c, ratelimit.TokenBucketKeys{Bucket: key(tag, "bucket")},
			ratelimit.TokenBucketArgs{Capacity: limit, Rate: 1, PeriodMs: hour, NowMs: new(now)})
		return r.Allowed, err
	}},
	{"gcra", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		r, err := s.Gcra(ctx, c, ratelimit.GcraKeys{Tat: key(tag, "tat")},
			ratelimit.GcraArgs{Rate: 1, Burst: limit, PeriodMs: hour, NowMs: new(now)})
		return r.Allowed, err
	}},
	{"cl_throttle", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, _, _ int) (bool, error) {
		r, err := s.ClThrottle(ctx, c, ratelimit.ClThrottleKeys{Key: key(tag, "cell")},
			ratelimit.ClThrottleArgs{MaxBurst: limit - 1, Count: 1, Period: 3600, NowMs: new(now)})
		return !r.Limited, err
	}},
	{"concurrency", func(ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, tag string, g, i int) (bool, error) {
		// Slots never released within the hour: each request id is new.
		r, err := s.Concurrency(ctx, c, ratelimit.ConcurrencyKeys{Slots: key(tag, "slots")},
			ratelimit.ConcurrencyArgs{Limit: limit, RequestID: strconv.Itoa(g) + ":" + strconv.Itoa(i), TTLMs: hour})
		return r.Allowed, err
	}},
}

// want is how many requests a limiter admits for one identifier.
func want(name string) int64 {
	if name == "gate" {
		return 1
	}
	return limit
}
