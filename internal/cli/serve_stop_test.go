package cli

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestServeStopsWithScriptRunning: an interrupt (RunContext's context,
// which Run cancels on SIGINT and SIGTERM) ends serve within a second even
// while a script is stuck in one long native call and the time limit is
// off. The bound is a wait for a server that would otherwise never stop.
func TestServeStopsWithScriptRunning(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done := startServe(t, ctx, "-addr", "127.0.0.1:0", "-time-limit", "0")

	rdb := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, MaxRetries: -1, ReadTimeout: 30 * time.Second})
	defer rdb.Close()
	evalDone := make(chan error, 1)
	go func() {
		evalDone <- rdb.Eval(context.Background(),
			"return string.find(string.rep('a', 5000), string.rep('a?', 5000) .. string.rep('a', 5000))", nil).Err()
	}()
	// Let the script get into the matcher.
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-evalDone:
		t.Fatalf("the script ended by itself: %v", err)
	default:
	}
	start := time.Now()
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exited %d", code)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("serve took %v to stop", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop with a script running")
	}
}

// startServe runs serve with args in-process until ctx is done, and
// returns the address it listens on and a channel that gets its exit code.
func startServe(t *testing.T, ctx context.Context, args ...string) (string, <-chan int) {
	t.Helper()
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- RunContext(ctx, append([]string{"serve"}, args...), nil, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v (stderr %q)", err, stderr.String())
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "scriptgen serve: listening on ")
	if !ok {
		t.Fatalf("unexpected line %q", line)
	}
	go io.Copy(io.Discard, pr)
	return addr, done
}

func TestMemorySizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "1kb": 1024, "1k": 1000, "64MB": 64 << 20, "1gb": 1 << 30, "2g": 2e9, "10b": 10} {
		var m memorySize
		if err := m.Set(in); err != nil || int64(m) != want {
			t.Errorf("%q: %d, %v; want %d", in, m, err, want)
		}
	}
	for _, in := range []string{"", "gb", "-1", "1tb", "x", "99999999999gb"} {
		var m memorySize
		if err := m.Set(in); err == nil {
			t.Errorf("%q: %d, want an error", in, m)
		}
	}
}
