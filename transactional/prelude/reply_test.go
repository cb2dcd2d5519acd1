package prelude

import (
	"strconv"
	"strings"
	"testing"
)

// TestUndoFromReplyAndReads checks the journal entries that need no read of
// their own: a SET NX undone from its reply, and a ZADD or ZINCRBY undone
// from the scores ZSCORE returned. The keyspace must be as before after the
// failure, and the server must not have seen the reads the journal would
// otherwise make (INFO commandstats counts them).
func TestUndoFromReplyAndReads(t *testing.T) {
	ctx, c := start(t)
	for _, tc := range []struct {
		name, body string
		most       map[string]int // calls of a command the server may see, the script's own included
	}{
		{"set nx on a key that exists", "redis.call('SET', KEYS[1], 'v', 'NX', 'PX', 5000)\nerror('late')\n", map[string]int{"pexpiretime": 0, "dump": 0}},
		{"set nx on a new key", "redis.call('SET', KEYS[7], 'v', 'nx', 'PXAT', 4102444800000)\nerror('late')\n", map[string]int{"pexpiretime": 0, "dump": 0}},
		{"set nx twice", "redis.call('SET', KEYS[7], 'v', 'NX')\nredis.call('SET', KEYS[7], 'w', 'NX')\nredis.call('SET', KEYS[1], 'w', 'NX')\nerror('late')\n", map[string]int{"pexpiretime": 0, "dump": 0}},
		{"zscore then zadd", "local s = redis.call('ZSCORE', KEYS[4], 'm')\nlocal q = redis.call('ZSCORE', KEYS[4], 'q')\nredis.call('ZADD', KEYS[4], 'GT', 9, 'm', 7, 'q')\nerror('late')\n", map[string]int{"zmscore": 0, "dump": 0}},
		{"hash fields written again", "redis.call('HMGET', KEYS[2], 'a', 'b')\nredis.call('HINCRBY', KEYS[2], 'a', 1)\nredis.call('HSET', KEYS[2], 'a', 'x', 'b', 'y')\nredis.call('HDEL', KEYS[2], 'b')\nredis.call('PEXPIRE', KEYS[2], 100000)\nredis.call('HSET', KEYS[2], 'a', 'z', 'c', 'w')\nredis.call('HSET', KEYS[2], 'c', 'v')\nerror('late')\n", map[string]int{"hmget": 2, "pexpiretime": 1, "dump": 0}},
		{"expiry in the past", "redis.call('PEXPIRE', KEYS[2], -1)\nredis.call('EXPIREAT', KEYS[4], 1)\nredis.call('PEXPIREAT', KEYS[1], 4102444800000)\nerror('late')\n", map[string]int{"dump": 2}},
		{"zscore then zincrby", "redis.call('ZSCORE', KEYS[4], 'n')\nredis.call('ZINCRBY', KEYS[4], 2.25, 'n')\nerror('late')\n", map[string]int{"zmscore": 0, "dump": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed(t, ctx, c)
			before := describe(t, ctx, c, testKeys)
			if err := c.ConfigResetStat(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			err := c.Eval(ctx, Wrap(tc.body), testKeys).Err()
			if !strings.Contains(errText(err), "late") {
				t.Fatalf("got %v, want the script's own error", err)
			}
			stats := c.Info(ctx, "commandstats").Val()
			for cmd, most := range tc.most {
				if n := calls(stats, cmd); n > most || n < 0 {
					t.Errorf("the server saw %s %d times, want at most %d", strings.ToUpper(cmd), n, most)
				}
			}
			if after := describe(t, ctx, c, testKeys); after != before {
				t.Fatalf("keyspace changed:\n%s\nbefore:\n%s", after, before)
			}
		})
	}
}

// calls is cmd's count in INFO commandstats.
func calls(stats, cmd string) int {
	for _, line := range strings.Split(stats, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.Atoi(n)
		if err != nil {
			return -1
		}
		return v
	}
	return 0
}
