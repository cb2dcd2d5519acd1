package luaflow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/clustertest"
)

// TestSureWitnesses: for each condition of a command that cannot fail
// (sure.go), a script that breaks only that condition, which Needed must
// not clear, and a run of it on redis-server that fails after its first
// write and leaves that write behind: the condition is needed.
func TestSureWitnesses(t *testing.T) {
	ctx, c := start(t)
	const checked = "local x = tonumber(ARGV[1])\nif not (x and x > 0 and x < 100) then return 'out' end\n"
	for _, w := range []struct {
		name, src, arg string
		state          []any
		twice          bool // KEYS[1] and KEYS[2] name the same key
	}{
		{"a score may be NaN", "local x = tonumber(ARGV[1])\nif not x then return 'no' end\n" +
			"redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('ZADD', KEYS[1], x, 'q')\n", "nan", nil, false},
		{"an index must be an integer", checked + "redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('ZRANGE', KEYS[1], x, -1)\n", "2.5", nil, false},
		{"milliseconds must be an integer", checked + "redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('PEXPIRE', KEYS[1], x)\n", "2.5", nil, false},
		{"milliseconds must be bounded", "local x = tonumber(ARGV[1])\nif not x or x % 1 ~= 0 or x < 1 then return 'no' end\n" +
			"redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('PEXPIRE', KEYS[1], x)\n", "1e300", nil, false},
		{"options must go together", "redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('ZADD', KEYS[1], 'NX', 'GT', 3, 'q')\n", "", nil, false},
		{"a literal bound must parse", "redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('ZREMRANGEBYSCORE', KEYS[1], '(x', '+inf')\n", "", nil, false},
		{"the key must be a sorted set", "redis.call('PEXPIRE', KEYS[1], 100000)\nredis.call('ZCARD', KEYS[1])\n", "", []any{"SET", "{w}k", "v"}, false},
		{"the key must be a hash", "redis.call('ZADD', KEYS[1], 2, 'p')\nredis.call('HSET', KEYS[1], 'f', 1)\n", "", nil, false},
		{"HSET takes pairs", "redis.call('HSET', KEYS[1], 'f', 1)\nredis.call('HSET', KEYS[1], 'g', 1, 'h')\n", "", nil, false},
		{"another name may give the key another type", "redis.call('ZCARD', KEYS[1])\nredis.call('HSET', KEYS[2], 'g', 5)\nredis.call('ZCARD', KEYS[1])\n", "", nil, true},
	} {
		t.Run(w.name, func(t *testing.T) {
			src := w.src + "return 'ok'\n"
			if !Needed(src) {
				t.Fatalf("Needed clears:\n%s", src)
			}
			c.FlushAll(ctx)
			if w.state != nil {
				if err := c.Do(ctx, w.state...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			keys := []string{"{w}k", "{w}other"}
			if w.twice {
				keys[1] = keys[0]
			}
			before := describe(t, ctx, c, keys)
			err := c.Eval(ctx, src, keys, w.arg).Err()
			if err == nil {
				t.Fatal("the run did not fail")
			}
			if describe(t, ctx, c, keys) == before {
				t.Fatalf("the run failed (%v) without writing first", err)
			}
		})
	}
}

// TestSureMigratingSlot: while a key's hash slot migrates, a cluster node
// refuses a script's command on that key once the script has deleted it,
// after the deletion took effect. Needed must not clear such a script
// (keys must be stable); concurrency, which it clears, never touches a
// key after a write that may delete it, and runs whole on such a node: a
// release of the last slot, an acquire and a refusal.
func TestSureMigratingSlot(t *testing.T) {
	ctx := context.Background()
	key := "{mig}slots"
	owner, migrate := migratingSlot(t, key)

	// Deleted, then touched: refused half way.
	touch := "redis.call('ZCARD', KEYS[1])\nredis.call('ZREM', KEYS[1], 'm')\nredis.call('ZADD', KEYS[1], 1, 'q')\nreturn 1\n"
	if !Needed(touch) {
		t.Fatal("Needed clears a script that touches a key it may have deleted")
	}
	migrate(false)
	owner.Del(ctx, key)
	owner.ZAdd(ctx, key, redis.Z{Score: 1, Member: "m"})
	migrate(true)
	err := owner.Eval(ctx, touch, []string{key}).Err()
	if err == nil || !strings.Contains(err.Error(), "non local key") {
		t.Fatalf("EVAL during the migration: %v, want the node's refusal", err)
	}
	migrate(false)
	if n := owner.Exists(ctx, key).Val(); n != 0 {
		t.Fatalf("the ZREM was not left behind (EXISTS %d): the witness shows nothing", n)
	}

	src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", "concurrency.lua"))
	if err != nil {
		t.Fatal(err)
	}
	conc := string(src)
	if Needed(conc) {
		t.Fatal("concurrency needs the runtime")
	}
	const now = 1700000000000
	for _, step := range []struct {
		name  string
		setup []redis.Z
		args  []any
		want  string
	}{
		{"release of the last slot", []redis.Z{{Score: now + 500, Member: "a"}}, []any{2, "a", 1000, 1, now}, "[1 2 -1 0]"},
		{"acquire", []redis.Z{{Score: now + 500, Member: "a"}}, []any{2, "b", 1000, 0, now}, "[1 0 -1 1000]"},
		{"refusal", []redis.Z{{Score: now + 500, Member: "a"}, {Score: now - 1, Member: "old"}}, []any{1, "b", 1000, 0, now}, "[0 0 500 500]"},
	} {
		migrate(false)
		owner.Del(ctx, key)
		owner.ZAdd(ctx, key, step.setup...)
		migrate(true)
		got, err := owner.Eval(ctx, conc, []string{key}, step.args...).Result()
		if err != nil {
			t.Fatalf("%s during the migration: %v", step.name, err)
		}
		if fmt.Sprint(got) != step.want {
			t.Errorf("%s: %v, want %s", step.name, got, step.want)
		}
	}
}

// TestSureMigratingSlotLog: log, which Needed clears, sweeps a log only
// below the entry it has just added, so it never empties a key it touches
// again: with one key under two names, holding stale entries only (a sweep
// first would delete it), it runs whole while the slot migrates.
func TestSureMigratingSlotLog(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", "log.lua"))
	if err != nil {
		t.Fatal(err)
	}
	logSrc := string(src)
	if Needed(logSrc) {
		t.Fatal("log needs the runtime")
	}
	ctx := context.Background()
	key := "{mig}log"
	owner, migrate := migratingSlot(t, key)
	const now = 1700000000000
	owner.ZAdd(ctx, key, redis.Z{Score: now - 5000, Member: "old"})
	migrate(true)
	got, err := owner.Eval(ctx, logSrc, []string{key, key}, "[[1000, 5], [1000, 5]]", 1, now).Result()
	if err != nil {
		t.Fatalf("log during the migration: %v", err)
	}
	if fmt.Sprint(got) != "[1 4 -1 1000]" {
		t.Errorf("log: %v, want [1 4 -1 1000]", got)
	}
	members, err := owner.ZRange(ctx, key, 0, -1).Result()
	if err != nil || fmt.Sprint(members) != fmt.Sprintf("[%d:1 %d:2]", now, now) {
		t.Errorf("the log holds %v (%v), want the two new entries only", members, err)
	}
}

// migratingSlot starts a cluster and returns the primary that owns key's
// slot and a switch that marks the slot MIGRATING to another primary, or
// STABLE again (as it is left when the test ends).
func migratingSlot(t *testing.T, key string) (*redis.Client, func(on bool)) {
	t.Helper()
	cc := clustertest.Start(t).Client(t)
	ctx := context.Background()
	owner, err := cc.MasterForKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	slot := int(redisKeySlot(t, ctx, owner, key))
	var (
		mu     sync.Mutex // ForEachMaster calls in parallel
		target string
	)
	err = cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		id, err := n.Do(ctx, "CLUSTER", "MYID").Text()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if n.Options().Addr != owner.Options().Addr {
			target = id
		}
		return nil
	})
	if err != nil || target == "" {
		t.Fatalf("another primary: %q, %v", target, err)
	}
	migrate := func(on bool) {
		t.Helper()
		args := []any{"CLUSTER", "SETSLOT", slot, "STABLE"}
		if on {
			args = []any{"CLUSTER", "SETSLOT", slot, "MIGRATING", target}
		}
		if err := owner.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { migrate(false) })
	return owner, migrate
}

func redisKeySlot(t *testing.T, ctx context.Context, c *redis.Client, key string) int64 {
	t.Helper()
	slot, err := c.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return slot
}
