package transactional

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

// longNativeCalls are scripts that spend their time inside one call of a
// Go-implemented function, where the VM's own look at the kill flag
// between instructions never comes.
var longNativeCalls = map[string]string{
	"pattern backtracking": "return string.find(string.rep('a', 5000), string.rep('a?', 5000) .. string.rep('a', 5000))",
	"gsub backtracking":    "return string.gsub(string.rep('a', 3000), string.rep('a?', 3000) .. string.rep('a', 3000) .. 'b', '')",
	"string.rep in a loop": "while true do local s = string.rep('x', 2^27) end",
	"concat of a huge table": "local t = {} for i = 1, 2^20 do t[i] = 'x' end " +
		"setmetatable(t, {}) while true do table.concat(t) end",
	"sort, slow comparator": "local t = {} for i = 1, 2^16 do t[i] = (i * 7919) % 2^16 end " +
		"table.sort(t, function(a, b) for j = 1, 1000 do end return a < b end)",
	"sort of a huge table": "local t = {} for i = 1, 2^21 do t[i] = (i * 7919) % 2^21 end while true do table.sort(t) " +
		"for i = 1, 2^21, 2 do t[i] = -t[i] end end",
	"cjson of shared subtables":       "local t = {1} for i = 1, 30 do t = {t, t, t, t} end return cjson.encode(t)",
	"cmsgpack of a self-nested table": "local t = {} for i = 1, 8 do t[i] = t end return cmsgpack.pack(t)",
	"cjson.decode in a loop":          "local s = '[' .. string.rep('1,', 2^20) .. '1]' while true do cjson.decode(s) end",
}

// clientOf serves e on a loopback port and returns a client of it.
func clientOf(t *testing.T, e *Engine) *redis.Client {
	t.Helper()
	addr, err := e.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: addr.String(), ReadTimeout: 30 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// evalStops runs src on c in the background and returns a channel that gets
// its error and how long it ran.
func evalStops(c *redis.Client, src string) <-chan stopped {
	done := make(chan stopped, 1)
	go func() {
		start := time.Now()
		err := c.Eval(context.Background(), src, nil).Err()
		done <- stopped{err, time.Since(start)}
	}()
	return done
}

type stopped struct {
	err  error
	took time.Duration
}

// TestTimeLimitStopsNativeCalls: every long native call ends at the time
// limit, over a real socket, within the limit and a second. The bound is a
// wait for a script that would otherwise never stop, not a speed test.
func TestTimeLimitStopsNativeCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each script up to its time limit")
	}
	const limit = 300 * time.Millisecond
	e := newEngine(t, WithRealTime(), WithTimeLimit(limit))
	c := clientOf(t, e)
	for name, src := range longNativeCalls {
		t.Run(name, func(t *testing.T) {
			select {
			case s := <-evalStops(c, src):
				if s.err == nil || !strings.HasPrefix(s.err.Error(), "ERR Script killed by scriptgen") {
					t.Errorf("after %v: %v, want the time limit's error", s.took, s.err)
				}
				if s.took > limit+time.Second {
					t.Errorf("stopped after %v, more than the time limit and a second", s.took)
				}
			case <-time.After(limit + 10*time.Second):
				t.Fatal("never stopped")
			}
		})
	}
}

// TestScriptKillStopsNativeCalls: SCRIPT KILL from another connection ends
// every long native call, within a second.
func TestScriptKillStopsNativeCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each script until it is killed")
	}
	const busy = 200 * time.Millisecond
	e := newEngine(t, WithRealTime(), WithTimeLimit(0), WithBusyReplyThreshold(busy))
	c := clientOf(t, e)
	ctl := clientOf(t, e)
	for name, src := range longNativeCalls {
		t.Run(name, func(t *testing.T) {
			done := evalStops(c, src)
			// Past the scripts' set-up, into their long call.
			time.Sleep(500 * time.Millisecond)
			var killed time.Time
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if err := ctl.Do(context.Background(), "SCRIPT", "KILL").Err(); err == nil {
					killed = time.Now()
					break
				}
			}
			if killed.IsZero() {
				t.Fatal("SCRIPT KILL never accepted")
			}
			select {
			case s := <-done:
				if s.err == nil || !strings.Contains(s.err.Error(), "ERR Script killed by user with SCRIPT KILL") {
					t.Errorf("%v, want SCRIPT KILL's error", s.err)
				}
				if after := time.Since(killed); after > time.Second {
					t.Errorf("stopped %v after SCRIPT KILL", after)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("never stopped")
			}
		})
	}
}

// TestLuaMemoryLimit: a script that grows the heap past the limit fails as
// Redis's Lua fails when its allocator does (checked by hand against a
// redis-server under ulimit -v: "ERR Error running script <sha>, not
// enough memory"), and the server goes on serving.
func TestLuaMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates up to the limit")
	}
	e := newEngine(t, WithRealTime(), WithTimeLimit(20*time.Second), WithLuaMemoryLimit(64<<20))
	c := clientOf(t, e)
	for name, src := range map[string]string{
		"string.rep":     "return #string.rep('ab', 2^26)",
		"table growth":   "local t = {} for i = 1, 2^30 do t[i] = {i} end",
		"concatenation":  "local t = {} for i = 1, 2^30 do t[i] = string.rep('x', 1024) .. i end",
		"string in loop": "local s = '' while true do s = s .. string.rep('x', 2^20) end",
	} {
		t.Run(name, func(t *testing.T) {
			select {
			case s := <-evalStops(c, src):
				want := "ERR Error running script " + sha1Hex(src) + ", not enough memory"
				if s.err == nil || s.err.Error() != want {
					t.Errorf("after %v: %v, want %q", s.took, s.err, want)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("never stopped")
			}
			if got, err := c.Eval(context.Background(), "return 1", nil).Result(); err != nil || got != int64(1) {
				t.Errorf("after the failure: %v, %v", got, err)
			}
		})
	}
}

// TestBusyDuringNativeCall: while a script is inside a long native call,
// other clients get Redis's BUSY after the threshold, and SCRIPT KILL of a
// script that wrote gets UNKILLABLE (texts compared with redis-server by
// integration.TestBusyAndKill); the time limit still ends it.
func TestBusyDuringNativeCall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a script up to its time limit")
	}
	const limit = 2 * time.Second
	e := newEngine(t, WithRealTime(), WithTimeLimit(limit), WithBusyReplyThreshold(100*time.Millisecond))
	c := clientOf(t, e)
	other := clientOf(t, e)
	ctx := context.Background()
	done := evalStops(c, "redis.call('SET', 'w', '1') "+longNativeCalls["pattern backtracking"])
	time.Sleep(300 * time.Millisecond)
	if err := other.Ping(ctx).Err(); err == nil || err.Error() != miniredis.MsgBusy {
		t.Errorf("PING during the script: %v, want BUSY", err)
	}
	if err := other.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || err.Error() != miniredis.MsgUnkillable {
		t.Errorf("SCRIPT KILL after a write: %v, want UNKILLABLE", err)
	}
	select {
	case s := <-done:
		if s.err == nil || !strings.HasPrefix(s.err.Error(), "ERR Script killed by scriptgen") {
			t.Errorf("%v, want the time limit's error", s.err)
		}
	case <-time.After(limit + 10*time.Second):
		t.Fatal("never stopped")
	}
}
