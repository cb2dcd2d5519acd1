package transactional

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// Blocked clients on a real socket, serve beside redis-server 7.0.15: the
// races behind Redis's suite's type/list flakes on serve (issue 28).

// rawConn is a client that sends requests without waiting for their
// replies, as the suite's deferring clients do, and reads each reply as
// the bytes the server sent.
type rawConn struct {
	t   testing.TB
	c   net.Conn
	r   *bufio.Reader
	buf []byte
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

// send writes the requests in one write: a pipeline.
func (rc *rawConn) send(reqs ...[]string) {
	rc.t.Helper()
	var b strings.Builder
	for _, args := range reqs {
		fmt.Fprintf(&b, "*%d\r\n", len(args))
		for _, a := range args {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	rc.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// read returns the next reply's bytes, failing the test when none comes
// within wait: a client left blocked for ever.
func (rc *rawConn) read(wait time.Duration) string {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(wait))
	chunk := make([]byte, 4096)
	for {
		if _, n, err := resp.Parse(rc.buf); err == nil {
			reply := string(rc.buf[:n])
			rc.buf = rc.buf[n:]
			return reply
		}
		k, err := rc.r.Read(chunk)
		rc.buf = append(rc.buf, chunk[:k]...)
		if err != nil {
			rc.t.Fatalf("no reply within %v: %v (have %q)", wait, err, rc.buf)
		}
	}
}

func (rc *rawConn) do(args ...string) string {
	rc.t.Helper()
	rc.send(args)
	return rc.read(5 * time.Second)
}

// blockedClients is INFO's blocked_clients.
func (rc *rawConn) blockedClients() string {
	rc.t.Helper()
	info := rc.do("INFO", "clients")
	_, rest, ok := strings.Cut(info, "blocked_clients:")
	if !ok {
		rc.t.Fatalf("INFO clients has no blocked_clients: %q", info)
	}
	n, _, _ := strings.Cut(rest, "\r\n")
	return n
}

// waitBlocked polls blocked_clients until it is n, as the suite's
// wait_for_blocked_clients_count does, for up to d; it reports whether it
// got there.
func (rc *rawConn) waitBlocked(n int, d time.Duration) bool {
	rc.t.Helper()
	for end := time.Now().Add(d); ; time.Sleep(time.Millisecond) {
		if rc.blockedClients() == fmt.Sprint(n) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

func (rc *rawConn) mustBlocked(n int) {
	rc.t.Helper()
	if !rc.waitBlocked(n, 5*time.Second) {
		rc.t.Fatalf("blocked_clients never %d (is %s)", n, rc.blockedClients())
	}
}

// blockTargets runs f on serve and on redis-server.
func blockTargets(t *testing.T, f func(t *testing.T, addr string)) {
	t.Run("serve", func(t *testing.T) {
		_, addr := listen(t, Limits{})
		f(t, addr)
	})
	t.Run("redis-server", func(t *testing.T) {
		f(t, redistest.Start(t).Addr)
	})
}

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

func array(els ...string) string { return fmt.Sprintf("*%d\r\n", len(els)) + strings.Join(els, "") }

// TestBlockedServedBeforeNextCommand: a push serves the clients blocked on
// its key before the pusher's next command runs, as Redis serves them at
// the end of the command (handleClientsBlockedOnKeys). Serve woke their
// goroutines and let them race for the lock with that next command, which
// could find the element still there ("Linked LMOVEs"), or find the
// client still blocked and unblock it with a null while the element
// stayed in the list. Each round pipelines the push with what reads it, so
// the pusher's goroutine reaches the lock first whenever it may.
func TestBlockedServedBeforeNextCommand(t *testing.T) {
	blockTargets(t, func(t *testing.T, addr string) {
		r := dialRaw(t, addr)
		for round := 0; round < 20; round++ {
			r.do("DEL", "l1", "l2", "l3")
			rd1, rd2 := dialRaw(t, addr), dialRaw(t, addr)
			rd1.send([]string{"BLMOVE", "l1", "l2", "RIGHT", "LEFT", "0"})
			r.mustBlocked(1)
			rd2.send([]string{"BLMOVE", "l2", "l3", "LEFT", "RIGHT", "0"})
			r.mustBlocked(2)
			r.send([]string{"RPUSH", "l1", "foo"}, []string{"LRANGE", "l1", "0", "-1"},
				[]string{"LRANGE", "l2", "0", "-1"}, []string{"LRANGE", "l3", "0", "-1"})
			got := []string{r.read(5 * time.Second), r.read(5 * time.Second), r.read(5 * time.Second), r.read(5 * time.Second)}
			want := []string{":1\r\n", "*0\r\n", "*0\r\n", array(bulk("foo"))}
			if strings.Join(got, "") != strings.Join(want, "") {
				t.Fatalf("round %d, linked BLMOVEs: RPUSH l1 foo, then LRANGE l1, l2, l3: %q, want %q", round, got, want)
			}
			for _, rd := range []*rawConn{rd1, rd2} {
				if got := rd.read(5 * time.Second); got != bulk("foo") {
					t.Fatalf("round %d: a BLMOVE got %q, want %q", round, got, bulk("foo"))
				}
			}

			// CLIENT UNBLOCK right behind the push finds the client served.
			r.do("DEL", "k")
			rd := dialRaw(t, addr)
			id := strings.TrimSuffix(strings.TrimPrefix(rd.do("CLIENT", "ID"), ":"), "\r\n")
			rd.send([]string{"BLPOP", "k", "0"})
			r.mustBlocked(1)
			r.send([]string{"LPUSH", "k", "v"}, []string{"CLIENT", "UNBLOCK", id}, []string{"LLEN", "k"})
			got = []string{r.read(5 * time.Second), r.read(5 * time.Second), r.read(5 * time.Second), rd.read(5 * time.Second)}
			want = []string{":1\r\n", ":0\r\n", ":0\r\n", array(bulk("k"), bulk("v"))}
			if strings.Join(got, "") != strings.Join(want, "") {
				t.Fatalf("round %d: LPUSH k v, CLIENT UNBLOCK, LLEN k; the BLPOP's reply: %q, want %q", round, got, want)
			}
			rd1.c.Close()
			rd2.c.Close()
			rd.c.Close()
		}
	})
}

// TestBlockedClientGoneAtOnce: a blocked client that closes its connection
// is no longer blocked, however long it had waited and whatever it sent
// while it waited, as Redis frees it. Serve saw the close only once the
// command had run 100 to 200 ms (the watcher's sweep), and never when the
// client had sent a request while blocked: INFO counted a client that was
// gone, so the suite's wait_for_blocked_client went on before its own
// client blocked, CLIENT UNBLOCK found no one, and the suite waited for
// ever ("client unblock tests", after "Regression for bug 593"), and the
// gone client could take an element pushed later.
func TestBlockedClientGoneAtOnce(t *testing.T) {
	blockTargets(t, func(t *testing.T, addr string) {
		r := dialRaw(t, addr)
		for round := 0; round < 5; round++ {
			r.do("DEL", "k")
			rd := dialRaw(t, addr)
			rd.send([]string{"BLPOP", "k", "0"})
			r.mustBlocked(1)
			rd.c.Close()
			// A close is seen within a few ms; the sweep took 100 ms at least.
			start := time.Now()
			if !r.waitBlocked(0, 80*time.Millisecond) {
				t.Fatalf("round %d: a blocked client that closed still counts %s ms later",
					round, fmt.Sprint(time.Since(start).Milliseconds()))
			}

			// Sent while blocked, then gone: still gone.
			rd = dialRaw(t, addr)
			rd.send([]string{"BLPOP", "k", "0"})
			r.mustBlocked(1)
			rd.send([]string{"PING"})
			time.Sleep(5 * time.Millisecond)
			rd.c.Close()
			if !r.waitBlocked(0, time.Second) {
				t.Fatalf("round %d: a blocked client that sent PING and closed still counts (%s)", round, r.blockedClients())
			}
			r.send([]string{"LPUSH", "k", "v"}, []string{"LLEN", "k"})
			if got := r.read(5*time.Second) + r.read(5*time.Second); got != ":1\r\n:1\r\n" {
				t.Fatalf("round %d: LPUSH k v, LLEN k after the blocked client left: %q", round, got)
			}
		}
	})
}

// TestBlockedKeyExpiredInExec: with active expiry off, an EXEC whose push
// readies a blocked client, and whose DEBUG SLEEP then outlives the key's
// TTL, serves nobody: Redis looks the key up at the time it serves the
// client, after the EXEC, and finds it expired. Serve looked it up at the
// EXEC's start time and served the element (Redis's suite, type/list,
// "MULTI + LPUSH + EXPIRE + DEBUG SLEEP on blocked client, key already
// expired").
func TestBlockedKeyExpiredInExec(t *testing.T) {
	blockTargets(t, func(t *testing.T, addr string) {
		r := dialRaw(t, addr)
		r.do("FLUSHALL")
		r.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
		defer r.do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
		rd := dialRaw(t, addr)
		id := strings.TrimSuffix(strings.TrimPrefix(rd.do("CLIENT", "ID"), ":"), "\r\n")
		rd.send([]string{"BRPOP", "k", "0"})
		r.mustBlocked(1)
		r.send([]string{"MULTI"}, []string{"RPUSH", "k", "hello"}, []string{"PEXPIRE", "k", "100"},
			[]string{"DEBUG", "SLEEP", "0.2"}, []string{"EXEC"})
		for i := 0; i < 5; i++ {
			r.read(5 * time.Second)
		}
		if got := r.do("CLIENT", "LIST", "ID", id); !strings.Contains(got, "flags=b") {
			t.Fatalf("after the EXEC the client is not blocked: %q", got)
		}
		if got := r.do("EXISTS", "k"); got != ":0\r\n" {
			t.Fatalf("EXISTS k after the EXEC: %q", got)
		}
		r.do("CLIENT", "UNBLOCK", id)
		if got := rd.read(5 * time.Second); got != "*-1\r\n" {
			t.Fatalf("the BRPOP, unblocked: %q", got)
		}
	})
}
