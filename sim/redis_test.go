package sim

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
)

// server runs the simulation's requests on a real redis-server. Its clock
// cannot be moved, so only limiters that take now_ms compare: their verdicts
// depend on the time they are given, not on the server's.
type server struct {
	c *redis.Client
}

func (s server) Do(args ...string) (any, error) {
	a := make([]any, len(args))
	for i, x := range args {
		a[i] = x
	}
	v, err := s.c.Do(context.Background(), a...).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return v, err
}

func (server) SetTime(time.Time) {}
func (server) Now() time.Time    { return transactional.DefaultStart }
func (server) Close()            {}

// The simulation counts what Redis itself would: the same workload on a
// real redis-server 7 and on the embedded engine admits the same requests,
// interval by interval and caller by caller.
//
// With skewed callers only the limiters whose state never expires before
// the script would ignore it compare: window and credits let a key expire
// by the server's clock while reasoning in the caller's, so their verdicts
// depend on a server clock a real server cannot be made to follow here.
func TestSameAsRedis(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	lib := library(t)
	all := []Limiter{
		{Script: lib["token_bucket"], Args: map[string]string{"capacity": "10", "rate": "7", "period_ms": "1000"}},
		{Script: lib["gcra"], Args: map[string]string{"rate": "7", "burst": "10", "period_ms": "1000"}},
		{Script: lib["log"], Args: map[string]string{"limits": "[[1000,8]]"}},
		{Script: lib["cl_throttle"], Args: map[string]string{"max_burst": "9", "count": "7", "period": "1"}},
		{Script: lib["window"], Args: map[string]string{"limits": "[[1000,8,100],[3000,15]]"}},
		{Script: lib["credits"], Args: map[string]string{"credits": "9", "window_ms": "700"}},
	}
	w := Workload{Duration: 6 * time.Second, Interval: 500 * time.Millisecond, Shared: true,
		Callers: []Caller{{Rate: 40}, {Rate: 5, Burst: 20, Every: 2 * time.Second, Start: 300 * time.Millisecond}}}
	skewed := w
	skewed.Callers = []Caller{{Rate: 40, Skew: -30 * time.Millisecond}, {Rate: 5, Burst: 20, Every: 2 * time.Second, Start: 300 * time.Millisecond, Skew: 70 * time.Millisecond}}
	compare(t, c, "in-step", w, all)
	compare(t, c, "skewed", skewed, all[:4])
}

func compare(t *testing.T, c *redis.Client, name string, w Workload, limiters []Limiter) {
	for _, l := range limiters {
		t.Run(name+"/"+l.Script.Name, func(t *testing.T) {
			if err := c.FlushAll(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			real, err := run(context.Background(), func() (target, error) { return server{c}, nil }, w, []Limiter{l})
			if err != nil {
				t.Fatal(err)
			}
			local, err := Run(context.Background(), w, l)
			if err != nil {
				t.Fatal(err)
			}
			a, b := real.Results[0], local.Results[0]
			if fmt.Sprint(a.Admitted) != fmt.Sprint(b.Admitted) || a.Burst != b.Burst {
				t.Errorf("admitted per interval and caller:\nredis-server %v (burst %d)\nengine       %v (burst %d)", a.Admitted, a.Burst, b.Admitted, b.Burst)
			}
			if a.Totals().Admitted == 0 || a.Totals().Denied == 0 {
				t.Errorf("the workload should both admit and deny: %+v", a.Totals())
			}
		})
	}
}
