package cli

import (
	"context"
	"io"
	"path/filepath"
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
		{[]string{"-addr", "0.0.0.0:0", "-allow-remote"}, "refusing -allow-remote without -requirepass"},
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

// TestExitCodeTable holds every command to one table: 0 clean, 1 findings
// or failures, 2 usage, unreadable input or a syntax error.
func TestExitCodeTable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ok/a.lua":           "--! name: a\n--! doc: Reads a.\n--! key: k\nreturn redis.call('GET', KEYS[1])\n",
		"ok/a_test.lua":      "function test_a() t.eq(1, 1) end\n",
		"finding/a.lua":      "--! name: a\n--! key: k\nreturn redis.call('GET', KEYS[2])\n",
		"header/a.lua":       "--! name: a\n--! key: k\n--! flags: nonsense\nreturn redis.call('GET', KEYS[1])\n",
		"syntax/a.lua":       "--! name: a\n--! key: k\nreturn redis.call('GET', KEYS[1]\n",
		"syntax/a_test.lua":  "function test_a() end\n",
		"failing/a.lua":      "--! name: a\n--! key: k\nreturn redis.call('GET', KEYS[1])\n",
		"failing/a_test.lua": "function test_a() t.eq(1, 2) end\n",
		"tsyntax/a_test.lua": "function test_a() t.eq(1, 2\n",
	}
	for n, s := range files {
		write(t, filepath.Join(dir, n), s)
	}
	at := func(p string) string { return filepath.Join(dir, p) }
	out := func(p string) string { return filepath.Join(t.TempDir(), p) }
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"lint", at("ok")}, ExitOK},
		{[]string{"lint", at("finding")}, ExitFindings},
		{[]string{"lint", at("header")}, ExitFindings},
		{[]string{"lint", at("syntax")}, ExitUsage},
		{[]string{"lint", at("missing")}, ExitUsage},
		{[]string{"lint", "-bogus", at("ok")}, ExitUsage},
		{[]string{"bundle", "-o", out("b"), at("ok")}, ExitOK},
		{[]string{"bundle", "-o", out("b"), at("finding")}, ExitFindings},
		{[]string{"bundle", "-o", out("b"), at("header")}, ExitFindings},
		{[]string{"bundle", "-o", out("b"), at("syntax")}, ExitUsage},
		{[]string{"bundle", "-o", out("b"), at("missing")}, ExitUsage},
		{[]string{"gen", "-pkg", "p", "-o", out("g"), at("ok")}, ExitOK},
		{[]string{"gen", "-pkg", "p", "-o", out("g"), at("finding")}, ExitFindings},
		{[]string{"gen", "-pkg", "p", "-o", out("g"), at("header")}, ExitFindings},
		{[]string{"gen", "-pkg", "p", "-o", out("g"), at("syntax")}, ExitUsage},
		{[]string{"gen", "-pkg", "p", "-o", out("g"), at("missing")}, ExitUsage},
		{[]string{"doc", at("ok")}, ExitOK},
		{[]string{"doc", at("header")}, ExitFindings},
		{[]string{"doc", at("syntax")}, ExitUsage},
		{[]string{"doc", at("missing")}, ExitUsage},
		{[]string{"doc"}, ExitUsage},
		{[]string{"test", at("ok")}, ExitOK},
		{[]string{"test", at("failing")}, ExitFindings},
		{[]string{"test", at("syntax")}, ExitUsage},
		{[]string{"test", at("tsyntax")}, ExitUsage},
		{[]string{"test", at("missing")}, ExitUsage},
		{[]string{"crc", "-width", "16", "-poly", "0x1021", "-name", "x", "-pkg", "p", "-o", out("c.go")}, ExitOK},
		{[]string{"crc", "-width", "16"}, ExitUsage},
		{[]string{"crc", "-verify-rdb", at("ok/a.lua")}, ExitFindings},
		{[]string{"serve", "-bogus"}, ExitUsage},
		{[]string{"version"}, ExitOK},
		{[]string{"help", "lint"}, ExitOK},
		{[]string{"help", "nope"}, ExitUsage},
	} {
		var stdout, stderr strings.Builder
		if got := RunContext(context.Background(), tc.args, nil, &stdout, &stderr); got != tc.code {
			t.Errorf("scriptgen %q: exit %d, want %d (stderr %q)", tc.args, got, tc.code, stderr.String())
		}
	}
}
