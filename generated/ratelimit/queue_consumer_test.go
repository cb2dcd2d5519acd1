package ratelimit_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// Producers admit through the queue script while consumers drain it: every
// admitted entry is handled exactly once, the stream never holds more than
// the limit, and an entry whose handler failed is claimed again.
func TestQueueConsumer(t *testing.T) {
	c := redistest.Start(t).Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const stream, limit, produce = "queue:{jobs}", 5, 200

	var (
		mu       sync.Mutex
		handled  = map[string]int{}
		failOnce = map[string]bool{}
	)
	handler := func(_ context.Context, m redis.XMessage) error {
		mu.Lock()
		defer mu.Unlock()
		if m.Values["n"] == "7" && !failOnce[m.ID] {
			failOnce[m.ID] = true
			return errors.New("transient")
		}
		handled[m.ID]++
		return nil
	}
	workCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, name := range []string{"w1", "w2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := &ratelimit.QueueConsumer{Client: c, Stream: stream, Group: "workers", Name: name,
				Block: 20 * time.Millisecond, ClaimIdle: 50 * time.Millisecond}
			if err := q.Run(workCtx, handler); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}()
	}

	var s ratelimit.Scripts
	admitted := map[string]bool{}
	for i := 0; len(admitted) < produce; i++ {
		if ctx.Err() != nil {
			t.Fatalf("only %d of %d admitted in time", len(admitted), produce)
		}
		r, err := s.Queue(ctx, c, ratelimit.QueueKeys{Queue: stream}, ratelimit.QueueArgs{Limit: limit, Fields: []string{"n", strconv.Itoa(len(admitted))}})
		if err != nil {
			t.Fatal(err)
		}
		if n := c.XLen(ctx, stream).Val(); n > limit {
			t.Fatalf("stream holds %d entries, limit %d", n, limit)
		}
		if r.Allowed {
			admitted[r.ID] = true
		} else {
			time.Sleep(time.Millisecond)
		}
	}
	// Wait (bounded) for the consumers to drain the stream.
	for c.XLen(ctx, stream).Val() > 0 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(failOnce) != 1 {
		t.Errorf("%d entries failed once, want 1", len(failOnce))
	}
	for id := range admitted {
		if handled[id] != 1 {
			t.Errorf("entry %s handled %d times", id, handled[id])
		}
	}
	if len(handled) != produce {
		t.Errorf("handled %d distinct entries, want %d", len(handled), produce)
	}
	if n := c.XLen(ctx, stream).Val(); n != 0 {
		t.Errorf("%d entries left in the stream", n)
	}
}
