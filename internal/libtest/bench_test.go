package libtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	ulule "github.com/ulule/limiter/v3"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// identifiers spread a benchmark over many limiters, as a service sees many
// users: with one identifier nearly every call would take the refusal path.
const identifiers = 1000

// BenchmarkLimiters measures each script through its wrapper on a real
// redis-server, with go-redis/redis_rate's AllowN and ulule/limiter's Redis
// store in the same run as baselines. Besides ns/op it reports ops/s, as 16
// callers see it, and the server's own usec_per_call (INFO commandstats) for
// the command that ran the script, which is what the script costs Redis
// whatever the client and network add.
//
//	go test -run '^$' -bench Limiters ./internal/libtest
func BenchmarkLimiters(b *testing.B) {
	srv := redistest.Start(b)
	c := srv.Client(b)
	ctx := context.Background()

	type bench struct {
		name string
		cmd  string // the command whose usec_per_call is the script's cost
		call func(id string, n int64) error
	}
	var s ratelimit.Scripts
	fn := &ratelimit.Scripts{Functions: true}
	if err := fn.Load(ctx, c); err != nil {
		b.Fatal(err)
	}
	rr := redis_rate.NewLimiter(c)
	store, err := redisstore.NewStoreWithOptions(c, ulule.StoreOptions{Prefix: "ulule", MaxRetry: 3})
	if err != nil {
		b.Fatal(err)
	}
	ul := ulule.New(store, ulule.Rate{Period: time.Minute, Limit: 100})

	benches := []bench{
		{"window", "evalsha", func(id string, _ int64) error {
			_, err := s.Window(ctx, c, ratelimit.WindowKeys{Ids: []string{ratelimit.Tag(id, "w")}},
				ratelimit.WindowArgs{Limits: [][]int64{{60_000, 100, 1000}}})
			return err
		}},
		{"window_fixed", "evalsha", func(id string, _ int64) error {
			_, err := s.Window(ctx, c, ratelimit.WindowKeys{Ids: []string{ratelimit.Tag(id, "wf")}},
				ratelimit.WindowArgs{Limits: [][]int64{{60_000, 100}}})
			return err
		}},
		{"log", "evalsha", func(id string, _ int64) error {
			_, err := s.Log(ctx, c, ratelimit.LogKeys{Logs: []string{ratelimit.Tag(id, "l")}},
				ratelimit.LogArgs{Limits: [][2]int64{{60_000, 100}}})
			return err
		}},
		{"gate", "evalsha", func(id string, _ int64) error {
			_, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: ratelimit.Tag(id, "g")}, ratelimit.GateArgs{IntervalMs: 600})
			return err
		}},
		{"credits", "evalsha", func(id string, _ int64) error {
			_, err := s.Credits(ctx, c, ratelimit.CreditsKeys{Pool: ratelimit.Tag(id, "c")},
				ratelimit.CreditsArgs{Credits: 100, WindowMs: 60_000})
			return err
		}},
		{"queue", "evalsha", func(id string, n int64) error {
			_, err := s.Queue(ctx, c, ratelimit.QueueKeys{Queue: ratelimit.Tag(id, "q")},
				ratelimit.QueueArgs{Limit: 100, Fields: []string{"n", strconv.FormatInt(n, 10)}})
			return err
		}},
		{"token_bucket", "evalsha", func(id string, _ int64) error {
			_, err := s.TokenBucket(ctx, c, ratelimit.TokenBucketKeys{Bucket: ratelimit.Tag(id, "tb")},
				ratelimit.TokenBucketArgs{Capacity: 100, Rate: 100, PeriodMs: 60_000})
			return err
		}},
		{"gcra", "evalsha", func(id string, _ int64) error {
			_, err := s.Gcra(ctx, c, ratelimit.GcraKeys{Tat: ratelimit.Tag(id, "gcra")},
				ratelimit.GcraArgs{Rate: 100, Burst: 100, PeriodMs: 60_000})
			return err
		}},
		{"gcra_fcall", "fcall", func(id string, _ int64) error {
			_, err := fn.Gcra(ctx, c, ratelimit.GcraKeys{Tat: ratelimit.Tag(id, "gcraf")},
				ratelimit.GcraArgs{Rate: 100, Burst: 100, PeriodMs: 60_000})
			return err
		}},
		{"cl_throttle", "evalsha", func(id string, _ int64) error {
			_, err := s.ClThrottle(ctx, c, ratelimit.ClThrottleKeys{Key: ratelimit.Tag(id, "cell")},
				ratelimit.ClThrottleArgs{MaxBurst: 99, Count: 100, Period: 60})
			return err
		}},
		{"concurrency", "evalsha", func(id string, n int64) error {
			_, err := s.Concurrency(ctx, c, ratelimit.ConcurrencyKeys{Slots: ratelimit.Tag(id, "cc")},
				ratelimit.ConcurrencyArgs{Limit: 100, RequestID: strconv.FormatInt(n, 10), TTLMs: 1000})
			return err
		}},
		// Baselines: the same 100 a minute in each library.
		{"baseline_redis_rate", "evalsha", func(id string, _ int64) error {
			_, err := rr.AllowN(ctx, id, redis_rate.PerMinute(100), 1)
			return err
		}},
		{"baseline_ulule", "evalsha", func(id string, _ int64) error {
			_, err := ul.Get(ctx, id)
			return err
		}},
	}
	for _, bc := range benches {
		b.Run(bc.name, func(b *testing.B) {
			if err := c.FlushDB(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			if err := bc.call("warm", 0); err != nil { // loads the script: EVAL once
				b.Fatal(err)
			}
			if err := c.ConfigResetStat(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			var seq atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := seq.Add(1)
					if err := bc.call("id"+strconv.FormatInt(n%identifiers, 10), n); err != nil {
						b.Error(err)
						return
					}
				}
			})
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
			usec, err := usecPerCall(ctx, c, bc.cmd)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(usec, "usec/call")
		})
	}
}

// usecPerCall reads the server's average cost of cmd since CONFIG RESETSTAT.
func usecPerCall(ctx context.Context, c *redis.Client, cmd string) (float64, error) {
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, err
	}
	prefix := "cmdstat_" + cmd + ":"
	for line := range strings.Lines(info) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
		if !ok {
			continue
		}
		for field := range strings.SplitSeq(rest, ",") {
			if v, ok := strings.CutPrefix(field, "usec_per_call="); ok {
				return strconv.ParseFloat(v, 64)
			}
		}
	}
	return 0, fmt.Errorf("no %s in INFO commandstats", prefix)
}
