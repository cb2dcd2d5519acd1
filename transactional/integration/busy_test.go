package integration

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
)

// TestBusyAndKill compares what other clients see while a script runs
// past the busy threshold (BUSY), SCRIPT KILL / FUNCTION KILL, and what the
// killed script's caller gets, on a real redis-server and on the engine.
func TestBusyAndKill(t *testing.T) {
	srv := redistest.Start(t, "busy-reply-threshold 100")
	e := transactional.New(transactional.WithBusyReplyThreshold(100*time.Millisecond), transactional.WithTimeLimit(20*time.Second))
	compareBusy(t, srv, e)
}

// TestBusyThresholdByConfig is TestBusyAndKill with the threshold set by
// CONFIG SET lua-time-limit (its old name) on servers started without it:
// an engine that ignored it would answer BUSY only after 20 s.
func TestBusyThresholdByConfig(t *testing.T) {
	srv := redistest.Start(t)
	e := transactional.New(transactional.WithTimeLimit(20 * time.Second))
	if r := dial(t, srv.Addr).do(t, "CONFIG", "SET", "lua-time-limit", "100"); string(r) != "+OK\r\n" {
		t.Fatalf("CONFIG SET lua-time-limit 100 on redis-server: %q", r)
	}
	if r, err := e.Do("CONFIG", "SET", "lua-time-limit", "100"); err != nil || r != transactional.Status("OK") {
		t.Fatalf("CONFIG SET lua-time-limit 100 on the engine: %v, %v", r, err)
	}
	compareBusy(t, srv, e)
}

// compareBusy runs the busy scenario on the server and on the engine,
// compares every reply, and closes both.
func compareBusy(t *testing.T, srv *redistest.Server, e *transactional.Engine) {
	t.Cleanup(e.Close)
	addr, err := e.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	want := busyScenario(t, srv.Addr)
	got := busyScenario(t, addr.String())
	if len(want) != len(got) {
		t.Fatalf("redis: %q\nengine: %q", want, got)
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("step %d:\n redis:  %q\n engine: %q", i, want[i], got[i])
		}
	}
	// Leave the real server stuck in an unkillable script no longer than
	// needed: SHUTDOWN NOSAVE is the only way out, as its error says.
	dial(t, srv.Addr).c.Write(encode("SHUTDOWN", "NOSAVE"))
	srv.Stop()
}

var durationMs = regexp.MustCompile(`(duration_ms\r\n:)\d+`)

// busyScenario runs the scenario against addr and returns every reply.
func busyScenario(t *testing.T, addr string) []string {
	var out []string
	ctl := dial(t, addr)
	ctl.do(t, "FUNCTION", "LOAD", "REPLACE", "#!lua name=busy\nredis.register_function('spin', function()\n  while true do end\nend)")

	spin := func(args ...string) string {
		a := dial(t, addr)
		done := make(chan []byte, 1)
		go func() {
			a.c.SetDeadline(time.Now().Add(30 * time.Second))
			a.c.Write(encode(args...))
			raw, _ := readRaw(a.r)
			done <- raw
		}()
		waitBusy(t, addr)
		b := dial(t, addr)
		out = append(out, string(b.do(t, "PING")), string(b.do(t, "GET", "x")))
		// FUNCTION STATS answers while a function runs, and says so; the
		// duration is the only part that differs.
		stats := durationMs.ReplaceAllString(string(b.do(t, "FUNCTION", "STATS")), "${1}N")
		out = append(out, stats)
		if strings.EqualFold(args[0], "FCALL") {
			out = append(out, string(b.do(t, "SCRIPT", "KILL")), string(b.do(t, "FUNCTION", "KILL")))
		} else {
			out = append(out, string(b.do(t, "FUNCTION", "KILL")), string(b.do(t, "SCRIPT", "KILL")))
		}
		select {
		case r := <-done:
			return string(r)
		case <-time.After(10 * time.Second):
			return "no reply"
		}
	}
	out = append(out, spin("EVAL", "local i = 0\nwhile true do i = i + 1 end", "0"))
	// In lower case, as go-redis and redis-cli send it: FUNCTION STATS
	// repeats the command's name as sent on Redis, in lower case on the
	// engine (miniredis hands it over upper-cased).
	out = append(out, spin("fcall", "spin", "0"))

	// A script that wrote cannot be killed.
	a := dial(t, addr)
	a.c.Write(encode("EVAL", "redis.call('SET', 'w', '1') while 1 do end", "0"))
	waitBusy(t, addr)
	b := dial(t, addr)
	out = append(out, string(b.do(t, "SCRIPT", "KILL")))
	return out
}

// waitBusy probes with PING until the server answers BUSY; bounded. Each
// probe has its own connection and a short deadline: a probe that raced the
// script's start may wait for the script to end (a command the engine
// already passed on to miniredis waits for its lock, as a command Redis had
// already read would), and must not hold up the next one.
func waitBusy(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c := dial(t, addr)
		c.c.SetDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := c.c.Write(encode("PING")); err == nil {
			if r, err := readRaw(c.r); err == nil && strings.HasPrefix(string(r), "-BUSY") {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the server never became BUSY")
}

func encode(args ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.Bytes()
}
