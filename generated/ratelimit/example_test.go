package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/transactional"
)

// newEngineClient is a go-redis client on the embedded engine: what the
// examples run against with no server to install. Use your *redis.Client,
// *redis.ClusterClient or *redis.Ring the same way.
func newEngineClient() (*redis.Client, *transactional.Engine) {
	e := transactional.New()
	addr, err := e.Listen("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	return redis.NewClient(&redis.Options{Addr: addr.String(), DisableIdentity: true}), e
}

// A gate lets a caller pass once per interval.
func ExampleScripts_Gate() {
	rdb, engine := newEngineClient()
	defer engine.Close()
	defer rdb.Close()
	ctx := context.Background()

	var scripts ratelimit.Scripts
	keys := ratelimit.NewGateKeys("bob", "feeding")
	for i := 0; i < 2; i++ {
		res, err := scripts.Gate(ctx, rdb, keys, ratelimit.GateArgs{IntervalMs: 10_000})
		if err != nil {
			panic(err)
		}
		fmt.Printf("allowed=%v retry_after=%v\n", res.Allowed, time.Duration(res.RetryAfterMs)*time.Millisecond)
	}
	// Output:
	// allowed=true retry_after=-1ms
	// allowed=false retry_after=10s
}

// A token bucket of 3 tokens, refilled at 1 per second; now_ms is given so
// that the example is exact.
func ExampleScripts_TokenBucket() {
	rdb, engine := newEngineClient()
	defer engine.Close()
	defer rdb.Close()
	ctx := context.Background()

	var scripts ratelimit.Scripts
	keys := ratelimit.NewTokenBucketKeys("user42")
	now := int64(1_700_000_000_000)
	for i := 0; i < 4; i++ {
		res, err := scripts.TokenBucket(ctx, rdb, keys, ratelimit.TokenBucketArgs{Capacity: 3, Rate: 1, PeriodMs: 1000, NowMs: &now})
		if err != nil {
			panic(err)
		}
		fmt.Printf("allowed=%v remaining=%d retry_after_ms=%d\n", res.Allowed, res.Remaining, res.RetryAfterMs)
	}
	// Output:
	// allowed=true remaining=2 retry_after_ms=-1
	// allowed=true remaining=1 retry_after_ms=-1
	// allowed=true remaining=0 retry_after_ms=-1
	// allowed=false remaining=0 retry_after_ms=1000
}

// Keys that hash to different cluster slots are refused before any I/O.
func ExampleCrossSlotError() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DisableIdentity: true}) // never dialled
	defer rdb.Close()

	var scripts ratelimit.Scripts
	_, err := scripts.Window(context.Background(), rdb,
		ratelimit.WindowKeys{Ids: []string{"user:{42}", "ip:{10.0.0.1}"}},
		ratelimit.WindowArgs{Limits: [][]int{{1000, 10}}})
	var cs *ratelimit.CrossSlotError
	fmt.Println(errors.As(err, &cs), cs.Slots)
	// Output:
	// true [8000 13037]
}

// The keys of a call, built from the patterns in the scripts' headers: one
// hash tag for all of them, so one cluster slot.
func ExampleNewWindowKeys() {
	keys := ratelimit.NewWindowKeys("user42", "user", "ip:10.0.0.1")
	fmt.Println(keys.Ids)
	fmt.Println(ratelimit.GateKey("user42", "feeding"))
	// Output:
	// [rl:{user42}:window:user rl:{user42}:window:ip:10.0.0.1]
	// gate:{user42}:feeding
}
