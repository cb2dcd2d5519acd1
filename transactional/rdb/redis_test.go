package rdb

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// crossCase builds key k on a server with commands. fresh says that the
// value was built the way Dump lays it out (pushes at the tail, no
// deletions, no hash table order), so Dump must give Redis's bytes.
type crossCase struct {
	name  string
	fresh bool
	build func(ctx context.Context, c *redis.Client, k string)
	want  Value // nil: not checked against a hand-written value
}

func strs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var crossCases = []crossCase{
	{"string", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, "hello", 0) }, String("hello")},
	{"empty string", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, "", 0) }, String("")},
	{"int8", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, "-7", 0) }, String("-7")},
	{"int32 by INCRBY", true, func(ctx context.Context, c *redis.Client, k string) { c.IncrBy(ctx, k, 2000000000) }, String("2000000000")},
	{"int64 as text", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, "9007199254740993", 0) }, String("9007199254740993")},
	{"leading zero", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, "007", 0) }, String("007")},
	{"binary", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, "a\x00b\xff", 0) }, String("a\x00b\xff")},
	{"long repetitive", true, func(ctx context.Context, c *redis.Client, k string) { c.Set(ctx, k, strings.Repeat("abc", 5000), 0) }, String(strings.Repeat("abc", 5000))},
	{"small list", true, func(ctx context.Context, c *redis.Client, k string) {
		c.RPush(ctx, k, "a", "1", "-5", "300", "70000", "1099511627776", "-9223372036854775808", strings.Repeat("x", 100), strings.Repeat("y", 5000))
	}, List{"a", "1", "-5", "300", "70000", "1099511627776", "-9223372036854775808", strings.Repeat("x", 100), strings.Repeat("y", 5000)}},
	{"large list", true, func(ctx context.Context, c *redis.Client, k string) {
		c.RPush(ctx, k, anys(strs("element-", 20000))...)
	}, List(strs("element-", 20000))},
	{"list by LPUSH", false, func(ctx context.Context, c *redis.Client, k string) { c.LPush(ctx, k, anys(strs("", 3000))...) }, nil},
	{"intset16", true, func(ctx context.Context, c *redis.Client, k string) { c.SAdd(ctx, k, 3, -1, 2) }, Set{"-1", "2", "3"}},
	{"intset32", true, func(ctx context.Context, c *redis.Client, k string) { c.SAdd(ctx, k, 1, 100000) }, Set{"1", "100000"}},
	{"intset64", true, func(ctx context.Context, c *redis.Client, k string) { c.SAdd(ctx, k, 1, "-9223372036854775808") }, Set{"-9223372036854775808", "1"}},
	{"set of strings", false, func(ctx context.Context, c *redis.Client, k string) { c.SAdd(ctx, k, "a", "b", 1) }, Set{"1", "a", "b"}},
	{"large intset becomes a set", false, func(ctx context.Context, c *redis.Client, k string) { c.SAdd(ctx, k, anys(strs("", 600))...) }, nil},
	{"small hash", true, func(ctx context.Context, c *redis.Client, k string) { c.HSet(ctx, k, "b", "1", "a", "x", "10", "-3") }, Hash{{"b", "1"}, {"a", "x"}, {"10", "-3"}}},
	{"hash with a long value", false, func(ctx context.Context, c *redis.Client, k string) { c.HSet(ctx, k, "a", strings.Repeat("v", 65)) }, Hash{{"a", strings.Repeat("v", 65)}}},
	{"large hash", false, func(ctx context.Context, c *redis.Client, k string) { c.HSet(ctx, k, anys(strs("f", 400))...) }, nil},
	{"small zset", true, func(ctx context.Context, c *redis.Client, k string) {
		c.ZAdd(ctx, k, redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: 2, Member: "b"}, redis.Z{Score: -0.1, Member: "c"},
			redis.Z{Score: 1e20, Member: "d"}, redis.Z{Score: 0.1, Member: "e"}, redis.Z{Score: 2, Member: "0"}, redis.Z{Score: 1e-300, Member: "f"})
		c.Do(ctx, "ZADD", k, "+inf", "g", "-inf", "h")
	}, nil},
	{"large zset", true, func(ctx context.Context, c *redis.Client, k string) {
		for i := 0; i < 300; i++ {
			c.ZAdd(ctx, k, redis.Z{Score: float64(i%17) / 3, Member: "m" + strconv.Itoa(i)})
		}
	}, nil},
	{"stream", true, func(ctx context.Context, c *redis.Client, k string) {
		c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "1-1", Values: []string{"f", "v", "n", "1"}})
		c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "1-2", Values: []string{"f", "w", "n", "2"}})
		c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "5-0", Values: []string{"other", strings.Repeat("z", 70)}})
	}, &Stream{Entries: []StreamEntry{{StreamID{1, 1}, []string{"f", "v", "n", "1"}}, {StreamID{1, 2}, []string{"f", "w", "n", "2"}}, {StreamID{5, 0}, []string{"other", strings.Repeat("z", 70)}}},
		LastID: StreamID{5, 0}, FirstID: StreamID{1, 1}, EntriesAdded: 3}},
	{"large stream with groups", true, func(ctx context.Context, c *redis.Client, k string) {
		for i := 1; i <= 450; i++ {
			c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: fmt.Sprintf("%d-%d", 1000+i/7, i%7), Values: []string{"f", strings.Repeat("v", i%90), "i", strconv.Itoa(i)}})
		}
		c.XGroupCreate(ctx, k, "g1", "0")
		c.XGroupCreate(ctx, k, "g2", "$")
		c.XGroupCreateConsumer(ctx, k, "g2", "lazy")
		c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g1", Consumer: "a", Streams: []string{k, ">"}, Count: 3})
		c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g1", Consumer: "b", Streams: []string{k, ">"}, Count: 2})
		c.XAck(ctx, k, "g1", "1000-1")
	}, nil},
	{"stream after XDEL and XTRIM", false, func(ctx context.Context, c *redis.Client, k string) {
		for i := 1; i <= 30; i++ {
			c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: fmt.Sprintf("7-%d", i), Values: []string{"f", strconv.Itoa(i)}})
		}
		c.XDel(ctx, k, "7-3", "7-10")
		c.XTrimMaxLen(ctx, k, 20)
	}, nil},
	{"empty stream", true, func(ctx context.Context, c *redis.Client, k string) {
		c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "3-3", Values: []string{"f", "v"}})
		c.XDel(ctx, k, "3-3")
	}, nil},
}

// view is what a client can see of a key: the same for the original and a
// key RESTOREd from our payload means the payload carried the value.
func view(t *testing.T, ctx context.Context, c *redis.Client, k string) string {
	t.Helper()
	typ := c.Type(ctx, k).Val()
	var v any
	var err error
	switch typ {
	case "string":
		v, err = c.Get(ctx, k).Result()
	case "list":
		v, err = c.LRange(ctx, k, 0, -1).Result()
	case "set":
		v, err = c.Do(ctx, "SORT", k, "ALPHA").Result()
	case "zset":
		v, err = c.ZRangeWithScores(ctx, k, 0, -1).Result()
	case "hash":
		v, err = c.HGetAll(ctx, k).Result() // fmt prints maps sorted
	case "stream":
		v, err = c.Do(ctx, "XINFO", "STREAM", k, "FULL").Result()
	default:
		t.Fatalf("%s: type %s", k, typ)
	}
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return typ + " " + fmt.Sprint(v)
}

// TestCrossEngine: for each type and encoding, a DUMP from redis-server
// 7.0 restores here to the value the commands built; Dump of that value
// RESTOREs there to a key that reads the same; and for values built the
// way Dump lays them out, Dump's bytes are Redis's (with compression off,
// which Dump does not do). With compression on, Redis's LZF strings decode.
func TestCrossEngine(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if v := c.Info(ctx, "server").Val(); !strings.Contains(v, "redis_version:7.0.") {
		t.Logf("not redis 7.0: payload bytes may differ (%.80s)", v)
	}
	for _, compression := range []string{"no", "yes"} {
		if err := c.ConfigSet(ctx, "rdbcompression", compression).Err(); err != nil {
			t.Fatal(err)
		}
		for _, tc := range crossCases {
			t.Run(tc.name+"/compression="+compression, func(t *testing.T) {
				c.FlushAll(ctx)
				tc.build(ctx, c, "orig")
				theirs, err := c.Dump(ctx, "orig").Bytes()
				if err != nil {
					t.Fatal(err)
				}
				v, err := Restore(theirs)
				if err != nil {
					t.Fatalf("Restore of redis-server's DUMP: %v\n% x", err, theirs[:min(len(theirs), 200)])
				}
				if tc.want != nil && !reflect.DeepEqual(normal(v), normal(tc.want)) {
					t.Fatalf("restored %.300v\nwant %.300v", v, tc.want)
				}
				ours := Dump(v)
				if compression == "no" && tc.fresh && !bytes.Equal(ours, theirs) {
					t.Errorf("Dump differs from redis-server's DUMP:\nours   % x\ntheirs % x", ours[:min(len(ours), 300)], theirs[:min(len(theirs), 300)])
				}
				if err := c.Restore(ctx, "copy", 0, string(ours)).Err(); err != nil {
					t.Fatalf("RESTORE of Dump's payload: %v", err)
				}
				if a, b := view(t, ctx, c, "orig"), view(t, ctx, c, "copy"); a != b {
					t.Fatalf("the restored key reads\n%.600s\nthe original\n%.600s", b, a)
				}
			})
		}
	}
}

// TestRedisRefusesWhatRestoreRefuses: a payload Restore rejects for its
// checksum or version, redis-server rejects with the same text.
func TestRedisRefusesWhatRestoreRefuses(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	good := Dump(List{"a", "b"})
	bad := append([]byte(nil), good...)
	bad[3] ^= 0x40
	future := append([]byte(nil), good...)
	future[len(future)-10] = Version + 1
	for _, p := range [][]byte{bad, future, good[:9]} {
		_, ours := Restore(p)
		theirs := c.Restore(ctx, "k", 0, string(p)).Err()
		if ours == nil || theirs == nil || "ERR "+ours.Error() != theirs.Error() {
			t.Errorf("% x: Restore says %v, redis-server %v", p, ours, theirs)
		}
	}
}
