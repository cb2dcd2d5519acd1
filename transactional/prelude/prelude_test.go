package prelude

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

var testKeys = []string{"{t}s", "{t}h", "{t}l", "{t}z", "{t}x", "{t}st", "{t}new"}

// seed gives every type a key, some with a TTL, and a stream with a
// consumer group holding a pending entry.
func seed(t testing.TB, ctx context.Context, c *redis.Client) {
	t.Helper()
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.FlushAll(ctx)
		p.Set(ctx, "{t}s", "12", 0)
		p.PExpireAt(ctx, "{t}s", at)
		p.HSet(ctx, "{t}h", "a", "1", "b", "x")
		p.RPush(ctx, "{t}l", "1", "2", "three")
		p.ZAdd(ctx, "{t}z", redis.Z{Score: 1.5, Member: "m"}, redis.Z{Score: -2, Member: "n"})
		p.PExpireAt(ctx, "{t}z", at.Add(time.Minute))
		p.SAdd(ctx, "{t}x", "1", "2", "a")
		p.XAdd(ctx, &redis.XAddArgs{Stream: "{t}st", ID: "1-1", Values: []string{"f", "v"}})
		p.XAdd(ctx, &redis.XAddArgs{Stream: "{t}st", ID: "2-1", Values: []string{"f", "w"}})
		p.XGroupCreate(ctx, "{t}st", "g", "0")
		p.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"{t}st", ">"}, Count: 1})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func start(t testing.TB) (context.Context, *redis.Client) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx, c
}

// writeAll writes every test key, of every type, then fails in the way
// the placeholder FAIL says.
const writeAll = `redis.call('INCRBY', KEYS[1], 5)
redis.call('PEXPIREAT', KEYS[1], 4102444800000)
redis.call('HSET', KEYS[2], 'a', 'changed', 'c', 'new')
redis.call('HDEL', KEYS[2], 'b')
redis.call('LPUSH', KEYS[3], 'x')
redis.call('LTRIM', KEYS[3], 0, 1)
redis.call('ZINCRBY', KEYS[4], 3, 'm')
redis.call('PERSIST', KEYS[4])
redis.call('SREM', KEYS[5], '1', '2', 'a')
redis.call('XADD', KEYS[6], '3-1', 'f', 'x')
redis.call('XACK', KEYS[6], 'g', '1-1')
redis.call('XDEL', KEYS[6], '2-1')
redis.call('XGROUP', 'CREATE', KEYS[6], 'g2', '$')
redis.call('SET', KEYS[7], 'created', 'PXAT', 4102444801000)
FAIL
return 'done'
`

// TestRollbackEveryType fails a script after it has written a key of every
// type (and a new one) in each way a script can fail, and checks that the
// keyspace is as before, TTLs included, while the same script without the
// prelude keeps its writes and gets the same error.
func TestRollbackEveryType(t *testing.T) {
	ctx, c := start(t)
	for _, tc := range []struct{ fail, want string }{
		{"error({err = 'LIMIT over the limit'})", "LIMIT over the limit"},
		{"redis.call('HSET', KEYS[1], 'a', 1)", "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"error('boom')", "ERR user_script:15: boom"},
		{"local x = nil; x.y = 1", "ERR user_script:15: attempt to index local 'x' (a nil value)"},
		{"redis.call('FLUSHALL')", "ERR scriptgen transactional: FLUSHALL cannot be rolled back"},
	} {
		body := strings.Replace(writeAll, "FAIL", tc.fail, 1)
		seed(t, ctx, c)
		before := describe(t, ctx, c, testKeys)
		err := c.Eval(ctx, Wrap(body), testKeys).Err()
		if got := errText(err); got != tc.want {
			t.Errorf("%s: wrapped: error %q, want %q", tc.fail, got, tc.want)
		}
		if after := describe(t, ctx, c, testKeys); after != before {
			t.Errorf("%s: wrapped: keyspace after the failure:\n%s\nwant:\n%s", tc.fail, after, before)
		}
		if tc.fail == "redis.call('FLUSHALL')" {
			continue // Redis would run it
		}
		err = c.Eval(ctx, body, testKeys).Err()
		if got := errText(err); got != tc.want {
			t.Errorf("%s: plain: error %q, want %q", tc.fail, got, tc.want)
		}
		if after := describe(t, ctx, c, testKeys); after == before {
			t.Errorf("%s: plain: the writes were undone; Redis keeps them", tc.fail)
		}
	}

	// Success: the same writes, the same reply.
	body := strings.Replace(writeAll, "FAIL", "", 1)
	seed(t, ctx, c)
	got, err := c.Eval(ctx, Wrap(body), testKeys).Result()
	wrapped := describe(t, ctx, c, testKeys)
	seed(t, ctx, c)
	want, errPlain := c.Eval(ctx, body, testKeys).Result()
	plain := describe(t, ctx, c, testKeys)
	if got != want || err != nil || errPlain != nil {
		t.Errorf("success: wrapped %v, %v; plain %v, %v", got, err, want, errPlain)
	}
	if wrapped != plain {
		t.Errorf("success: wrapped left\n%s\nplain left\n%s", wrapped, plain)
	}
}

// TestErrorReplyIsNotAFailure: a script that returns an error reply ran to
// its end; Redis keeps its writes, and so does the prelude.
func TestErrorReplyIsNotAFailure(t *testing.T) {
	ctx, c := start(t)
	seed(t, ctx, c)
	body := "redis.call('SET', KEYS[1], 'kept') return redis.error_reply('NOPE not allowed')"
	err := c.Eval(ctx, Wrap(body), []string{"{t}s"}).Err()
	if err == nil || err.Error() != "NOPE not allowed" {
		t.Fatalf("error %v, want NOPE not allowed", err)
	}
	if v := c.Get(ctx, "{t}s").Val(); v != "kept" {
		t.Fatalf("{t}s = %q, want kept", v)
	}
}

// TestFailedWriteIsNotJournaled: a write refused by Redis changed nothing,
// so its key needs no undo; a later successful write to it still does.
func TestFailedWriteIsNotJournaled(t *testing.T) {
	ctx, c := start(t)
	seed(t, ctx, c)
	before := describe(t, ctx, c, testKeys)
	body := `local r = redis.pcall('HSET', KEYS[1], 'a', 1)
assert(r.err, 'HSET on a string must fail')
redis.call('SET', KEYS[1], 'changed')
error('late')`
	if err := c.Eval(ctx, Wrap(body), []string{"{t}s"}).Err(); errText(err) != "ERR user_script:4: late" {
		t.Fatalf("error %v", err)
	}
	if after := describe(t, ctx, c, testKeys); after != before {
		t.Fatalf("keyspace:\n%s\nwant:\n%s", after, before)
	}
}

// TestDynamicCommands: commands named only at run time are found with
// COMMAND INFO and COMMAND GETKEYS.
func TestDynamicCommands(t *testing.T) {
	ctx, c := start(t)
	seed(t, ctx, c)
	before := describe(t, ctx, c, testKeys)
	body := `local hs, zu = 'hs' .. 'et', 'zunion' .. 'store'
redis.call(hs, KEYS[1], 'a', 'b')
redis.call(zu, KEYS[2], 1, KEYS[3])
redis.call(string.upper('x' .. 'group'), 'CREATECONSUMER', KEYS[4], 'g', 'c2')
error({err = 'STOP here'})`
	err := c.Eval(ctx, Wrap(body), []string{"{t}new", "{t}h", "{t}z", "{t}st"}).Err()
	if errText(err) != "STOP here" {
		t.Fatalf("error %v", err)
	}
	if after := describe(t, ctx, c, testKeys); after != before {
		t.Fatalf("keyspace:\n%s\nwant:\n%s", after, before)
	}
}

// TestOtherSpelling: a command the code names in one spelling and calls at
// run time in another is journaled as the first, without asking COMMAND.
func TestOtherSpelling(t *testing.T) {
	ctx, c := start(t)
	seed(t, ctx, c)
	before := describe(t, ctx, c, testKeys)
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	body := `redis.call('HSET', KEYS[1], 'a', 'first')
redis.call(string.lower('HSET'), KEYS[1], 'b', 'second')
redis.call('Hset', KEYS[1], 'c', 'third')
error({err = 'STOP here'})`
	if err := c.Eval(ctx, Wrap(body), []string{"{t}h"}).Err(); errText(err) != "STOP here" {
		t.Fatalf("error %v", err)
	}
	if after := describe(t, ctx, c, testKeys); after != before {
		t.Fatalf("keyspace:\n%s\nwant:\n%s", after, before)
	}
	if n := calls(c.Info(ctx, "commandstats").Val(), "command|info"); n > 0 {
		t.Errorf("COMMAND INFO asked %d times", n)
	}
}

// TestFunctionsLibrary loads a library with a helper, a transactional
// function and a plain one, and checks both behaviours through FCALL.
func TestFunctionsLibrary(t *testing.T) {
	ctx, c := start(t)
	helper := "local function bump(k) redis.call('HINCRBY', k, 'n', 1) return redis.sha1hex('x') end\n"
	tx := "bump(KEYS[1]) redis.call('SET', KEYS[2], 'v') if ARGV[1] == 'fail' then error({err = 'FAIL asked'}) end return redis.status_reply('OK')\n"
	code := helper +
		"local function tx(KEYS, ARGV)\n" + Run(tx) + "end\n" +
		"local function plain(KEYS, ARGV)\n" + tx + "end\n" +
		"redis.register_function{function_name='tx', callback=tx}\n" +
		"redis.register_function{function_name='plain', callback=plain}\n" +
		"redis.register_function('level', function() return redis.LOG_WARNING + redis.REPL_ALL end)\n"
	lib := "#!lua name=t\n" + Declare(code) + code
	if err := c.FunctionLoadReplace(ctx, lib).Err(); err != nil {
		t.Fatalf("FUNCTION LOAD: %v\n%s", err, lib)
	}
	keys := []string{"{t}h", "{t}s"}
	for round := 0; round < 2; round++ {
		seed(t, ctx, c)
		before := describe(t, ctx, c, testKeys)
		if err := c.FCall(ctx, "tx", keys, "fail").Err(); errText(err) != "FAIL asked" {
			t.Fatalf("tx: error %v", err)
		}
		if after := describe(t, ctx, c, testKeys); after != before {
			t.Fatalf("tx: keyspace:\n%s\nwant:\n%s", after, before)
		}
		if err := c.FCall(ctx, "plain", keys, "fail").Err(); errText(err) != "FAIL asked" {
			t.Fatalf("plain: error %v", err)
		}
		if after := describe(t, ctx, c, testKeys); after == before {
			t.Fatal("plain: the writes were undone")
		}
		seed(t, ctx, c)
		if v, err := c.FCall(ctx, "tx", keys, "ok").Result(); v != "OK" || err != nil {
			t.Fatalf("tx: %v, %v", v, err)
		}
		if v := c.HGet(ctx, "{t}h", "n").Val(); v != "1" {
			t.Fatalf("tx: n = %q", v)
		}
	}
	if v, err := c.FCall(ctx, "level", nil).Int(); v != 6 || err != nil {
		t.Fatalf("constants through the proxy: %v, %v", v, err)
	}
}
