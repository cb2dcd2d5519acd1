package transactional

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestServeProtected: a remote address without a password is refused
// unless protected mode is turned off, as Redis's protected-mode is on.
func TestServeProtected(t *testing.T) {
	if err := Serve(context.Background(), Config{Addr: "0.0.0.0:0", AllowRemote: true}); !errors.Is(err, ErrProtected) {
		t.Errorf("allow-remote without a password: %v, want ErrProtected", err)
	}
	for _, cfg := range []Config{
		{Addr: "127.0.0.1:0", AllowRemote: true, Password: "pw"},
		{Addr: "127.0.0.1:0", AllowRemote: true, Unprotected: true},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cfg.Ready = func(net.Addr) { cancel() }
		if err := Serve(ctx, cfg); err != nil {
			t.Errorf("serve %+v: %v", cfg, err)
		}
		cancel()
	}
}

// noAuthCases are sent, each on a fresh connection, before AUTH to a
// server with a password: Redis refuses all but AUTH, HELLO … AUTH and
// QUIT (and RESET, which miniredis lacks), after its unknown-command and
// arity checks.
var noAuthCases = [][]string{
	{"HELLO", "3"},
	{"HELLO"},
	{"HELLO", "2", "SETNAME", "x"},
	{"HELLO", "4"},
	{"HELLO", "3", "AUTH", "default"},
	{"HELLO", "3", "AUTH", "default", "pw"},
	{"CLIENT", "SETNAME", "x"},
	{"CLIENT", "SETNAME"},
	{"CLIENT"},
	{"COMMAND", "COUNT"},
	{"COMMAND"},
	{"PING"},
	{"PING", "a", "b"},
	{"ECHO", "a"},
	{"GET", "k"},
	{"GET"},
	{"SET", "k", "v"},
	{"MULTI"},
	{"SELECT", "1"},
	{"EVAL", "return 1", "0"},
	{"EVAL", "x"},
	{"SCRIPT", "KILL"},
	{"SCRIPT", "FLUSH"},
	{"FUNCTION", "LIST"},
	{"FCALL", "f", "0"},
	{"INFO"},
	{"DBSIZE"},
	{"AUTH", "pw"},
	{"AUTH", "bad"},
	{"AUTH", "nobody", "pw"},
	{"HELLO", "3", "AUTH", "default", "bad"},
	{"AUTH", "default", "pw"},
	{"QUIT"},
}

func TestServeNoAuthLikeRedis(t *testing.T) {
	r := redistest.Start(t)
	if err := r.Client(t).ConfigSet(context.Background(), "requirepass", "pw").Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, _ := startServe(t, ctx, Config{Addr: "127.0.0.1:0", Password: "pw"})
	for _, args := range noAuthCases {
		want := firstReplyLine(t, r.Addr, args)
		got := firstReplyLine(t, addr, args)
		if got != want {
			t.Errorf("%q before AUTH:\n got %q\nwant %q (redis-server)", args, got, want)
		}
	}
}

// firstReplyLine sends args on a fresh connection to addr and returns the
// reply's first line: the whole of an error, a status or a count.
func firstReplyLine(t *testing.T, addr string, args []string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%q to %s: %v", args, addr, err)
	}
	return strings.TrimSuffix(line, "\r\n")
}

// TestServeNoAuthCannotKill: SCRIPT KILL before AUTH, while a script runs,
// gets NOAUTH and leaves the script running; the owner's kill stops it.
func TestServeNoAuthCannotKill(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newEngine(t, WithPassword("pw"), WithTimeLimit(0), WithBusyReplyThreshold(300*time.Millisecond), WithRealTime())
	a, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := a.String()
	owner := redis.NewClient(&redis.Options{Addr: addr, Password: "pw", MaxRetries: -1, ReadTimeout: 10 * time.Second})
	defer owner.Close()
	// Authenticated before the script runs: AUTH waits for the busy
	// threshold once it does, as in Redis.
	killer := redis.NewClient(&redis.Options{Addr: addr, Password: "pw", MaxRetries: -1, PoolSize: 1})
	defer killer.Close()
	if err := killer.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- owner.Eval(ctx, "while true do end", nil).Err() }()
	// Wait until the script runs: under load, a fixed sleep was not
	// enough and NOAUTH came at once, with nothing running to wait for.
	for deadline := time.Now().Add(10 * time.Second); e.running.Load() == nil; {
		if time.Now().After(deadline) {
			t.Fatal("the script never started")
		}
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if got := firstReplyLine(t, addr, []string{"SCRIPT", "KILL"}); got != "-NOAUTH Authentication required." {
		t.Errorf("SCRIPT KILL before AUTH: %q, want NOAUTH", got)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("NOAUTH after %v, before the busy threshold: Redis reads nothing until then", waited)
	}
	select {
	case err := <-ran:
		t.Fatalf("the script stopped after a SCRIPT KILL before AUTH: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := killer.ScriptKill(ctx).Err(); err != nil {
		t.Errorf("SCRIPT KILL after AUTH: %v", err)
	}
	select {
	case err := <-ran:
		if err == nil || !strings.Contains(err.Error(), "Script killed") {
			t.Errorf("killed script: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the script ran on after SCRIPT KILL")
	}
}

// startServe runs Serve(ctx, cfg) and returns the address it listens on,
// and the channel Serve's result comes on once ctx is cancelled.
func startServe(t *testing.T, ctx context.Context, cfg Config) (string, <-chan error) {
	t.Helper()
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	cfg.Ready = func(a net.Addr) { ready <- a }
	go func() { done <- Serve(ctx, cfg) }()
	select {
	case a := <-ready:
		return a.String(), done
	case err := <-done:
		t.Fatalf("serve: %v", err)
		return "", nil
	}
}
