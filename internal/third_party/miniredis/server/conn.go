package server

import (
	"bufio"
	"errors"
	"log"
	"net"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// scriptgen: a client's connection. Upstream's trusted the client; this
// one holds it to the Limits, survives a panic of its commands and wakes
// those that wait when the client goes.

func (s *Server) servePeer(c net.Conn) {
	s.mu.Lock()
	lim, peerState := s.limits.withDefaults(), s.peerState
	s.mu.Unlock()
	ic := &idleConn{Conn: c, timeout: lim.IdleTimeout}
	ic.active()
	r := newReqReader(bufio.NewReader(ic), lim)
	peer := &Peer{
		w: bufio.NewWriter(c),
	}
	s.addClient(peer, c, ic)
	defer s.dropClient(peer)
	// What the reader needs of the client's state, as of its last command:
	// whether it may idle, whether it has yet to AUTH.
	var unauth atomic.Bool
	lookState := func() {
		if peerState != nil {
			exempt, un := peerState(peer)
			ic.busy.Store(exempt)
			unauth.Store(un)
		}
	}
	lookState()

	defer func() {
		for _, f := range peer.onDisconnect {
			f()
		}
	}()

	// The reader runs ahead of the commands so that a client that goes
	// away is seen (peer.Close) while a blocking command waits.
	readCh := make(chan request)
	done := make(chan struct{})
	defer close(done)
	r.unauthenticated = func() bool {
		if !unauth.Load() {
			return false
		}
		// The commands read before this one may be an AUTH: ask once
		// they have run.
		check := make(chan bool, 1)
		select {
		case readCh <- request{check: check}:
		case <-done:
			return true
		}
		select {
		case un := <-check:
			return un
		case <-done:
			return true
		}
	}
	go func() {
		defer close(readCh)
		defer s.recoverPeer(c, "reading")
		for {
			args, err := r.read()
			if err != nil {
				var pe ProtocolError
				if !errors.As(err, &pe) {
					if err == errQueryBufferLimit {
						s.log("closing client %s that reached max query buffer length", c.RemoteAddr())
					}
					peer.Close()
					s.wakeBlocked()
					return
				}
			}
			select {
			case readCh <- request{args: args, err: err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	for req := range readCh {
		if req.check != nil {
			req.check <- unauth.Load()
			continue
		}
		if req.err != nil {
			peer.WriteError("ERR " + req.err.Error())
			peer.Flush()
			return
		}
		ic.busy.Store(true)
		peer.client.begin(peer, req.args)
		ok := s.dispatchSafe(c, peer, req.args)
		if !ok {
			return
		}
		ic.busy.Store(false)
		lookState()
		ic.active()
		peer.Flush()

		if peer.Closed() {
			c.Close()
		}
	}
}

// request is what the reader hands servePeer: a command's arguments, the
// protocol error that ends the connection, or a question (check): has the
// client yet to AUTH, now that the commands before have run?
type request struct {
	args  []string
	err   error
	check chan<- bool
}

// dispatchSafe is Dispatch that survives a panic of a command (scriptgen):
// the stack goes to the log and the client is closed, its reply half
// written; the process and every other client go on. ok is false after a
// panic.
func (s *Server) dispatchSafe(c net.Conn, p *Peer, args []string) (ok bool) {
	defer s.recoverPeer(c, "running "+args[0])
	s.Dispatch(p, args)
	return true
}

// recoverPeer, deferred, turns a panic into a log line with the stack and
// the connection's end.
func (s *Server) recoverPeer(c net.Conn, doing string) {
	if v := recover(); v != nil {
		s.log("panic %s for client %s: %v\n%s", doing, c.RemoteAddr(), v, debug.Stack())
		c.Close()
	}
}

func (s *Server) log(format string, args ...any) {
	s.mu.Lock()
	logf := s.logf
	s.mu.Unlock()
	if logf == nil {
		logf = log.Printf
	}
	logf(format, args...)
}

// A PeerState tells the server, before a client's first command and after
// each, whether the client may stay idle beyond the timeout (a Pub/Sub
// subscriber) and whether it has yet to AUTH (its requests are then held
// to 10 arguments of 16 KiB, as Redis 7.0.15 holds them). It runs on the
// client's goroutine.
type PeerState func(p *Peer) (idleExempt, unauthenticated bool)

// SetLimits sets the limits of connections accepted from now on, and how
// to tell a client's state (scriptgen).
func (s *Server) SetLimits(l Limits, state PeerState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits, s.peerState = l, state
}

// SetWake sets what wakes the commands that wait (BLPOP and the like)
// when a client goes away, so that they see it and end (scriptgen).
func (s *Server) SetWake(wake func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wake = wake
}

func (s *Server) wakeBlocked() {
	s.mu.Lock()
	wake := s.wake
	s.mu.Unlock()
	if wake != nil {
		wake()
	}
}

// SetLog sends the server's log lines (a panic's stack, a client closed
// for its query buffer) to logf instead of the standard logger
// (scriptgen).
func (s *Server) SetLog(logf func(format string, args ...any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logf = logf
}

// idleConn ends a read when the client has been idle for timeout: it sent
// nothing since the end of its last command. A busy client is never idle:
// it waits for a command of its own, or may stay idle (Redis spares
// blocked clients and subscribers).
type idleConn struct {
	net.Conn
	timeout time.Duration
	busy    atomic.Bool
	last    atomic.Int64 // unix nanoseconds of the last read or command end
}

func (c *idleConn) active() { c.last.Store(time.Now().UnixNano()) }

func (c *idleConn) Read(b []byte) (int, error) {
	if c.timeout <= 0 {
		return c.Conn.Read(b)
	}
	for {
		deadline := time.Unix(0, c.last.Load()).Add(c.timeout)
		if c.busy.Load() {
			deadline = time.Now().Add(c.timeout)
		}
		c.Conn.SetReadDeadline(deadline)
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.active()
		}
		var ne net.Error
		if n == 0 && errors.As(err, &ne) && ne.Timeout() &&
			(c.busy.Load() || time.Since(time.Unix(0, c.last.Load())) < c.timeout) {
			continue
		}
		return n, err
	}
}
