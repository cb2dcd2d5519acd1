package ratelimit_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/transactional"
)

// TestGateEngine runs the wrappers against the embedded engine over TCP,
// with its virtual clock: what a new user runs first, with no server.
func TestGateEngine(t *testing.T) {
	e := transactional.New()
	t.Cleanup(e.Close)
	addr, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: addr.String(), DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	ctx := ctxT(t)

	t.Run("eval", func(t *testing.T) {
		checkGate(t, ctx, &ratelimit.Scripts{}, c, "gate:{user42}:feeding", 10*time.Second, e.Advance)
	})
	t.Run("functions", func(t *testing.T) {
		s := &ratelimit.Scripts{Functions: true}
		if err := s.Load(ctx, c); err != nil {
			t.Fatal(err)
		}
		checkGate(t, ctx, s, c, "gate:{user43}:feeding", 10*time.Second, e.Advance)
	})
	t.Run("pipeline", func(t *testing.T) {
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		var s ratelimit.Scripts
		pipe := c.Pipeline()
		args := ratelimit.GateArgs{IntervalMs: 1000}
		first := s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: "p"}, args)
		second := s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: "p"}, args)
		if _, err := s.Exec(ctx, pipe); err != nil {
			t.Fatal(err)
		}
		r1, err1 := first.Result()
		r2, err2 := second.Result()
		if err1 != nil || err2 != nil || !r1.Allowed || r2.Allowed || r2.RetryAfterMs != 1000 {
			t.Fatalf("got %+v, %v and %+v, %v; want admitted, then refused for 1000 ms (the clock stands still)", r1, err1, r2, err2)
		}
	})
}
