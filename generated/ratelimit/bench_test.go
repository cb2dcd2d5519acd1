package ratelimit_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// handGate is what the wrapper replaces: the same script through
// redis.NewScript, keys and args untyped, the reply decoded by hand.
type handGate struct{ s *redis.Script }

func (h handGate) run(ctx context.Context, c redis.Scripter, key string, intervalMs int64) (allowed bool, retryAfterMs int64, err error) {
	v, err := h.s.Run(ctx, c, []string{key}, intervalMs).Slice()
	if err != nil {
		return false, 0, err
	}
	if len(v) != 4 {
		return false, 0, redis.Nil
	}
	a, _ := v[0].(int64)
	r, _ := v[2].(int64)
	return a == 1, r, nil
}

// BenchmarkGate runs the generated wrapper and the hand-written call of the
// same bundled source against one real redis-server over one connection,
// on the same rotating keys (refused calls after the first pass: SET NX and
// PTTL each time). They are sub-benchmarks of one benchmark so that -count
// interleaves them and machine noise hits both alike:
//
//	go test ./generated/ratelimit -run '^$' -bench Gate -benchmem -count 10
func BenchmarkGate(b *testing.B) {
	srv := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, DisableIdentity: true, PoolSize: 1})
	b.Cleanup(func() { _ = c.Close() })
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = "gate:{bench" + strconv.Itoa(i) + "}"
	}
	ctx := context.Background()

	b.Run("generated", func(b *testing.B) {
		var s ratelimit.Scripts
		args := ratelimit.GateArgs{IntervalMs: 3_600_000}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: keys[i%len(keys)]}, args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		src, err := os.ReadFile("../bundle/ratelimit/gate.lua")
		if err != nil {
			b.Fatal(err)
		}
		h := handGate{redis.NewScript(string(src))}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, _, err := h.run(ctx, c, keys[i%len(keys)], 3_600_000); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// replyHook answers every command with gate's refused reply without any
// I/O. It claims nothing about Redis: it takes the network out so that the
// client-side cost of the two paths (argument building, go-redis command
// construction, reply decoding) can be compared without the noise of a
// round trip, which dominates BenchmarkGate.
type replyHook struct{}

func (replyHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (replyHook) ProcessHook(redis.ProcessHook) redis.ProcessHook {
	return func(_ context.Context, cmd redis.Cmder) error {
		if c, ok := cmd.(*redis.Cmd); ok {
			c.SetVal([]any{int64(0), int64(0), int64(1234), int64(1234)})
		}
		return nil
	}
}
func (replyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func BenchmarkGateClientSide(b *testing.B) {
	// The address is never dialled: the hook answers first.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DisableIdentity: true})
	c.AddHook(replyHook{})
	b.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	b.Run("generated", func(b *testing.B) {
		var s ratelimit.Scripts
		args := ratelimit.GateArgs{IntervalMs: 3_600_000}
		b.ReportAllocs()
		for b.Loop() {
			if r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: "gate:{bench}"}, args); err != nil || r.RetryAfterMs != 1234 {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		src, err := os.ReadFile("../bundle/ratelimit/gate.lua")
		if err != nil {
			b.Fatal(err)
		}
		h := handGate{redis.NewScript(string(src))}
		b.ReportAllocs()
		for b.Loop() {
			if _, r, err := h.run(ctx, c, "gate:{bench}", 3_600_000); err != nil || r != 1234 {
				b.Fatal(r, err)
			}
		}
	})
}
