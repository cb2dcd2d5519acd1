package libtest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestQueueWithConsumers runs queue as the Zewtopia workshop's rate limiting
// page (https://github.com/owentechnologist/zewtopia_wrkshop_scripts/blob/master/rate_limiting.md)
// means its bounded stream: producers are
// admitted while workers drain the stream with a consumer group (XREADGROUP,
// then XACK and XDEL together). Every admitted request must be processed
// exactly once, and the stream never holds more than the limit.
func TestQueueWithConsumers(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const (
		qlimit    = 20
		producers = 16
		requests  = 500
		workers   = 4
	)
	q := ratelimit.Tag("zoo", "queue")
	if err := c.XGroupCreateMkStream(ctx, q, "workers", "0").Err(); err != nil {
		t.Fatal(err)
	}
	var s ratelimit.Scripts

	var admitted atomic.Int64
	var ids sync.Map // entry ID → admitted, then processed
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range requests {
				r, err := s.Queue(ctx, c, ratelimit.QueueKeys{Queue: q},
					ratelimit.QueueArgs{Limit: qlimit, Fields: []string{"p", strconv.Itoa(p), "i", strconv.Itoa(i)}})
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					admitted.Add(1)
					ids.Store(r.ID, false)
					if r.Remaining < 0 || r.Remaining >= qlimit {
						t.Errorf("remaining %d outside [0, %d)", r.Remaining, qlimit)
					}
				}
			}
		})
	}

	var processed atomic.Int64
	var longest atomic.Int64
	producing := make(chan struct{})
	var consumers sync.WaitGroup
	for w := range workers {
		consumers.Go(func() {
			name := "w" + strconv.Itoa(w)
			for {
				streams, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{
					Group: "workers", Consumer: name, Streams: []string{q, ">"}, Count: 5, Block: 50 * time.Millisecond,
				}).Result()
				if errors.Is(err, redis.Nil) {
					select {
					case <-producing:
						return // producers done and nothing left
					default:
						continue
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				if n := c.XLen(ctx, q).Val(); n > longest.Load() {
					longest.Store(n)
				}
				for _, m := range streams[0].Messages {
					if seen, loaded := ids.Swap(m.ID, true); loaded && seen.(bool) {
						t.Errorf("entry %s processed twice", m.ID)
					}
					pipe := c.TxPipeline()
					pipe.XAck(ctx, q, "workers", m.ID)
					pipe.XDel(ctx, q, m.ID)
					if _, err := pipe.Exec(ctx); err != nil {
						t.Error(err)
						return
					}
					processed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(producing)
	consumers.Wait()
	if ctx.Err() != nil {
		t.Fatal("not done within the bound")
	}

	if got, want := processed.Load(), admitted.Load(); got != want {
		t.Errorf("processed %d entries, admitted %d", got, want)
	}
	if n := admitted.Load(); n <= qlimit || n == producers*requests {
		t.Errorf("admitted %d of %d: the workers must have drained some and the limit refused some", n, producers*requests)
	}
	if l := longest.Load(); l > qlimit {
		t.Errorf("stream held %d entries, limit %d", l, qlimit)
	}
	if n := c.XLen(ctx, q).Val(); n != 0 {
		t.Errorf("%d entries left in the stream", n)
	}
}
