package luaflow

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

var (
	describe = redistest.Describe
	apply    = redistest.Apply
)

// start is a redis-server for one test, and a context that bounds it.
func start(t testing.TB) (context.Context, *redis.Client) {
	c := redistest.Start(t).Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx, c
}
