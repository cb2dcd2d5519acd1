package libtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/clustertest"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// load is the size of a concurrency run: the 64 × 2,000 unless
// -short or small is set. FCALL runs are small: they run the same script
// text as EVAL (the bundler wraps it), so they show that the library path
// admits exactly too without doubling a run of minutes.
func load(small bool) (goroutines, requests int) {
	if small || testing.Short() {
		return 64, 200
	}
	return 64, 2000
}

// runTimeout bounds one run: 128,000 calls take a few seconds on two cores;
// a run that has not finished in this time is stuck, not slow.
const runTimeout = 2 * time.Minute

// hammer runs goroutines × requests calls of l for one identifier and returns
// how many passed. Every call must succeed: an error (a redirect the client
// did not follow, a script error) fails the test.
func hammer(t *testing.T, s *ratelimit.Scripts, c ratelimit.Scripter, l limiter, tag string) int64 {
	t.Helper()
	goroutines, requests := load(s.Functions)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	var admitted, calls atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range requests {
				if ctx.Err() != nil {
					return
				}
				ok, err := l.call(ctx, s, c, tag, g, i)
				calls.Add(1)
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("goroutine %d, request %d: %w", g, i, err); cancel() })
					return
				}
				if ok {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("%s: %v", l.name, firstErr)
	}
	if n := calls.Load(); n != int64(goroutines*requests) {
		t.Fatalf("%s: %d of %d calls made before the %v bound", l.name, n, goroutines*requests, runTimeout)
	}
	return admitted.Load()
}

// exact checks every limiter on one client, with EVALSHA and with FCALL.
// Each run uses its own hash tag, so runs share no keys.
func exact(t *testing.T, c ratelimit.Scripter) {
	modes := []struct {
		name string
		s    *ratelimit.Scripts
	}{
		{"eval", &ratelimit.Scripts{}},
		{"functions", &ratelimit.Scripts{Functions: true}},
	}
	for _, m := range modes {
		for _, l := range limiters {
			t.Run(m.name+"/"+l.name, func(t *testing.T) {
				tag := fmt.Sprintf("exact:%s:%s:%d", m.name, l.name, time.Now().UnixNano())
				if got, want := hammer(t, m.s, c, l, tag), want(l.name); got != want {
					t.Errorf("admitted %d, want exactly %d", got, want)
				}
			})
		}
	}
}

func TestExactRedis(t *testing.T) {
	srv := redistest.Start(t)
	exact(t, srv.Client(t))
}

func TestExactCluster(t *testing.T) {
	cl := clustertest.Start(t)
	exact(t, cl.Client(t))
}
