package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done := startServe(t, ctx, "-addr", "127.0.0.1:0", "-requirepass", "s3cret")

	noAuth := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, MaxRetries: -1})
	defer noAuth.Close()
	if err := noAuth.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("ping without password: %v, want NOAUTH", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, Password: "s3cret", DisableIdentity: true})
	defer rdb.Close()
	got, err := rdb.Eval(ctx, "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])", []string{"k"}, "v").Result()
	if err != nil || got != "v" {
		t.Fatalf("EVAL = %v, %v", got, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context was cancelled")
	}
}

func TestServeUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"-addr", "0.0.0.0:0"}, `refusing to listen on non-loopback address "0.0.0.0:0" without -allow-remote`},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"-addr", "127.0.0.1:-1"}, "scriptgen serve: listen tcp"},
	} {
		var stderr strings.Builder
		code := RunContext(context.Background(), append([]string{"serve"}, tt.args...), nil, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("serve %q: code %d stderr %q", tt.args, code, stderr.String())
		}
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, ExitUsage},
		{[]string{"nope"}, ExitUsage},
		{[]string{"help"}, ExitOK},
		{[]string{"-h"}, ExitOK},
		{[]string{"version"}, ExitOK},
		{[]string{"help", "serve"}, ExitOK},
		{[]string{"help", "crc"}, ExitOK},
		{[]string{"lint"}, ExitUsage},
		{[]string{"gen"}, ExitUsage},
		{[]string{"bundle"}, ExitUsage},
		{[]string{"test", "/nonexistent"}, ExitUsage},
	} {
		var out, errOut strings.Builder
		if got := RunContext(context.Background(), tc.args, nil, &out, &errOut); got != tc.code {
			t.Errorf("scriptgen %v: exit %d, want %d (stderr %q)", tc.args, got, tc.code, errOut.String())
		}
	}
}
