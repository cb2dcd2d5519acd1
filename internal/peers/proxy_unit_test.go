package peers

import (
	"bufio"
	"context"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// The proxy itself, against a real redis-server: quick, so they run in
// -short mode, where TestPeersTxn does not.

// callLog is a recorder that keeps what it is given.
type callLog struct {
	mu    sync.Mutex
	addrs []string
	calls []scriptCall
}

func (l *callLog) record(addr string, c scriptCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addrs = append(l.addrs, addr)
	l.calls = append(l.calls, c)
}

func (l *callLog) all() []scriptCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// proxied starts a redis-server and a proxy in front of it.
func proxied(t *testing.T) (*redistest.Server, *proxy, *callLog) {
	t.Helper()
	srv := redistest.Start(t)
	log := &callLog{}
	return srv, startProxy(t, srv.Addr, log), log
}

func client(t *testing.T, addr string, protocol int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: protocol, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// A write, then a command that fails when KEYS[2] holds no integer: on
// Redis the SET stays; under the prelude it is undone.
const halfWrite = "redis.call('SET', KEYS[1], ARGV[1])\nreturn redis.call('INCR', KEYS[2])\n"

func TestProxyEvalRunsTheBundle(t *testing.T) {
	srv, p, log := proxied(t)
	ctx := context.Background()
	direct := srv.Client(t)
	for _, protocol := range []int{2, 3} {
		through := client(t, p.addr(), protocol)
		direct.FlushAll(ctx)
		direct.Set(ctx, "n", "not a number", 0)
		_, want := direct.Eval(ctx, halfWrite, []string{"a", "n"}, "x").Result()
		if v := direct.Get(ctx, "a").Val(); v != "x" {
			t.Fatalf("direct: a = %q: Redis keeps a failed script's writes, so the test proves nothing", v)
		}
		direct.Del(ctx, "a")
		_, err := through.Eval(ctx, halfWrite, []string{"a", "n"}, "x").Result()
		if err == nil || want == nil || errorHead(err) != errorHead(want) {
			t.Errorf("RESP%d through the proxy: error %v, want Redis's own %v (the script's SHA-1 mapped back)", protocol, err, want)
		}
		if n := direct.Exists(ctx, "a").Val(); n != 0 {
			t.Errorf("RESP%d: the failed script's SET is still there: the text Redis ran was not the bundle", protocol)
		}
	}
	s := p.ships.seen(newText(halfWrite).sha)
	if s == nil || s.kind == shipFailed || s.kind == shipUnwrapped {
		t.Fatalf("shipment %+v: want a journal", s)
	}
	if !direct.ScriptExists(ctx, s.sha).Val()[0] {
		t.Errorf("on the target, SCRIPT EXISTS of the bundle's SHA-1: 0")
	}
	want := scriptCall{Src: halfWrite, Keys: []string{"a", "n"}, Args: []string{"x"}}
	calls := log.all()
	if len(calls) != 2 || !equalCall(calls[0], want) || !equalCall(calls[1], want) || log.addrs[0] != srv.Addr {
		t.Errorf("recorded %+v at %q, want twice %+v at %s", calls, log.addrs, want, srv.Addr)
	}
}

// errorHead is a script error up to the line Redis names: the prelude
// raises the error of a redis.call from its own line (1), not the
// script's.
func errorHead(err error) string {
	head, _, _ := strings.Cut(err.Error(), ", on @user_script:")
	return head
}

func equalCall(a, b scriptCall) bool {
	return a.Src == b.Src && slices.Equal(a.Keys, b.Keys) && slices.Equal(a.Args, b.Args) && a.DB == b.DB
}

func TestProxyEvalshaFallsBackToEval(t *testing.T) {
	srv, p, log := proxied(t)
	ctx := context.Background()
	through := client(t, p.addr(), 3)
	const src = "return redis.call('INCRBY', KEYS[1], ARGV[1])\n"
	sc := redis.NewScript(src)
	// go-redis sends EVALSHA, gets NOSCRIPT, then sends EVAL.
	if n, err := sc.Run(ctx, through, []string{"c"}, 2).Int(); err != nil || n != 2 {
		t.Fatalf("first run: %d, %v", n, err)
	}
	// Now the SHA-1 of the text is known: EVALSHA reaches the bundle.
	if n, err := through.EvalSha(ctx, sc.Hash(), []string{"c"}, 3).Int(); err != nil || n != 5 {
		t.Errorf("EVALSHA of the text's SHA-1: %d, %v, want 5", n, err)
	}
	if err := through.EvalSha(ctx, strings.Repeat("ab", 20), nil).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Errorf("EVALSHA of an unknown SHA-1: %v, want NOSCRIPT", err)
	}
	if got := len(log.all()); got != 2 {
		t.Errorf("recorded %d calls, want 2 (EVAL and the mapped EVALSHA; not the NOSCRIPTs)", got)
	}
	if srv.Client(t).Get(ctx, "c").Val() != "5" {
		t.Error("the target does not hold c = 5")
	}
}

func TestProxyScriptLoad(t *testing.T) {
	srv, p, _ := proxied(t)
	ctx := context.Background()
	through := client(t, p.addr(), 2)
	direct := srv.Client(t)
	sha, err := through.ScriptLoad(ctx, halfWrite).Result()
	if want := newText(halfWrite).sha; err != nil || sha != want {
		t.Fatalf("SCRIPT LOAD: %q, %v, want the text's own SHA-1 %s", sha, err, want)
	}
	bundled := p.ships.seen(sha).sha
	if got := through.ScriptExists(ctx, sha, strings.Repeat("0", 40)).Val(); !slices.Equal(got, []bool{true, false}) {
		t.Errorf("SCRIPT EXISTS text, unknown through the proxy: %v, want [true false]", got)
	}
	if got := direct.ScriptExists(ctx, sha, bundled).Val(); !slices.Equal(got, []bool{false, true}) {
		t.Errorf("SCRIPT EXISTS text, bundle on the target: %v, want [false true]", got)
	}
	if err := through.EvalSha(ctx, sha, []string{"a", "b"}, "v").Err(); err != nil {
		t.Errorf("EVALSHA after SCRIPT LOAD: %v", err)
	}
	// Inside MULTI, EXEC's array holds the text's SHA-1 too.
	cmds, err := through.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.ScriptLoad(ctx, "return 1\n")
		return nil
	})
	if want := newText("return 1\n").sha; err != nil || cmds[0].(*redis.StringCmd).Val() != want {
		t.Errorf("SCRIPT LOAD in MULTI: %v, %v, want %s", cmds, err, want)
	}
	// A text Redis cannot compile: its error, in order.
	if err := through.ScriptLoad(ctx, "return +").Err(); err == nil || !strings.Contains(err.Error(), "Error compiling script") {
		t.Errorf("SCRIPT LOAD of bad Lua: %v", err)
	}
}

// TestProxyPipeline sends commands in one write on a raw connection and
// reads their replies in order.
func TestProxyPipeline(t *testing.T) {
	_, p, log := proxied(t)
	c, r := dial(t, p.addr())
	sha := newText(halfWrite).sha
	var batch []byte
	for _, cmd := range [][]string{
		{"SELECT", "2"},
		{"SET", "n", "1"},
		{"EVAL", halfWrite, "2", "a", "n", "x"},
		{"GET", "a"},
		{"SCRIPT", "LOAD", halfWrite},
		{"EVALSHA", sha, "2", "a", "n", "y"},
		{"MGET", "a", "n"},
		{"CLIENT", "SETNAME", "piped"},
		{"CLIENT", "GETNAME"},
		{"EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "a"},
	} {
		batch = append(batch, encodeRequest(cmd)...)
	}
	batch = append(batch, "PING\r\n"...) // inline
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	want := []string{"+OK\r\n", "+OK\r\n", ":2\r\n", "$1\r\nx\r\n", "$40\r\n" + sha + "\r\n", ":3\r\n",
		"*2\r\n$1\r\ny\r\n$1\r\n3\r\n", "+OK\r\n", "$5\r\npiped\r\n", "$1\r\ny\r\n", "+PONG\r\n"}
	for i, w := range want {
		if got := frame(t, r); got != w {
			t.Errorf("reply %d: %q, want %q", i, got, w)
		}
	}
	for _, call := range log.all() {
		if call.DB != 2 {
			t.Errorf("recorded %+v: want DB 2", call)
		}
	}
}

func TestProxyMultiExec(t *testing.T) {
	_, p, _ := proxied(t)
	ctx := context.Background()
	through := client(t, p.addr(), 3)
	cmds, err := through.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, "n", "not a number", 0)
		pipe.Eval(ctx, halfWrite, []string{"a", "n"}, "x")
		pipe.Exists(ctx, "a")
		return nil
	})
	if err == nil || len(cmds) != 3 || cmds[1].Err() == nil || cmds[2].(*redis.IntCmd).Val() != 0 {
		t.Errorf("MULTI SET, EVAL (fails), EXISTS: %v, %v: want the EVAL's error and no a", cmds, err)
	}
}

func TestProxySubscribe(t *testing.T) {
	_, p, _ := proxied(t)
	ctx := context.Background()
	for _, protocol := range []int{2, 3} {
		through := client(t, p.addr(), protocol)
		sub := through.Subscribe(ctx, "ch")
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatalf("RESP%d: SUBSCRIBE: %v", protocol, err)
		}
		sub2 := through.PSubscribe(ctx, "c*")
		if _, err := sub2.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if n := through.Publish(ctx, "ch", i).Val(); n != 2 {
				t.Errorf("RESP%d: PUBLISH reached %d subscribers, want 2", protocol, n)
			}
		}
		for _, s := range []*redis.PubSub{sub, sub2} {
			for i := range 3 {
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				m, err := s.ReceiveMessage(rctx)
				cancel()
				if err != nil || m.Payload != string(rune('0'+i)) {
					t.Errorf("RESP%d: message %d: %v, %v", protocol, i, m, err)
				}
			}
		}
		if err := sub.Unsubscribe(ctx); err != nil {
			t.Error(err)
		}
		if err := sub.Ping(ctx); err != nil {
			t.Errorf("RESP%d: PING in subscribe mode: %v", protocol, err)
		}
		_ = sub.Close()
		_ = sub2.Close()
	}
}

// TestProxyPushFrames reads a RESP3 push frame (a client-tracking
// invalidation) between two replies on a raw connection.
func TestProxyPushFrames(t *testing.T) {
	srv, p, _ := proxied(t)
	c, r := dial(t, p.addr())
	send := func(args ...string) {
		if _, err := c.Write(encodeRequest(args)); err != nil {
			t.Fatal(err)
		}
	}
	send("HELLO", "3")
	if f := frame(t, r); !strings.HasPrefix(f, "%") {
		t.Fatalf("HELLO 3: %q, want a map", f)
	}
	send("CLIENT", "TRACKING", "ON")
	send("GET", "k")
	for _, want := range []string{"+OK\r\n", "_\r\n"} {
		if f := frame(t, r); f != want {
			t.Fatalf("got %q, want %q", f, want)
		}
	}
	srv.Client(t).Set(context.Background(), "k", "v", 0)
	send("PING")
	if f := frame(t, r); f != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n" {
		t.Errorf("got %q, want the invalidation push", f)
	}
	if f := frame(t, r); f != "+PONG\r\n" {
		t.Errorf("got %q, want +PONG", f)
	}
}

func TestProxyBlockingPop(t *testing.T) {
	srv, p, _ := proxied(t)
	ctx := context.Background()
	through := client(t, p.addr(), 3)
	direct := srv.Client(t)
	type popped struct {
		v   []string
		err error
	}
	got := make(chan popped, 2)
	go func() {
		v, err := through.BLPop(ctx, 10*time.Second, "l").Result()
		got <- popped{v, err}
	}()
	go func() {
		z, err := through.BZPopMin(ctx, 10*time.Second, "z").Result()
		got <- popped{[]string{z.Key, z.Member.(string)}, err}
	}()
	waitBlocked(t, direct, 2)
	direct.RPush(ctx, "l", "x")
	direct.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "m"})
	var all []string
	for range 2 {
		select {
		case r := <-got:
			if r.err != nil {
				t.Fatal(r.err)
			}
			all = append(all, r.v...)
		case <-time.After(10 * time.Second):
			t.Fatal("no pop within 10s")
		}
	}
	slices.Sort(all)
	if !slices.Equal(all, []string{"l", "m", "x", "z"}) {
		t.Errorf("popped %q", all)
	}
}

// waitBlocked waits until n clients of the target are blocked.
func waitBlocked(t *testing.T, c *redis.Client, n int) {
	t.Helper()
	for range 200 {
		info := c.Info(context.Background(), "clients").Val()
		if strings.Contains(info, "blocked_clients:"+string(rune('0'+n))+"\r") {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%d clients did not block within 5s", n)
}

func TestProxyQuit(t *testing.T) {
	_, p, _ := proxied(t)
	c, r := dial(t, p.addr())
	if _, err := c.Write([]byte("PING\r\nQUIT\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+PONG\r\n", "+OK\r\n"} {
		if f := frame(t, r); f != want {
			t.Errorf("got %q, want %q", f, want)
		}
	}
	if b, err := r.ReadByte(); err == nil {
		t.Errorf("read %q after QUIT, want the connection closed", b)
	}
}

// TestShipTransactional holds the proxy's bundles to the bundler's: a
// header-less text ships as prelude.Ship ships it, and one whose every
// write is final ships as it is.
func TestShipTransactional(t *testing.T) {
	for _, tt := range []struct{ src, kind string }{
		{halfWrite, shipRuntime},
		{"return redis.call('SET', KEYS[1], ARGV[1])\n", shipUnwrapped},
		{"local v = redis.call('HGET', KEYS[1], 'f')\nredis.call('HSET', KEYS[1], 'f', 'x')\nreturn redis.call('INCR', KEYS[2])\n", shipInline},
	} {
		s := shipTransactional(newText(tt.src))
		if s.kind != tt.kind || s.text != prelude.Ship(tt.src) || s.sha != newText(s.text).sha {
			t.Errorf("%q: shipped %s %q, want %s %q", tt.src, s.kind, s.text, tt.kind, prelude.Ship(tt.src))
		}
	}
	if s := shipTransactional(newText("return +\n")); s.kind != shipFailed || s.text != "return +\n" || s.why == "" {
		t.Errorf("bad Lua: %+v, want it forwarded as it is, with the reason", s)
	}
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	return c, bufio.NewReader(c)
}

// frame reads one reply, whole.
func frame(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	var b strings.Builder
	w := bufio.NewWriter(&b)
	if err := copyFrame(w, r, nil); err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	_ = w.Flush()
	return b.String()
}
