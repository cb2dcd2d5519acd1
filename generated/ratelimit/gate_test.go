package ratelimit_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/clustertest"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// gateSHA is the SHA-1 of the bundled EVAL file, which the wrapper must use.
func gateSHA(t testing.TB) string {
	src, err := os.ReadFile("../bundle/ratelimit/gate.lua")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum(src)
	return hex.EncodeToString(sum[:])
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkGate runs the gate's contract on one key: admit, refuse with a wait
// of at most one interval, admit again once wait() let that time pass.
func checkGate(t *testing.T, ctx context.Context, s *ratelimit.Scripts, c ratelimit.Scripter, key string, interval time.Duration, wait func(time.Duration)) {
	t.Helper()
	keys := ratelimit.GateKeys{Gate: key}
	args := ratelimit.GateArgs{IntervalMs: interval.Milliseconds()}
	r, err := s.Gate(ctx, c, keys, args)
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	if !r.Allowed || r.RetryAfterMs != -1 || r.ResetAfterMs != interval.Milliseconds() {
		t.Fatalf("first call = %+v, want allowed with no wait", r)
	}
	r, err = s.Gate(ctx, c, keys, args)
	if err != nil {
		t.Fatalf("second call: %v", err)
	}
	if r.Allowed || r.RetryAfterMs <= 0 || r.RetryAfterMs > interval.Milliseconds() {
		t.Fatalf("second call = %+v, want refused with 0 < retry_after_ms <= %d", r, interval.Milliseconds())
	}
	// A real clock may need a second look: PTTL is rounded, and a loaded
	// machine may wake early. Bounded in count and in time.
	deadline := time.Now().Add(5 * time.Second)
	for attempt := 0; ; attempt++ {
		wait(time.Duration(r.RetryAfterMs)*time.Millisecond + time.Millisecond)
		r, err = s.Gate(ctx, c, keys, args)
		if err != nil {
			t.Fatalf("call after the interval: %v", err)
		}
		if r.Allowed {
			break
		}
		if attempt == 4 || time.Now().After(deadline) {
			t.Fatalf("still refused after waiting out retry_after_ms %d times: %+v", attempt+1, r)
		}
	}
}

func TestGateRedis(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	var s ratelimit.Scripts

	// The first call meets an empty script cache: EVALSHA, NOSCRIPT, EVAL.
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	checkGate(t, ctx, &s, c, "gate:{user42}:feeding", 50*time.Millisecond, time.Sleep)
	exists, err := c.ScriptExists(ctx, gateSHA(t)).Result()
	if err != nil || !exists[0] {
		t.Fatalf("SCRIPT EXISTS of the bundle's SHA-1 = %v, %v: the wrapper did not run the bundled source", exists, err)
	}

	// A flush between calls is recovered the same way.
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: "gate:{user43}:feeding"}, ratelimit.GateArgs{IntervalMs: 60_000})
	if err != nil || !r.Allowed {
		t.Fatalf("after SCRIPT FLUSH: %+v, %v", r, err)
	}
}

func TestGateRedisScriptError(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	_, err := new(ratelimit.Scripts).Gate(ctx, c, ratelimit.GateKeys{Gate: "g"}, ratelimit.GateArgs{IntervalMs: 0})
	var rerr redis.Error
	if !errors.As(err, &rerr) || !strings.Contains(err.Error(), "interval_ms must be a positive integer") {
		t.Fatalf("interval 0: got %v, want the script's error reply", err)
	}
	if n, err := c.Exists(ctx, "g").Result(); err != nil || n != 0 {
		t.Fatalf("a refused call created the key: %d, %v", n, err)
	}
}

func TestGateRedisFunctions(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	s := &ratelimit.Scripts{Functions: true}
	if err := s.Load(ctx, c); err != nil {
		t.Fatal(err)
	}
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "ratelimit"}).Result()
	if err != nil || len(libs) != 1 {
		t.Fatalf("FUNCTION LIST ratelimit = %v, %v", libs, err)
	}
	checkGate(t, ctx, s, c, "gate:{a}", 50*time.Millisecond, time.Sleep)

	// After FUNCTION FLUSH a call finds the library missing, loads it and retries.
	if err := c.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: "gate:{b}"}, ratelimit.GateArgs{IntervalMs: 60_000})
	if err != nil || !r.Allowed {
		t.Fatalf("after FUNCTION FLUSH: %+v, %v", r, err)
	}
	// Loading again is a version check only: the library is not replaced.
	before, err := c.FunctionStats(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(ctx, c); err != nil {
		t.Fatal(err)
	}
	after, err := c.FunctionStats(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before.Engines) != fmt.Sprint(after.Engines) {
		t.Fatalf("second Load changed the engines: %v -> %v", before.Engines, after.Engines)
	}
}

// TestGateRedisFunctionsVersion loads a library of the same name that
// reports another version, as an older deployment would: Load replaces it.
func TestGateRedisFunctionsVersion(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	old := "#!lua name=ratelimit\nredis.register_function{function_name='ratelimit_version', callback=function() return 'old' end, flags={'no-writes'}}\n"
	if err := c.FunctionLoad(ctx, old).Err(); err != nil {
		t.Fatal(err)
	}
	s := &ratelimit.Scripts{Functions: true}
	if err := s.Load(ctx, c); err != nil {
		t.Fatal(err)
	}
	v, err := c.FCallRO(ctx, "ratelimit_version", nil).Text()
	if err != nil || v == "old" {
		t.Fatalf("ratelimit_version after Load = %q, %v", v, err)
	}
	r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: "x"}, ratelimit.GateArgs{IntervalMs: 1000})
	if err != nil || !r.Allowed {
		t.Fatalf("gate after Load: %+v, %v", r, err)
	}
}

func TestGateRedisPipeline(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	var s ratelimit.Scripts
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	pipe := c.Pipeline()
	args := ratelimit.GateArgs{IntervalMs: 60_000}
	a1 := s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: "p:{a}"}, args)
	set := pipe.Set(ctx, "other", "v", 0)
	a2 := s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: "p:{a}"}, args)
	b1 := s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: "p:{b}"}, args)

	if _, err := s.Gate(ctx, pipe, ratelimit.GateKeys{Gate: "p:{c}"}, args); err == nil {
		t.Fatal("Gate on a pipeline returned no error; its reply cannot be known before Exec")
	}
	if _, err := s.Exec(ctx, pipe); err != nil {
		t.Fatalf("Exec after SCRIPT FLUSH: %v", err)
	}
	if err := set.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		cmd     ratelimit.GateCmd
		allowed bool
	}{{"first on {a}", a1, true}, {"second on {a}", a2, false}, {"first on {b}", b1, true}} {
		r, err := tc.cmd.Result()
		if err != nil || r.Allowed != tc.allowed {
			t.Errorf("%s: %+v, %v; want allowed=%v", tc.name, r, err, tc.allowed)
		}
	}
	// The replay loaded the script: the next pipeline needs no replay.
	a3 := s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: "p:{a}"}, args)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("plain Exec after the replay: %v", err)
	}
	if r, err := a3.Result(); err != nil || r.Allowed {
		t.Fatalf("third on {a}: %+v, %v; want refused", r, err)
	}
}

func TestGateCluster(t *testing.T) {
	cl := clustertest.Start(t)
	c := cl.Client(t)
	ctx := ctxT(t)

	// Keys on all three primaries, so that every one of them must load the script.
	keys := []string{"gate:{a}", "gate:{b}", "gate:{c}", "gate:{d}", "gate:{e}", "gate:{f}"}
	for _, mode := range []struct {
		name string
		s    *ratelimit.Scripts
	}{{"eval", &ratelimit.Scripts{}}, {"functions", &ratelimit.Scripts{Functions: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			s := mode.s
			if s.Functions {
				if err := s.Load(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			args := ratelimit.GateArgs{IntervalMs: 60_000}
			prefix := mode.name + ":"
			for _, k := range keys {
				if r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: prefix + k}, args); err != nil || !r.Allowed {
					t.Fatalf("%s: %+v, %v", k, r, err)
				}
			}
			// Flush one primary: the calls routed there must recover, directly and in a pipeline.
			flushed, err := c.MasterForKey(ctx, prefix+keys[0])
			if err != nil {
				t.Fatal(err)
			}
			flush := func() {
				if s.Functions {
					err = flushed.FunctionFlush(ctx).Err()
				} else {
					err = flushed.ScriptFlush(ctx).Err()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			flush()
			if r, err := s.Gate(ctx, c, ratelimit.GateKeys{Gate: prefix + keys[0]}, args); err != nil || r.Allowed {
				t.Fatalf("after the flush: %+v, %v; want refused", r, err)
			}
			flush()
			pipe := c.Pipeline()
			var cmds []ratelimit.GateCmd
			for _, k := range keys {
				cmds = append(cmds, s.GateCmd(ctx, pipe, ratelimit.GateKeys{Gate: prefix + k + ":2"}, args))
			}
			if _, err := s.Exec(ctx, pipe); err != nil {
				t.Fatalf("pipeline after the flush: %v", err)
			}
			for i, cmd := range cmds {
				if r, err := cmd.Result(); err != nil || !r.Allowed {
					t.Errorf("pipelined %s: %+v, %v", keys[i], r, err)
				}
			}
		})
	}
}
