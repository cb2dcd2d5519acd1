//go:build linux

package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// loopServer is a server on loopback with PING, ECHO and the commands a
// test adds.
func loopServer(t *testing.T, loop bool) *Server {
	t.Helper()
	s, err := NewServer("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetEventLoop(loop)
	s.Register("PING", func(c *Peer, cmd string, args []string) { c.WriteInline("PONG") })
	s.Register("ECHO", func(c *Peer, cmd string, args []string) { c.WriteBulk(args[0]) })
	return s
}

type loopClient struct {
	net.Conn
	r *bufio.Reader
}

func dialLoop(t *testing.T, s *Server) *loopClient {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &loopClient{c, bufio.NewReader(c)}
}

func (c *loopClient) send(t *testing.T, args ...string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		t.Fatal(err)
	}
}

// reply reads one reply: a status line, or a bulk string.
func (c *loopClient) reply(t *testing.T) string {
	t.Helper()
	line, err := c.r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line[0] != '$' {
		return line
	}
	var n int
	fmt.Sscanf(line[1:], "%d", &n)
	b := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, b); err != nil {
		t.Fatalf("reading a bulk of %d: %v", n, err)
	}
	return string(b[:n])
}

func eachMode(t *testing.T, f func(t *testing.T, loop bool)) {
	for _, loop := range []bool{true, false} {
		t.Run(fmt.Sprintf("loop=%v", loop), func(t *testing.T) { f(t, loop) })
	}
}

// A command that runs long leaves the loop, which goes on serving the
// others meanwhile: SLOW ends only once another client's PING has been
// answered, which without the hand-over would wait for SLOW.
func TestLoopServesWhileACommandRunsLong(t *testing.T) {
	eachMode(t, func(t *testing.T, loop bool) {
		s := loopServer(t, loop)
		release := make(chan struct{})
		s.Register("SLOW", func(c *Peer, cmd string, args []string) {
			select {
			case <-release:
				c.WriteInline("DONE")
			case <-time.After(5 * time.Second):
				c.WriteInline("TIMEOUT")
			}
		})
		a, b := dialLoop(t, s), dialLoop(t, s)
		a.send(t, "SLOW")
		time.Sleep(20 * time.Millisecond) // SLOW is running
		b.send(t, "PING")
		if got := b.reply(t); got != "+PONG" {
			t.Fatalf("PING: %q", got)
		}
		close(release)
		if got := a.reply(t); got != "+DONE" {
			t.Fatalf("SLOW: %q, want +DONE (the PING was answered only after it)", got)
		}
		a.send(t, "PING")
		if got := a.reply(t); got != "+PONG" {
			t.Fatalf("PING after SLOW: %q", got)
		}
	})
}

// Commands of two clients run in the order they were sent, however close
// together: the first to wait is the first in the queue (Redis's tests of
// blocked clients send so). Each WAITQ notes its turn, says it waits
// (Peer.Blocked), and waits for FIRE. With a goroutine per client
// (SetEventLoop(false)) the first round fails at once.
func TestLoopRunsClientsInArrivalOrder(t *testing.T) {
	s := loopServer(t, true)
	var (
		mu    sync.Mutex
		order []string
		fire  = make(chan struct{})
	)
	s.Register("WAITQ", func(c *Peer, cmd string, args []string) {
		mu.Lock()
		order = append(order, args[0])
		f := fire
		mu.Unlock()
		c.Blocked()
		select {
		case <-f:
		case <-time.After(5 * time.Second):
		}
		c.WriteInline("OK")
	})
	s.Register("FIRE", func(c *Peer, cmd string, args []string) {
		mu.Lock()
		got := strings.Join(order, ",")
		order = nil
		close(fire)
		fire = make(chan struct{})
		mu.Unlock()
		c.WriteInline(got)
	})
	// The same clients each round: a client that waited has left the loop,
	// and is back in it once its command has ended.
	a, b, c := dialLoop(t, s), dialLoop(t, s), dialLoop(t, s)
	for i := range 30 {
		for _, x := range []*loopClient{a, b, c} {
			x.send(t, "PING")
			x.reply(t)
		}
		for try := 0; ; try++ {
			s.loop.mu.Lock()
			n := len(s.loop.conns)
			s.loop.mu.Unlock()
			if n == 3 {
				break
			}
			if try == 500 {
				t.Fatalf("round %d: %d clients in the loop, want 3", i, n)
			}
			time.Sleep(time.Millisecond)
		}
		a.send(t, "WAITQ", "a")
		b.send(t, "WAITQ", "b")
		time.Sleep(5 * time.Millisecond)
		c.send(t, "FIRE")
		if got := c.reply(t); got != "+a,b" {
			t.Fatalf("round %d: the waits ran in the order %q, want a,b", i, got)
		}
		a.reply(t)
		b.reply(t)
	}
}

// Requests longer than the read buffer, requests that come a few bytes at
// a time, and a thousand requests in one write are all read whole.
func TestLoopReadsAnyRequest(t *testing.T) {
	eachMode(t, func(t *testing.T, loop bool) {
		s := loopServer(t, loop)
		c := dialLoop(t, s)
		big := strings.Repeat("0123456789", 10_000)
		c.send(t, "ECHO", big)
		if got := c.reply(t); got != big {
			t.Fatalf("ECHO of %d bytes: got %d bytes", len(big), len(got))
		}
		c2 := dialLoop(t, s)
		req := "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n"
		for i := range len(req) {
			if _, err := io.WriteString(c2, req[i:i+1]); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
		}
		if got := c2.reply(t); got != "hello" {
			t.Fatalf("a request a byte at a time: %q", got)
		}
		c2.send(t, "PING")
		if got := c2.reply(t); got != "+PONG" {
			t.Fatalf("after it: %q", got)
		}
		c3 := dialLoop(t, s)
		if _, err := io.WriteString(c3, strings.Repeat("PING\r\n\r\n*0\r\n*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n", 1000)); err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			if got := c3.reply(t); got != "+PONG" {
				t.Fatalf("pipelined request %d: %q", 2*i, got)
			}
			if got := c3.reply(t); got != "x" {
				t.Fatalf("pipelined request %d: %q", 2*i+1, got)
			}
		}
	})
}

// A client that does not read its reply holds up no one: the rest of it
// is written once the client reads, and the others are served meanwhile.
func TestLoopSlowReaderHoldsNoOneUp(t *testing.T) {
	eachMode(t, func(t *testing.T, loop bool) {
		s := loopServer(t, loop)
		big := strings.Repeat("x", 16<<20)
		s.Register("BIG", func(c *Peer, cmd string, args []string) { c.WriteBulk(big) })
		a, b := dialLoop(t, s), dialLoop(t, s)
		a.send(t, "BIG")
		time.Sleep(50 * time.Millisecond)
		b.send(t, "PING")
		if got := b.reply(t); got != "+PONG" {
			t.Fatalf("PING: %q", got)
		}
		if got := a.reply(t); got != big {
			t.Fatalf("BIG: %d bytes, want %d", len(got), len(big))
		}
		a.send(t, "PING")
		if got := a.reply(t); got != "+PONG" {
			t.Fatalf("PING after BIG: %q", got)
		}
	})
}

// Clients that go, half way through a request or killed, are forgotten.
func TestLoopClientsGo(t *testing.T) {
	eachMode(t, func(t *testing.T, loop bool) {
		s := loopServer(t, loop)
		a, b := dialLoop(t, s), dialLoop(t, s)
		a.send(t, "PING")
		a.reply(t)
		io.WriteString(a, "*2\r\n$4\r\nECHO\r\n$10\r\nabc")
		b.send(t, "PING")
		b.reply(t)
		waitClients := func(want int) {
			t.Helper()
			for i := 0; s.ClientsLen() != want; i++ {
				if i == 500 {
					t.Fatalf("%d clients, want %d", s.ClientsLen(), want)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		waitClients(2)
		a.Close()
		waitClients(1)
		for _, p := range s.Clients() {
			p.Client().Kill()
		}
		waitClients(0)
		if _, err := b.r.ReadString('\n'); err == nil {
			t.Fatal("a killed client's connection is still open")
		}
	})
}

// The replies of a round of the loop leave together, as Redis writes them
// before it sleeps: two hundred requests in one write get their replies in
// a few TCP segments, where a write per reply sends two hundred.
func TestLoopWritesARoundsRepliesTogether(t *testing.T) {
	s := loopServer(t, true)
	c := dialLoop(t, s)
	c.send(t, "PING")
	c.reply(t)
	before := dataSegmentsIn(t, c)
	if _, err := io.WriteString(c, strings.Repeat("*1\r\n$4\r\nPING\r\n", 200)); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if got := c.reply(t); got != "+PONG" {
			t.Fatalf("reply %d: %q", i, got)
		}
	}
	if n := dataSegmentsIn(t, c) - before; n > 5 {
		t.Fatalf("200 replies came in %d segments, want 5 at most", n)
	}
}

// dataSegmentsIn is how many TCP segments with data c has received.
func dataSegmentsIn(t *testing.T, c *loopClient) uint32 {
	t.Helper()
	rc, err := c.Conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var info *unix.TCPInfo
	rc.Control(func(fd uintptr) { info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) })
	if err != nil {
		t.Fatal(err)
	}
	return info.Data_segs_in
}

// Replies the loop holds for the end of its round leave as soon as a
// command of the same client waits (Peer.Blocked) or runs long: the
// client reads them meanwhile.
func TestLoopRepliesLeaveBeforeAWait(t *testing.T) {
	eachMode(t, func(t *testing.T, loop bool) {
		s := loopServer(t, loop)
		release := make(chan struct{})
		wait := func(c *Peer, cmd string, args []string) {
			if cmd == "WAIT" {
				c.Blocked()
			}
			select {
			case <-release:
				c.WriteInline("DONE")
			case <-time.After(5 * time.Second):
				c.WriteInline("TIMEOUT")
			}
		}
		s.Register("WAIT", wait)
		s.Register("SLOW", wait)
		for _, cmd := range []string{"WAIT", "SLOW"} {
			c := dialLoop(t, s)
			io.WriteString(c, "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n*1\r\n$4\r\n"+cmd+"\r\n")
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if got := c.reply(t); got != "+PONG" {
				t.Fatalf("%s: PING: %q", cmd, got)
			}
			if got := c.reply(t); got != "x" {
				t.Fatalf("%s: ECHO: %q", cmd, got)
			}
			release <- struct{}{}
			if got := c.reply(t); got != "+DONE" {
				t.Fatalf("%s: %q", cmd, got)
			}
		}
	})
}

// A client that is closed after a reply (QUIT), or that sent its requests
// and closed its side, gets every reply before the end.
func TestLoopRepliesBeforeTheEnd(t *testing.T) {
	eachMode(t, func(t *testing.T, loop bool) {
		s := loopServer(t, loop)
		s.Register("BYE", func(c *Peer, cmd string, args []string) {
			c.WriteInline("OK")
			c.Close()
		})
		pings := strings.Repeat("*1\r\n$4\r\nPING\r\n", 3)
		a, b := dialLoop(t, s), dialLoop(t, s)
		io.WriteString(a, pings+"*1\r\n$3\r\nBYE\r\n"+pings)
		io.WriteString(b, pings)
		b.Conn.(*net.TCPConn).CloseWrite()
		for _, x := range []struct {
			c    *loopClient
			want []string
		}{{a, []string{"+PONG", "+PONG", "+PONG", "+OK"}}, {b, []string{"+PONG", "+PONG", "+PONG"}}} {
			for i, want := range x.want {
				if got := x.c.reply(t); got != want {
					t.Fatalf("reply %d: %q, want %q", i, got, want)
				}
			}
			if line, err := x.c.r.ReadString('\n'); err != io.EOF {
				t.Fatalf("after the last reply: %q, %v; want the end", line, err)
			}
		}
	})
}
