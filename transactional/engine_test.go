package transactional

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"net"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

func newEngine(t testing.TB, opts ...Option) *Engine {
	t.Helper()
	e := New(opts...)
	t.Cleanup(e.Close)
	return e
}

func mustDo(t testing.TB, e *Engine, args ...string) any {
	t.Helper()
	v, err := e.Do(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return v
}

// TestNestedPeer checks the nested peer redis.call dispatches through: it
// runs in the DB it is given and without locking (a command on it while
// miniredis's lock is held would otherwise deadlock).
func TestNestedPeer(t *testing.T) {
	e := newEngine(t)
	mustDo(t, e, "SELECT", "3")
	mustDo(t, e, "SET", "k", "in3")
	mustDo(t, e, "SELECT", "0")
	e.m.Lock()
	miniredis.PrepareNested(e.inner, 3, "sha")
	raw := e.dispatchInner([]string{"GET", "k"}, false)
	e.m.Unlock()
	if string(raw) != "$3\r\nin3\r\n" {
		t.Errorf("nested GET in db 3: %q", raw)
	}
}

// TestScriptCmdNoHandler is redis.call of a command Redis knows and
// miniredis has no handler for (LOLWUT): resolved once (scriptCmdFor), it
// goes to miniredis's Dispatch, which answers as it answers a client, on
// the first call and on the cached one alike.
func TestScriptCmdNoHandler(t *testing.T) {
	e := newEngine(t)
	names := []string{"LOLWUT", "lolwut", "LOLWUT"}
	got := mustDo(t, e, "EVAL", "return {redis.pcall('LOLWUT'), redis.pcall('lolwut'), redis.pcall('LOLWUT')}", "0")
	arr, ok := got.([]any)
	if !ok || len(arr) != len(names) {
		t.Fatalf("reply %#v, want %d errors", got, len(names))
	}
	for i, v := range arr {
		_, want := e.Do(names[i])
		if want == nil {
			t.Fatal("miniredis has LOLWUT now: pick another command it lacks")
		}
		if err, ok := v.(*Error); !ok || err.Error() != want.Error() {
			t.Errorf("call %d: %#v, want the error %q", i+1, v, want)
		}
	}
	if n := len(e.scriptCmds); n != 2 {
		t.Errorf("%d names resolved, want 2 (LOLWUT, lolwut)", n)
	}
	// Made-up names: answered every one, kept up to the bound.
	got = mustDo(t, e, "EVAL", "local n = 0 for i = 1, 1500 do if redis.pcall('x' .. i).err then n = n + 1 end end return n", "0")
	if got != int64(1500) || len(e.scriptCmds) != maxScriptCmds {
		t.Errorf("%v errors for 1500 made-up names, %d names kept; want 1500 and %d", got, len(e.scriptCmds), maxScriptCmds)
	}
}

// TestScriptCmdHits is redis.call with names that come and go in
// scriptCmdFor's cache of recent names (cmdHits): constants, the same
// names built anew on each call, and more names than the cache has
// entries, each answered as its own command.
func TestScriptCmdHits(t *testing.T) {
	e := newEngine(t)
	mustDo(t, e, "SET", "k", "hello")
	script := `
local names = {'GET', 'EXISTS', 'STRLEN', 'TYPE', 'TTL', 'GETRANGE', 'SUBSTR', 'PTTL', 'EXISTS', 'GETEX'}
local want = {'hello', 1, 5, 'string', -1, 'hel', 'hel', -1, 1, 'hello'}
for i = 1, 200 do
  local j = i % #names + 1
  local name = names[j]
  if i % 3 == 0 then name = string.sub(name .. 'x', 1, #name) end -- a new string
  local args = {'k'}
  if name == 'GETRANGE' or name == 'SUBSTR' then args = {'k', 0, 2} end
  local got = redis.call(name, unpack(args))
  if type(got) == 'table' then got = got.ok end
  if got ~= want[j] then
    return name .. ' (call ' .. i .. '): ' .. tostring(got)
  end
end
return 'ok'`
	if got := mustDo(t, e, "EVAL", script, "0"); got != "ok" {
		t.Fatal(got)
	}
}

func TestDoReplyTypes(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		args []string
		want any
	}{
		{[]string{"SET", "k", "v"}, Status("OK")},
		{[]string{"GET", "k"}, "v"},
		{[]string{"GET", "missing"}, nil},
		{[]string{"INCR", "n"}, int64(1)},
		{[]string{"RPUSH", "l", "a", "b"}, int64(2)},
		{[]string{"LRANGE", "l", "0", "-1"}, []any{"a", "b"}},
		{[]string{"EVAL", "return {1, 'x', {ok='S'}, false}", "0"}, []any{int64(1), "x", Status("S"), nil}},
		{[]string{"EVAL", "redis.setresp(3); return {double = 1.5}", "0"}, "1.5"},
	}
	for _, tt := range tests {
		got, err := e.Do(tt.args...)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q = %#v, want %#v", tt.args, got, tt.want)
		}
	}
	v, err := e.Do("LPUSH", "k", "x")
	var re *Error
	if !errors.As(err, &re) || v != any(re) || !strings.HasPrefix(re.Msg, "WRONGTYPE ") {
		t.Errorf("LPUSH on a string: %#v, %v", v, err)
	}

	mustDo(t, e, "HELLO", "3")
	defer e.Do("HELLO", "2")
	if got := mustDo(t, e, "EVAL", "return {map = {a = 1}}", "0"); !reflect.DeepEqual(got, Map{{Key: "a", Value: int64(1)}}) {
		t.Errorf("RESP3 map: %#v", got)
	}
	if got := mustDo(t, e, "EVAL", "redis.setresp(3); return {true, {double = 2.5}, {set = {x = true}}}", "0"); !reflect.DeepEqual(got, []any{true, 2.5, Set{"x"}}) {
		t.Errorf("RESP3 bool/double/set: %#v", got)
	}
}

func TestVirtualClock(t *testing.T) {
	start := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	e := newEngine(t, WithClock(start))
	if !e.Now().Equal(start) {
		t.Fatalf("Now = %v", e.Now())
	}
	tm := mustDo(t, e, "EVAL", "return redis.call('TIME')", "0").([]any)
	if tm[0] != fmt.Sprint(start.Unix()) {
		t.Errorf("TIME in a script = %v, want %d", tm, start.Unix())
	}
	mustDo(t, e, "SET", "k", "v", "EX", "10")
	e.Advance(9 * time.Second)
	if got := mustDo(t, e, "EXISTS", "k"); got != int64(1) {
		t.Fatalf("expired too early: %v", got)
	}
	if got := mustDo(t, e, "EVAL", "return redis.call('TTL', KEYS[1])", "1", "k"); got != int64(1) {
		t.Errorf("TTL after 9s of 10 = %v", got)
	}
	e.Advance(2 * time.Second)
	if got := mustDo(t, e, "EXISTS", "k"); got != int64(0) {
		t.Errorf("not expired after 11s: %v", got)
	}
	mustDo(t, e, "SET", "j", "v")
	mustDo(t, e, "EXPIREAT", "j", fmt.Sprint(start.Add(time.Hour).Unix()))
	e.SetTime(start.Add(2 * time.Hour))
	if got := mustDo(t, e, "GET", "j"); got != nil {
		t.Errorf("EXPIREAT key survived SetTime past it: %v", got)
	}
}

// TestRealTimeExpiry: on the wall clock an absolute expiry reads back as
// set, to the millisecond (miniredis alone reads it back short when the
// clock stands between two milliseconds), and keys still expire.
func TestRealTimeExpiry(t *testing.T) {
	e := newEngine(t, WithRealTime())
	at := fmt.Sprint(time.Now().Add(time.Hour).UnixMilli())
	for i := 0; i < 50; i++ {
		mustDo(t, e, "SET", "k", "v")
		mustDo(t, e, "PEXPIREAT", "k", at)
		if got := mustDo(t, e, "PEXPIRETIME", "k"); fmt.Sprint(got) != at {
			t.Fatalf("PEXPIRETIME = %v, want %s", got, at)
		}
		if got := mustDo(t, e, "EVAL", "return redis.call('PEXPIRETIME', KEYS[1])", "1", "k"); fmt.Sprint(got) != at {
			t.Fatalf("PEXPIRETIME in a script = %v, want %s", got, at)
		}
		time.Sleep(100 * time.Microsecond)
	}
	mustDo(t, e, "SET", "short", "v", "PX", "5")
	deadline := time.Now().Add(5 * time.Second)
	for mustDo(t, e, "EXISTS", "short") != int64(0) {
		if time.Now().After(deadline) {
			t.Fatal("a 5 ms key still exists after 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestScriptReturningFunction(t *testing.T) {
	// miniredis's own EVAL panics here.
	e := newEngine(t)
	if got := mustDo(t, e, "EVAL", "return function() end", "0"); got != nil {
		t.Errorf("got %#v", got)
	}
}

func TestTimeLimit(t *testing.T) {
	e := newEngine(t, WithTimeLimit(100*time.Millisecond))
	for _, src := range []string{
		"while true do end",
		"while true do pcall(function() while true do end end) end",
		"redis.call('SET', 'w', '1')\nwhile true do end",
	} {
		_, err := e.Do("EVAL", src, "0")
		if err == nil || !strings.HasPrefix(err.Error(), msgTimeLimit+" script: ") {
			t.Errorf("%q: %v", src, err)
		}
	}
	// The keyspace is not left locked, and the write before the loop stays
	// (Redis does not roll back).
	if got := mustDo(t, e, "GET", "w"); got != "1" {
		t.Errorf("GET w = %#v", got)
	}
	_, err := e.Do("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function() return 1 end)\nwhile true do end")
	if err == nil || err.Error() != loadTimeoutText {
		t.Errorf("endless FUNCTION LOAD: %v", err)
	}
	if _, err := e.Do("FCALL", "f", "0"); err == nil || err.Error() != miniredis.MsgFunctionNotFound {
		t.Errorf("a library whose load timed out was installed: %v", err)
	}
}

// loadTimeoutText is redis-server 7.0.15's reply to a library body that
// runs past LOAD_TIMEOUT_MS (the inner ERR is Redis's too).
const loadTimeoutText = "ERR Error registering functions: ERR FUNCTION LOAD timeout"

// TestLoadTimeoutWithoutTimeLimit: FUNCTION LOAD stops an endless library
// body after Redis's 500 ms even when scripts have no time limit.
func TestLoadTimeoutWithoutTimeLimit(t *testing.T) {
	e := newEngine(t, WithTimeLimit(0))
	ok, err := doWithin(e, 20*time.Second, "FUNCTION", "LOAD", "#!lua name=l\nwhile true do end")
	if !ok {
		t.Fatal("an endless FUNCTION LOAD was not stopped")
	}
	if err == nil || err.Error() != loadTimeoutText {
		t.Errorf("endless FUNCTION LOAD: %v", err)
	}
	// The load's timer must not stop a script that runs after it, in the
	// load's 500 ms: without a time limit, scripts have none, and only
	// SCRIPT KILL (sent a second later) ends this one.
	addr, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, e, "FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function() return 1 end)")
	go func() {
		time.Sleep(time.Second)
		if c, err := net.Dial("tcp", addr.String()); err == nil {
			c.Write([]byte("SCRIPT KILL\r\n"))
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			c.Read(make([]byte, 64))
			c.Close()
		}
	}()
	ok, err = doWithin(e, 20*time.Second, "EVAL", "while true do end", "0")
	if !ok || err == nil || !strings.HasPrefix(err.Error(), miniredis.MsgScriptKilled) {
		t.Errorf("a script after FUNCTION LOAD ended with %v (returned: %v), want SCRIPT KILL's error", err, ok)
	}
}

// doWithin runs e.Do(args...) and returns its error; ok is false if it
// has not returned within d (it is left running).
func doWithin(e *Engine, d time.Duration, args ...string) (ok bool, err error) {
	done := make(chan error, 1)
	go func() {
		_, err := e.Do(args...)
		done <- err
	}()
	select {
	case err := <-done:
		return true, err
	case <-time.After(d):
		return false, nil
	}
}

func TestListenPasswordAndAtomicity(t *testing.T) {
	e := newEngine(t, WithPassword("s3cret"))
	addr, err := e.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	anon := redis.NewClient(&redis.Options{Addr: addr.String(), MaxRetries: -1})
	defer anon.Close()
	for _, cmd := range [][]any{{"GET", "k"}, {"EVAL", "return 1", "0"}, {"FUNCTION", "LIST"}} {
		if err := anon.Do(ctx, cmd...).Err(); err == nil || err.Error() != miniredis.MsgNoAuth {
			t.Errorf("%v without AUTH: %v", cmd, err)
		}
	}
	c := redis.NewClient(&redis.Options{Addr: addr.String(), Password: "s3cret", PoolSize: 4})
	defer c.Close()

	// A read-modify-write script is atomic: concurrent runs never lose an
	// increment, because a script holds the keyspace for its whole run.
	const script = "local v = tonumber(redis.call('GET', KEYS[1]) or '0')\nredis.call('SET', KEYS[1], v + 1)\nreturn v + 1"
	const workers, runs = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < runs; j++ {
				if err := c.Eval(ctx, script, []string{"counter"}).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := mustDo(t, e, "GET", "counter"); got != fmt.Sprint(workers*runs) {
		t.Errorf("counter = %v, want %d", got, workers*runs)
	}
}

func TestLog(t *testing.T) {
	var got []string
	e := newEngine(t, WithLog(func(level int, msg string) { got = append(got, fmt.Sprint(level, ":", msg)) }))
	mustDo(t, e, "EVAL", "redis.log(redis.LOG_WARNING, 'a', 1); redis.log(redis.LOG_DEBUG, 'b')", "0")
	if want := []string{"3:a 1", "0:b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %q, want %q", got, want)
	}
}

func TestStringRepIsBounded(t *testing.T) {
	e := newEngine(t)
	if got := mustDo(t, e, "EVAL", "return #string.rep('ab', 3)", "0"); got != int64(6) {
		t.Errorf("rep = %v", got)
	}
	if _, err := e.Do("EVAL", "return #string.rep('ab', 1e10)", "0"); err == nil || !strings.Contains(err.Error(), "not enough memory") {
		t.Errorf("a 20 GB string.rep: %v", err)
	}
}

func TestCoroutinesDoNotLeakGoroutines(t *testing.T) {
	e := newEngine(t)
	mustDo(t, e, "EVAL", "return 1", "0")
	before := runtime.NumGoroutine()
	for i := 0; i < 50; i++ {
		mustDo(t, e, "EVAL", "local co = coroutine.create(function() coroutine.yield(1) end); coroutine.resume(co); return 1", "0")
	}
	// A coroutine's context is cancelled through runCtx.AfterFunc, with no
	// goroutine of its own; were one started, it would exit asynchronously,
	// hence the bounded wait.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+5 {
		t.Errorf("%d goroutines after 50 scripts with a suspended coroutine, %d before", n, before)
	}
	fast := newEngine(t, WithTimeLimit(100*time.Millisecond))
	if _, err := fast.Do("EVAL", "local co = coroutine.wrap(function() while true do end end); co()", "0"); err == nil {
		t.Error("an endless loop inside a coroutine was not stopped")
	}
}

// TestClockMovesExpire moves the virtual clock in random steps, some
// landing exactly on expiries, over keys of several types with random
// TTLs, and checks after each move what Redis would answer: a key exists
// until the clock is past its expiry, with PTTL the time left, and DBSIZE
// counts only those. Half way, a hash field gets a TTL (HEXPIRE, served by
// Do), which the same moves then count down; the answers must not change.
func TestClockMovesExpire(t *testing.T) {
	e := newEngine(t)
	r := rand.New(rand.NewSource(1))
	const n = 300
	deadline := map[string]int64{} // absolute ms; absent: no TTL
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("k%d", i)
		switch i % 3 {
		case 0:
			mustDo(t, e, "SET", k, "v")
		case 1:
			mustDo(t, e, "HSET", k, "f", "v")
		default:
			mustDo(t, e, "ZADD", k, "1", "m")
		}
		if i%10 == 0 {
			continue
		}
		ms := int64(1 + r.Intn(3000))
		if i%2 == 0 {
			mustDo(t, e, "PEXPIRE", k, fmt.Sprint(ms))
		} else {
			mustDo(t, e, "EVAL", "return redis.call('PEXPIREAT', KEYS[1], ARGV[1])", "1", k, fmt.Sprint(e.Now().UnixMilli()+ms))
		}
		deadline[k] = e.Now().UnixMilli() + ms
	}
	check := func(step int) {
		t.Helper()
		now := e.Now().UnixMilli()
		live := 0
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("k%d", i)
			at, ttl := deadline[k]
			want := int64(-1)
			switch {
			case ttl && now > at:
				want = -2
			case ttl:
				want = at - now
			}
			if want != -2 {
				live++
			}
			if got := mustDo(t, e, "PTTL", k); got != want {
				t.Fatalf("step %d, %d ms in: PTTL %s = %v, want %d", step, now, k, got, want)
			}
			if want == 0 && i%3 == 0 { // keeps its expiry, due this very millisecond
				mustDo(t, e, "SET", k, "w", "KEEPTTL")
			}
		}
		if got := mustDo(t, e, "DBSIZE"); got != int64(live+1) { // +1: the hash with a field TTL, or the marker
			t.Fatalf("step %d: DBSIZE = %v, want %d", step, got, live+1)
		}
	}
	mustDo(t, e, "SET", "marker", "v")
	for step := 0; e.Now().UnixMilli() <= slices.Max(slices.Collect(maps.Values(deadline))); step++ {
		if step == 40 {
			mustDo(t, e, "DEL", "marker")
			mustDo(t, e, "HSET", "fields", "a", "1", "b", "2")
			if got := mustDo(t, e, "HEXPIRE", "fields", "100000", "FIELDS", "1", "a"); !reflect.DeepEqual(got, []any{int64(1)}) {
				t.Fatalf("HEXPIRE = %v", got)
			}
		}
		d := time.Duration(r.Intn(40)) * time.Millisecond
		if r.Intn(4) == 0 { // exactly onto the next expiry
			next := int64(-1)
			for _, at := range deadline {
				if at >= e.Now().UnixMilli() && (next < 0 || at < next) {
					next = at
				}
			}
			if next >= 0 {
				d = time.Duration(next-e.Now().UnixMilli()) * time.Millisecond
			}
		}
		e.Advance(d)
		check(step)
	}
}
