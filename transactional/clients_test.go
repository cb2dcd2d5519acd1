package transactional

import (
	"bytes"
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// goRuntimeTexts are what Go writes for a panic or a runtime error: a reply
// carrying one leaked a Go failure to the client.
var goRuntimeTexts = []string{
	"runtime error", "goroutine ", "panic:", "invalid memory address",
	"index out of range [", "slice bounds out of range", "makeslice",
}

// checkClientReply is the oracle of the client tests and of FuzzServe: it fails
// on a reply that carries a Go runtime text the request did not (ECHO
// gives back what it got), and on a server that no longer answers a new
// client. Redis's own "ERR index out of range" (LSET) is not Go's, which
// names the index in brackets.
func checkClientReply(t testing.TB, addr string, req, reply []byte) {
	t.Helper()
	for _, s := range goRuntimeTexts {
		if bytes.Contains(reply, []byte(s)) && !bytes.Contains(req, []byte(s)) {
			t.Fatalf("request %q: reply has Go's %q: %q", clip(req), s, clip(reply))
		}
	}
	if ok, got := pong(addr); !ok {
		t.Fatalf("after request %q the server answers PING with %q", clip(req), got)
	}
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

// exchange sends req on a new connection and returns what comes back until
// the server closes ("<EOF>" appended) or is quiet for a while ("<open>").
// With closeWrite the client then shuts its side, as a client that
// disconnects after writing, and waits up to 10s for the close.
func exchange(t testing.TB, addr string, req []byte, closeWrite bool) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(req); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("request %q: the server reads nothing for 5s", clip(req))
		}
		if !closeWrite {
			t.Fatalf("write: %v", err)
		}
	}
	if closeWrite {
		// The server closes once it has run what came: wait for that, so
		// that a script still running does not meet the next request.
		c.(*net.TCPConn).CloseWrite()
		return readAll(c, 10*time.Second)
	}
	return readAll(c, 300*time.Millisecond)
}

// readAll reads c until EOF, or until quiet has passed without a byte, or
// for 10s at the most.
func readAll(c net.Conn, quiet time.Duration) string {
	var out []byte
	buf := make([]byte, 64<<10)
	end := time.Now().Add(10 * time.Second)
	for {
		d := time.Now().Add(quiet)
		if d.After(end) {
			d = end
		}
		c.SetReadDeadline(d)
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		var ne net.Error
		switch {
		case err == nil:
		case errors.As(err, &ne) && ne.Timeout():
			return string(out) + "<open>"
		default: // EOF, or a reset after unread input
			return string(out) + "<EOF>"
		}
	}
}

// listen starts an engine on a loopback port with lim.
func listen(t testing.TB, lim Limits, opts ...Option) (*Engine, string) {
	t.Helper()
	e := New(append([]Option{WithRealTime(), WithLimits(lim)}, opts...)...)
	t.Cleanup(e.Close)
	a, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return e, a.String()
}

// protocolCases are byte streams a client may send, each answered by
// redis-server 7.0 and serve alike. Each is followed by an inline QUIT,
// so that one that leaves the connection open ends it.
var protocolCases = []string{
	"*0\r\n*-5\r\n*-1\r\nPING\r\n",
	"\r\nPING\r\n",
	"   \r\n\n PING  \n",
	"*2\r\n$4\r\nECHO\r\n$99999999999\r\n",
	"*2\r\n$4\r\nECHO\r\n$9223372036854775805\r\n",
	"*2\r\n$4\r\nECHO\r\n$536870913\r\n",
	"*1\r\nx\r\n",
	"*3\r\n$4\r\nECHO\r\n$1\r\na\r\n*1\r\n$4\r\nPING\r\n",
	"ECHO \"abc\r\n",
	"ECHO \"a\"b\r\n",
	"ECHO 'a'b\r\n",
	"ECHO \"\\x41\\n\\z\"\r\nECHO 'it\\'s'\r\nECHO ''\r\n",
	"*abc\r\n",
	"*\r\nPING\r\n",
	"*01\r\n$4\r\nPING\r\n",
	"*1\n$4\r\nPING\r\n",
	"*999999999999999999999999999999\r\n",
	"*1\r\n$+4\r\nPING\r\n",
	"*1\r\n$-1\r\n",
	"*1\r\n$04\r\nPING\r\n",
	"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n",
	"ECHO a\x00b\r\n",
	strings.Repeat("x", 100000),
}

// tooLongCases are sent without the QUIT: Redis reads as much as the
// socket holds, so a long line with a '\r' after it is an invalid length
// rather than a line too long, but only if that much came in one read.
var tooLongCases = []string{
	strings.Repeat("x", 70000),
	"*" + strings.Repeat("1", 70000),
	"*1\r\n$" + strings.Repeat("1", 70000),
}

// TestProtocolAsRedis sends each protocol case to serve and to a real
// redis-server; the replies, and whether the connection is closed after
// them, must be the same. On the code before the limits, the first case
// panicked the process in Dispatch and the fourth ran it out of memory.
func TestProtocolAsRedis(t *testing.T) {
	rs := redistest.Start(t)
	_, addr := listen(t, Limits{})
	var cases []string
	for _, c := range protocolCases {
		cases = append(cases, c+"QUIT\r\n")
	}
	for _, c := range append(cases, tooLongCases...) {
		req := []byte(c)
		want := exchange(t, rs.Addr, req, false)
		got := exchange(t, addr, req, false)
		if got != want {
			t.Errorf("%q:\n serve %q\n redis %q", clip(req), got, want)
		}
		checkClientReply(t, addr, req, []byte(got))
	}
}

// TestUnauthenticatedLimits: before AUTH, Redis 7.0.15 takes no more than
// 10 arguments of 16 KiB; an AUTH pipelined before a request lifts the
// limits for it.
func TestUnauthenticatedLimits(t *testing.T) {
	rs := redistest.Start(t)
	// Set after the start: redistest's readiness probe runs no AUTH.
	if err := rs.Client(t).ConfigSet(context.Background(), "requirepass", "pw").Err(); err != nil {
		t.Fatal(err)
	}
	_, addr := listen(t, Limits{}, WithPassword("pw"))
	eleven := "*11\r\n$4\r\nECHO\r\n" + strings.Repeat("$1\r\na\r\n", 10)
	big := "*2\r\n$4\r\nECHO\r\n$16385\r\n" + strings.Repeat("b", 16385) + "\r\n"
	for _, c := range []string{
		"*10\r\n",
		eleven,
		"*2\r\n$4\r\nECHO\r\n$16384\r\n",
		big,
		"AUTH pw\r\n" + eleven + big + "QUIT\r\n",
		"PING\r\n" + eleven,
		"*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n" + "*11\r\n",
	} {
		want := exchange(t, rs.Addr, []byte(c), false)
		got := exchange(t, addr, []byte(c), false)
		if got != want {
			t.Errorf("%.60q:\n serve %.80q\n redis %.80q", c, got, want)
		}
	}
}

// TestMultibulkLimit: Redis 7.0 takes up to INT_MAX arguments; serve
// refuses more than 1,048,576, as Redis 6 did (issue #24), without
// allocating for them.
func TestMultibulkLimit(t *testing.T) {
	_, addr := listen(t, Limits{})
	if got := exchange(t, addr, []byte("*1048577\r\n"), false); got != "-ERR Protocol error: invalid multibulk length\r\n<EOF>" {
		t.Errorf("*1048577: %q", got)
	}
	if got := exchange(t, addr, []byte("*1048576\r\n$4\r\nPING\r\n"), false); got != "<open>" {
		t.Errorf("*1048576: %q, want it waiting for the rest", got)
	}
}

// TestBulkMemory: a client that claims a large bulk costs the server what
// it sends, not what it claims, and nothing once it is gone. On the code
// before, the claim was allocated at once (here 400 MB).
func TestBulkMemory(t *testing.T) {
	_, addr := listen(t, Limits{})
	base := heapInUse()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	sent := 1 << 20
	c.Write([]byte("*2\r\n$4\r\nECHO\r\n$400000000\r\n"))
	c.Write(make([]byte, sent))
	time.Sleep(200 * time.Millisecond)
	if grew := heapInUse() - base; grew > 16<<20 {
		t.Errorf("the heap grew %d MiB for a 1 MiB part of a 400 MB bulk", grew>>20)
	}
	c.Close()
	time.Sleep(200 * time.Millisecond)
	if grew := heapInUse() - base; grew > 4<<20 {
		t.Errorf("the heap is %d MiB above where it was after the client left", grew>>20)
	}
	if got := exchange(t, addr, []byte("PING\r\n"), false); got != "+PONG\r\n<open>" {
		t.Errorf("PING after: %q", got)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// TestQueryBufferLimit: a request larger than client-query-buffer-limit
// closes the client without a reply, as Redis does.
func TestQueryBufferLimit(t *testing.T) {
	_, addr := listen(t, Limits{QueryBufferLimit: 1 << 20})
	big := strings.Repeat("v", 600<<10)
	set := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\n"
	if got := exchange(t, addr, []byte(set), false); got != "+OK\r\n<open>" {
		t.Errorf("a request under the limit: %.40q", got)
	}
	two := "*4\r\n$4\r\nMSET\r\n$1\r\nk\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\n$" + strconv.Itoa(len(big)) + "\r\n" + big + "\r\n"
	if got := exchange(t, addr, []byte(two), true); got != "<EOF>" {
		t.Errorf("a request over the limit: %.40q, want the connection closed", got)
	}
}

// TestMaxClients: the client over maxclients gets Redis's error and is
// closed; a place freed is taken again.
func TestMaxClients(t *testing.T) {
	rs := redistest.Start(t, "maxclients 2")
	_, addr := listen(t, Limits{MaxClients: 2})
	for _, a := range []string{rs.Addr, addr} {
		var held []net.Conn
		for range 2 {
			c, err := net.Dial("tcp", a)
			if err != nil {
				t.Fatal(err)
			}
			c.Write([]byte("PING\r\n"))
			readAll(c, 100*time.Millisecond)
			held = append(held, c)
		}
		if got := exchange(t, a, []byte("PING\r\n"), false); got != "-ERR max number of clients reached\r\n<EOF>" {
			t.Errorf("%s: the third client got %q", a, got)
		}
		held[0].Close()
		time.Sleep(100 * time.Millisecond)
		if got := exchange(t, a, []byte("PING\r\n"), false); got != "+PONG\r\n<open>" {
			t.Errorf("%s: after one left, a client got %q", a, got)
		}
		held[1].Close()
	}
}

// TestIdleTimeout: a client that sends nothing for the timeout is closed,
// half a command or none; one waiting in a blocking command or subscribed
// is not, as in Redis.
func TestIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	_, addr := listen(t, Limits{IdleTimeout: idle})
	var wg sync.WaitGroup
	check := func(name, req string, quiet time.Duration, want string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			start := time.Now()
			c.Write([]byte(req))
			got := readAll(c, quiet)
			if got != want {
				t.Errorf("%s: %q after %v, want %q", name, got, time.Since(start).Round(time.Millisecond), want)
			}
		}()
	}
	check("silent", "", 3*idle, "<EOF>")
	check("half a command", "*2\r\n$4\r\nECHO\r\n", 3*idle, "<EOF>")
	check("BLPOP for 3 timeouts", "BLPOP nokey 0.9\r\n", 4*idle, "*-1\r\n<EOF>")
	check("subscriber", "SUBSCRIBE ch\r\n", 4*idle, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n<open>")
	wg.Wait()
}

// TestPanicRecovered: a command that panics gets "ERR internal error" when
// none of its reply has left (what it had buffered is dropped), then its
// client is closed and the stack logged; the server goes on. A reply
// already on its way is only cut short: an error in its middle would be
// read as part of it.
func TestPanicRecovered(t *testing.T) {
	e, addr := listen(t, Limits{})
	srv := e.Miniredis().Server()
	var mu sync.Mutex
	var logged strings.Builder
	srv.SetLog(func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged.WriteString(format)
	})
	boom := func(args []string) {
		var s []int
		_ = s[len(args)+3]
	}
	srv.Register("BOOM", func(c *server.Peer, cmd string, args []string) { boom(args) })
	srv.Register("HALFBOOM", func(c *server.Peer, cmd string, args []string) {
		c.WriteLen(2)
		c.WriteBulk("first")
		boom(args)
	})
	big := strings.Repeat("x", 64<<10)
	srv.Register("LATEBOOM", func(c *server.Peer, cmd string, args []string) {
		c.WriteLen(2)
		c.WriteBulk(big)
		boom(args)
	})
	for _, tc := range []struct {
		req, want string
		cut       bool // want is the start of what comes, then <EOF>
	}{
		{"BOOM\r\n", "-ERR internal error\r\n<EOF>", false},
		{"PING\r\nHALFBOOM\r\nPING\r\n", "+PONG\r\n-ERR internal error\r\n<EOF>", false},
		// Cut where the buffer last went out, with no error after it.
		{"LATEBOOM\r\n", "*2\r\n$65536\r\n" + big[:60000], true},
	} {
		req := []byte(tc.req)
		got := exchange(t, addr, req, false)
		ok := got == tc.want
		if tc.cut {
			ok = strings.HasPrefix(got, tc.want) && strings.HasSuffix(got, "x<EOF>")
		}
		if !ok {
			t.Errorf("%q: %q, want %q", tc.req, clip([]byte(got)), clip([]byte(tc.want)))
		}
		checkClientReply(t, addr, req, []byte(got))
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logged.String(), "panic"); n != 3 {
		t.Errorf("%d panics logged, want 3: %q", n, logged.String())
	}
}

// TestBlockedClientGone: a client that leaves while its BLPOP waits
// forever is closed at once; before, its connection and goroutines stayed
// until a push to the key, counting against maxclients. What it sent
// after the BLPOP and before leaving is no request (an empty line, half a
// request): redis-server 7.0.15 closes such a client at once too.
func TestBlockedClientGone(t *testing.T) {
	e, addr := listen(t, Limits{})
	for _, req := range []string{"BLPOP nokey 0\r\n", "BLPOP nokey 0\n\r\n", "BLPOP nokey 0\r\n*0\r\n", "BLPOP nokey 0\r\n*2\r\n$4\r\nECHO\r\n"} {
		start := time.Now()
		if got := exchange(t, addr, []byte(req), true); got != "<EOF>" || time.Since(start) > 5*time.Second {
			t.Errorf("%q, then the client shuts its side: %q after %v, want the connection closed", req, got, time.Since(start))
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for e.Miniredis().Server().ClientsLen() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := e.Miniredis().Server().ClientsLen(); n > 0 {
		t.Errorf("%d clients left", n)
	}
}

// TestNewCountsNoClient: the pipe New starts miniredis with is gone when
// New returns, so -maxclients 1 admits the first real client.
func TestNewCountsNoClient(t *testing.T) {
	for range 50 {
		e := New(WithLimits(Limits{MaxClients: 1}))
		n := e.srv.ClientsLen()
		e.Close()
		if n != 0 {
			t.Fatalf("a new engine counts %d clients", n)
		}
	}
}
