package transactional

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// state is what the test compares: both balances and the debit log.
func state(t *testing.T, ctx context.Context, c *redis.Client) []any {
	t.Helper()
	var out []any
	for _, k := range []string{"{a}from", "{a}to"} {
		typ, err := c.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, typ)
		switch typ {
		case "hash":
			out = append(out, c.HGetAll(ctx, k).Val())
		case "string":
			out = append(out, c.Get(ctx, k).Val())
		}
		out = append(out, c.LRange(ctx, k+":log", 0, -1).Val(), c.PTTL(ctx, k).Val() > 0)
	}
	return out
}

// TestRollback runs the transactional script and its plain twin through
// EVALSHA and FCALL on a real redis-server: a failure after the debit leaves
// the keyspace as it was with the flag, and keeps the debit without it.
func TestRollback(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	keys := MoveKeys{From: "{a}from", To: "{a}to"}
	for _, fn := range []bool{false, true} {
		s := &Scripts{Functions: fn}
		if err := c.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		c.HSet(ctx, "{a}from", "balance", 100)
		c.PExpire(ctx, "{a}from", time.Hour)

		got, err := s.Move(ctx, c, keys, MoveArgs{N: 10})
		if err != nil || got != 10 {
			t.Fatalf("functions=%v: move 10 = %d, %v", fn, got, err)
		}
		before := state(t, ctx, c)

		_, err = s.Move(ctx, c, keys, MoveArgs{N: 2000})
		if err == nil || !strings.HasPrefix(err.Error(), "LIMIT the amount is above 1000") {
			t.Fatalf("functions=%v: move 2000: err %v, want LIMIT …", fn, err)
		}
		if after := state(t, ctx, c); !reflect.DeepEqual(before, after) {
			t.Fatalf("functions=%v: after a failed move\n%v\nwant\n%v", fn, after, before)
		}

		c.Set(ctx, "{a}to", "not a hash", 0)
		before = state(t, ctx, c)
		_, err = s.Move(ctx, c, keys, MoveArgs{N: 5})
		if err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
			t.Fatalf("functions=%v: move to a string: err %v, want WRONGTYPE …", fn, err)
		}
		if after := state(t, ctx, c); !reflect.DeepEqual(before, after) {
			t.Fatalf("functions=%v: after a failed move\n%v\nwant\n%v", fn, after, before)
		}

		_, err = s.Plain(ctx, c, PlainKeys{From: "{a}from", To: "{a}to"}, PlainArgs{N: 5})
		if err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
			t.Fatalf("functions=%v: plain to a string: err %v, want WRONGTYPE …", fn, err)
		}
		if after := state(t, ctx, c); reflect.DeepEqual(before, after) {
			t.Fatalf("functions=%v: the plain script's debit was undone: Redis keeps it", fn)
		}
	}
}
