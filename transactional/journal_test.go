package transactional

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// state reads every key of db 0 in a comparable form, HyperLogLogs and
// expiries included, through the engine's own commands.
func state(t *testing.T, e *Engine) string {
	t.Helper()
	var b strings.Builder
	keys := mustDo(t, e, "KEYS", "*").([]any)
	var names []string
	for _, k := range keys {
		names = append(names, k.(string))
	}
	sortStrings(names)
	for _, k := range names {
		typ := fmt.Sprint(mustDo(t, e, "TYPE", k))
		var v any
		if typ == "hll" {
			v = mustDo(t, e, "PFCOUNT", k)
		} else {
			v = mustDo(t, e, "DUMP", k)
		}
		fmt.Fprintf(&b, "%s %s %q %v\n", k, typ, v, mustDo(t, e, "PEXPIRETIME", k))
	}
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// seedAll gives every type miniredis holds a key.
func seedAll(t *testing.T, e *Engine) {
	t.Helper()
	for _, c := range [][]string{
		{"SET", "s", "12"}, {"PEXPIREAT", "s", "4102444800000"},
		{"HSET", "h", "a", "1", "b", "x"},
		{"RPUSH", "l", "1", "2", "three"},
		{"SADD", "x", "1", "a"},
		{"ZADD", "z", "1.5", "m", "-2", "n"}, {"PEXPIREAT", "z", "4102444900000"},
		{"XADD", "st", "1-1", "f", "v"}, {"XGROUP", "CREATE", "st", "g", "0-0"},
		{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "st", ">"},
		{"PFADD", "p", "a", "b", "c"},
	} {
		mustDo(t, e, c...)
	}
}

// writeEverything changes every key, creates one and deletes one, then
// fails, or not.
const writeEverything = `
redis.call('INCRBY', 's', 5)
redis.call('PERSIST', 's')
redis.call('HSET', 'h', 'a', 'changed', 'c', 'new')
redis.call('LPUSH', 'l', 'x')
redis.call('SREM', 'x', '1', 'a')
redis.call('ZINCRBY', 'z', 3, 'm')
redis.call('PEXPIREAT', 'z', 4102444999000)
redis.call('XADD', 'st', '2-1', 'f', 'w')
redis.call('XACK', 'st', 'g', '1-1')
redis.call('PFADD', 'p', 'd', 'e', 'f', 'g')
redis.call('SET', 'new', 'v')
redis.call('DEL', 'h')
if ARGV[1] == 'fail' then error('injected') end
return 'ok'
`

// TestDoTransactional rolls back a failed run of a plain script, EVAL and
// FCALL, for every type miniredis holds, and keeps a successful one.
func TestDoTransactional(t *testing.T) {
	e := newEngine(t)
	mustDo(t, e, "FUNCTION", "LOAD", "#!lua name=w\nredis.register_function('w', function(KEYS, ARGV)"+writeEverything+"end)")
	for _, call := range [][]string{
		{"EVAL", writeEverything, "0"},
		{"FCALL", "w", "0"},
	} {
		mustDo(t, e, "FLUSHALL")
		seedAll(t, e)
		before := state(t, e)
		_, err := e.DoTransactional(append(call, "fail")...)
		if err == nil || !strings.Contains(err.Error(), "injected") {
			t.Fatalf("%s: got %v, want the injected error", call[0], err)
		}
		if got := state(t, e); got != before {
			t.Errorf("%s: after a failed run:\n%s\nwant\n%s", call[0], got, before)
		}
		// Without the journal, the same failure keeps its writes.
		e.Do(append(call, "fail")...)
		if state(t, e) == before {
			t.Fatalf("%s: a plain failed run changed nothing: the test proves nothing", call[0])
		}
		mustDo(t, e, "FLUSHALL")
		seedAll(t, e)
		if v, err := e.DoTransactional(append(call, "ok")...); err != nil || v != "ok" {
			t.Fatalf("%s: %v, %v", call[0], v, err)
		}
		if state(t, e) == before {
			t.Errorf("%s: a successful run was rolled back", call[0])
		}
	}
	if _, err := e.DoTransactional("GET", "s"); err == nil {
		t.Error("DoTransactional ran GET")
	}
}

// TestRefusals: a journaled run refuses what a per-key journal cannot undo,
// before it runs and even through pcall, and rolls back what it wrote.
func TestRefusals(t *testing.T) {
	e := newEngine(t)
	for _, c := range []struct{ call, want string }{
		{"redis.call('FLUSHALL')", "ERR scriptgen transactional: FLUSHALL cannot be rolled back"},
		{"redis.pcall('flushdb')", "ERR scriptgen transactional: flushdb cannot be rolled back"},
		{"redis.call('SWAPDB', 0, 1)", "ERR scriptgen transactional: SWAPDB cannot be rolled back"},
		{"redis.call('MOVE', 'k', 1)", "ERR scriptgen transactional: MOVE cannot be rolled back"},
		{"redis.call('SELECT', 1)", "ERR scriptgen transactional: SELECT cannot be rolled back"},
		{"redis.call('COPY', 'k', 'c', 'DB', 1)", "ERR scriptgen transactional: COPY ... DB cannot be rolled back"},
	} {
		mustDo(t, e, "FLUSHALL")
		mustDo(t, e, "SET", "k", "v")
		body := "redis.call('SET', 'k', 'changed')\n" + c.call + "\nreturn 1\n"
		for _, run := range []func() error{
			func() error { _, err := e.DoTransactional("EVAL", body, "0"); return err },
			func() error { _, err := e.Do("EVAL", prelude.Wrap(body), "0"); return err },
		} {
			err := run()
			if err == nil || !strings.HasPrefix(err.Error(), c.want+" script: ") {
				t.Errorf("%s: got %v, want %s", c.call, err, c.want)
			}
			if v := mustDo(t, e, "GET", "k"); v != "v" {
				t.Errorf("%s: k = %v after the refusal", c.call, v)
			}
		}
	}
	// COPY without DB is journaled, not refused.
	mustDo(t, e, "FLUSHALL")
	mustDo(t, e, "SET", "k", "v")
	if v, err := e.DoTransactional("EVAL", "return redis.call('COPY', 'k', 'c')", "0"); err != nil || v != int64(1) {
		t.Errorf("COPY: %v, %v", v, err)
	}
}

// TestHosting: only text exactly as prelude.Wrap and prelude.Declare write
// it is run with the engine's journal; anything else runs as written.
func TestHosting(t *testing.T) {
	body := "redis.call('SET', KEYS[1], 'x')\nerror('boom')\n"
	src := prelude.Wrap(body)
	if _, h := hostScript(src); h == nil {
		t.Fatal("prelude.Wrap's text not recognised")
	}
	// The declaration of one body with another body that names other
	// commands: the prelude would not journal those.
	other := prelude.Wrap("redis.call('LPUSH', KEYS[1], 'x')\n")
	cut := func(s string) int { return strings.Index(s, " return __scriptgen_run") }
	for _, tampered := range []string{
		src + "\n",
		strings.Replace(src, " end ", "  end ", 1), // in the runtime's declaration
		src[:cut(src)] + other[cut(other):],
		body,
	} {
		if got, h := hostScript(tampered); h != nil || got != tampered {
			t.Errorf("hosted a text Wrap did not write: %.60q", tampered)
		}
	}
	code := "\nlocal function f(KEYS, ARGV)\n" + prelude.Run(body) + "end\nredis.register_function('f', f)\n"
	lib := "\n-- header\n" + prelude.Declare(code) + code
	hosted, h := hostLibrary(lib)
	if h == nil || !strings.Contains(hosted, "hosted_run") || strings.Count(hosted, "\n") != strings.Count(lib, "\n") {
		t.Fatalf("library not hosted line for line:\n%s", hosted)
	}
	if _, h := hostLibrary(strings.Replace(lib, "redis.register_function('f', f)", "redis.register_function('f', f) redis.call('DEL', 'x')", 1)); h != nil {
		t.Error("hosted a library whose declaration does not match its code")
	}
}

// TestHostedMatchesPrelude runs the same wrapped text hosted and, with the
// recognition defeated by a trailing newline, as the prelude's own Lua on
// the engine: same replies, same keyspace, also when rolling back.
func TestHostedMatchesPrelude(t *testing.T) {
	e := newEngine(t)
	body := "redis.call('HSET', KEYS[1], 'f', ARGV[1])\nredis.call('RPUSH', KEYS[2], ARGV[1])\n" +
		"redis.call('SET', KEYS[3], ARGV[1], 'PXAT', 4102444800000)\n" +
		"if ARGV[2] == 'fail' then redis.call('INCR', KEYS[2]) end\nreturn redis.call('HLEN', KEYS[1])\n"
	src := prelude.Wrap(body)
	for _, mode := range []string{"fail", "ok"} {
		var results []string
		for _, text := range []string{src, src + "\n"} {
			mustDo(t, e, "FLUSHALL")
			mustDo(t, e, "HSET", "h", "a", "1")
			mustDo(t, e, "SET", "s", "old")
			v, err := e.Do("EVAL", text, "3", "h", "l", "s", "v", mode)
			msg := fmt.Sprint(v)
			if err != nil {
				msg = err.Error()[:strings.Index(err.Error(), " script: ")]
			}
			results = append(results, msg+"\n"+state(t, e))
		}
		if results[0] != results[1] {
			t.Errorf("%s: hosted\n%s\nprelude's Lua\n%s", mode, results[0], results[1])
		}
	}
}

// TestSnapshotIsDeep: writes made in place after a snapshot (an XADD
// appends to the stream miniredis holds) do not reach the snapshot.
func TestSnapshotIsDeep(t *testing.T) {
	e := newEngine(t)
	seedAll(t, e)
	before := state(t, e)
	e.m.Lock()
	db := e.m.DBLocked(0)
	var snaps []miniredis.KeySnapshot
	keys := []string{"s", "h", "l", "x", "z", "st", "p"}
	for _, k := range keys {
		snaps = append(snaps, db.Snapshot(k))
	}
	e.m.Unlock()
	for _, c := range [][]string{
		{"APPEND", "s", "x"}, {"HSET", "h", "a", "2"}, {"RPUSH", "l", "4"}, {"SADD", "x", "b"},
		{"ZADD", "z", "9", "m"}, {"XADD", "st", "5-5", "f", "v"}, {"XACK", "st", "g", "1-1"}, {"PFADD", "p", "zz", "yy"},
	} {
		mustDo(t, e, c...)
	}
	e.m.Lock()
	for i, k := range keys {
		db.RestoreSnapshot(k, snaps[i])
	}
	e.m.Unlock()
	if got := state(t, e); got != before {
		t.Errorf("restored\n%s\nwant\n%s", got, before)
	}
}

// TestExpiryAtExactMillisecond: Redis expires a key once the clock is past
// its expiry (db.c keyIsExpired: now > when), so at the exact millisecond
// the key is still there with PTTL 0.
func TestExpiryAtExactMillisecond(t *testing.T) {
	e := newEngine(t)
	mustDo(t, e, "SET", "k", "v", "PX", "1000")
	at := e.Now().Add(time.Second).UnixMilli()
	e.Advance(time.Second)
	if v := mustDo(t, e, "GET", "k"); v != "v" {
		t.Fatalf("at the expiry: GET = %v, want v", v)
	}
	if v := mustDo(t, e, "PTTL", "k"); v != int64(0) {
		t.Errorf("PTTL = %v, want 0", v)
	}
	if v := mustDo(t, e, "PEXPIRETIME", "k"); v != at {
		t.Errorf("PEXPIRETIME = %v, want %d", v, at)
	}
	if v := mustDo(t, e, "EVAL", "return redis.call('EXISTS', KEYS[1])", "1", "k"); v != int64(1) {
		t.Errorf("EXISTS from a script = %v", v)
	}
	e.Advance(time.Millisecond)
	if v := mustDo(t, e, "EXISTS", "k"); v != int64(0) {
		t.Errorf("1ms past the expiry: EXISTS = %v", v)
	}
	// Setting an expiry that is already due deletes at once, as in Redis.
	mustDo(t, e, "SET", "k", "v")
	mustDo(t, e, "PEXPIREAT", "k", fmt.Sprint(e.Now().UnixMilli()))
	if v := mustDo(t, e, "EXISTS", "k"); v != int64(0) {
		t.Errorf("PEXPIREAT now: EXISTS = %v", v)
	}
}
