package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// scriptgen: a client's connection. Upstream's trusted the client; this
// one holds it to the Limits, survives a panic of its commands and wakes
// those that wait when the client goes.

func (s *Server) servePeer(c net.Conn) {
	ic := &idleConn{Conn: c}
	pc := s.newPeerConn(c, ic, ic, c)
	pc.start()
	defer pc.end()
	pc.watchSocket()
	pc.serve()
}

// A peerConn is a client's connection: its reader, writer and Peer, read
// and run either by a goroutine of its own (servePeer) or by the event
// loop (loop_linux.go) until it leaves the loop for a goroutine.
type peerConn struct {
	s         *Server
	c         net.Conn  // as the server's peers and the logs know it
	ic        *idleConn // what the goroutine reads; its idle clock always
	rd        *bufio.Reader
	r         *reqReader
	out       *countingWriter
	peer      *Peer
	w         atomic.Pointer[watcher] // nil while the event loop serves it
	peerState PeerState
	unauth    bool
	// loopBusy, set while the event loop runs one of its commands, tells
	// the loop's sweeper which command it runs; back puts a client that
	// left the loop back in it. Both nil for a client the loop never had.
	loopBusy func(bool)
	back     func() bool
}

// readBufSize is a connection's read buffer: Redis's PROTO_IOBUF_LEN. A
// request longer than this leaves the event loop for a goroutine.
const readBufSize = 16 << 10

// newPeerConn makes the connection c's state: requests read from src,
// replies written to dst, idle time kept by ic.
func (s *Server) newPeerConn(c net.Conn, ic *idleConn, src io.Reader, dst io.Writer) *peerConn {
	s.mu.Lock()
	lim, peerState := s.limits.withDefaults(), s.peerState
	s.mu.Unlock()
	ic.timeout = lim.IdleTimeout
	ic.active()
	pc := &peerConn{s: s, c: c, ic: ic, peerState: peerState}
	pc.rd = bufio.NewReaderSize(src, readBufSize)
	pc.r = newReqReader(pc.rd, lim)
	pc.r.unauthenticated = func() bool { return pc.unauth }
	pc.out = &countingWriter{w: dst}
	pc.peer = &Peer{w: bufio.NewWriter(pc.out), errs: &s.errs}
	return pc
}

// start records the client and reads its state before its first command.
func (pc *peerConn) start() {
	pc.s.addClient(pc.peer, pc.c, pc.ic)
	pc.lookState()
}

// end runs the peer's disconnect callbacks and forgets the client.
func (pc *peerConn) end() {
	if w := pc.w.Load(); w != nil {
		pc.s.watchers.remove(w)
	}
	for _, f := range pc.peer.onDisconnect {
		f()
	}
	pc.s.dropClient(pc.peer)
}

// watchSocket starts reading the socket while a command runs long (see
// watcher).
func (pc *peerConn) watchSocket() *watcher {
	w := pc.s.watchers.add(pc.s, pc.ic, pc.rd, pc.peer)
	pc.w.Store(w)
	pc.peer.watch.Store(w)
	return w
}

// unwatchSocket ends the watcher of a client that goes back to the event
// loop, between two commands.
func (pc *peerConn) unwatchSocket() {
	if w := pc.w.Swap(nil); w != nil {
		pc.peer.watch.Store(nil)
		pc.s.watchers.remove(w)
	}
}

// lookState reads what the reader needs of the client's state, as of its
// last command: whether it may idle, whether it has yet to AUTH.
func (pc *peerConn) lookState() {
	if pc.peerState != nil {
		exempt, un := pc.peerState(pc.peer)
		pc.ic.busy.Store(exempt)
		pc.unauth = un
	}
}

// serve reads a request, runs it and flushes its reply, until the client
// goes, as Redis's event loop does for a client. The reader used to run
// ahead in a goroutine of its own and hand each request over a channel: a
// goroutine wake-up per request. Only a command that waits needs the
// socket read meanwhile, which the watcher does once it runs long.
//
// A client that left the event loop goes back to it (back) once it has
// read all it holds: serve then returns true, and the goroutine is done
// with it.
func (pc *peerConn) serve() (inLoop bool) {
	for {
		args, err := pc.s.readSafe(pc.c, pc.r)
		if err != nil {
			pc.readFailed(err)
			return false
		}
		if !pc.exec(args) {
			return false
		}
		if pc.back != nil && pc.rd.Buffered() == 0 && pc.back() {
			return true
		}
	}
}

// readFailed answers a request the reader refused, if Redis does, and
// closes the client.
func (pc *peerConn) readFailed(err error) {
	var pe ProtocolError
	switch {
	case errors.As(err, &pe):
		pc.peer.WriteError("ERR " + err.Error())
		pc.peer.Flush()
	case err == errQueryBufferLimit:
		pc.s.log("closing client %s that reached max query buffer length", pc.c.RemoteAddr())
	}
	pc.peer.Close()
}

// exec runs one request and flushes its reply; false when the client is
// to be closed.
func (pc *peerConn) exec(args []string) bool {
	pc.ic.busy.Store(true)
	if w := pc.w.Load(); w != nil {
		w.arm()
	}
	if pc.loopBusy != nil {
		pc.loopBusy(true)
	}
	pc.peer.client.begin(pc.peer, args)
	ok := pc.s.dispatchSafe(pc.c, pc.peer, pc.out, args)
	if pc.loopBusy != nil {
		pc.loopBusy(false)
	}
	// The command may have left the event loop meanwhile, and got a
	// watcher then.
	if w := pc.w.Load(); w != nil {
		w.disarm()
	}
	if !ok {
		return false
	}
	pc.ic.busy.Store(false)
	pc.lookState()
	pc.ic.active()
	pc.peer.Flush()
	return !pc.peer.Closed()
}

// readSafe is r.read that survives a panic of the reader: the stack goes
// to the log and the client is closed.
func (s *Server) readSafe(c net.Conn, r *reqReader) (args []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logPanic(c, "reading", v)
			err = errReaderPanic
		}
	}()
	return r.read()
}

var errReaderPanic = errors.New("panic reading a request")

// watchAfter is how long a command runs, at least, before its client's
// socket is read again, to see the client leave; at most twice that.
// Commands that wait (BLPOP, a long script) take longer; the rest never
// start a second goroutine. Under load a command may wait this long for
// the engine's lock alone: at 5 ms, 200 busy clients started a watch for
// most commands.
const watchAfter = 100 * time.Millisecond

// A watcher reads a client's socket while its command runs long, as Redis
// keeps reading a blocked client: at EOF it closes the peer and wakes the
// commands that wait, so that this client's ends. What it reads stays in
// the buffer for the next request.
type watcher struct {
	s     *Server
	ic    *idleConn
	rd    *bufio.Reader
	peer  *Peer
	state atomic.Int32 // watchIdle, watchArmed or watchRunning
	// blocked is set while the command waits for others (Peer.Blocked):
	// at EOF the client goes even with requests it sent meanwhile.
	blocked atomic.Bool
	begun   atomic.Uint64 // commands begun (arm)
	seen    uint64        // begun at the sweep before; the sweeper's own
	done    chan struct{} // the running watch has ended
}

// watchers are a server's watchers and the sweeper that starts their
// watches. A timer per command (reset as it began, stopped as it ended)
// cost two timer-heap updates on every command; a sweep every watchAfter
// finds the commands that have run since the sweep before, at the cost of
// a look at each client.
type watchers struct {
	mu  sync.Mutex
	all map[*watcher]struct{}
	// stop, while the sweeper runs, is closed to end it when the last
	// client goes: no goroutine outlives a server's clients.
	stop chan struct{}
}

func (ws *watchers) add(s *Server, ic *idleConn, rd *bufio.Reader, peer *Peer) *watcher {
	w := &watcher{s: s, ic: ic, rd: rd, peer: peer, done: make(chan struct{}, 1)}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.all == nil {
		ws.all = map[*watcher]struct{}{}
	}
	ws.all[w] = struct{}{}
	if ws.stop == nil {
		ws.stop = make(chan struct{})
		go ws.sweep(ws.stop)
	}
	return w
}

func (ws *watchers) remove(w *watcher) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	delete(ws.all, w)
	if len(ws.all) == 0 && ws.stop != nil {
		close(ws.stop)
		ws.stop = nil
	}
}

// sweep starts the watch of each command that was running at the sweep
// before and still is: it has run at least watchAfter.
func (ws *watchers) sweep(stop chan struct{}) {
	t := time.NewTicker(watchAfter)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ws.mu.Lock()
		for w := range ws.all {
			begun := w.begun.Load()
			if begun == w.seen && w.state.CompareAndSwap(watchArmed, watchRunning) {
				go w.watch()
			}
			w.seen = begun
		}
		ws.mu.Unlock()
	}
}

const (
	watchIdle = iota
	watchArmed
	watchRunning
)

// arm marks a command begun.
func (w *watcher) arm() {
	w.begun.Add(1)
	w.state.Store(watchArmed)
}

// disarm ends the command's watch: nothing if the sweeper has not started
// one, else the running read, which it interrupts and waits for.
func (w *watcher) disarm() {
	w.blocked.Store(false)
	if w.state.CompareAndSwap(watchArmed, watchIdle) {
		return
	}
	w.ic.interrupt.Store(true)
	for waiting := true; waiting; {
		// Again until it has ended: idleConn.Read may set a deadline
		// of its own between its look at interrupt and the read.
		w.ic.Conn.SetReadDeadline(time.Unix(1, 0))
		select {
		case <-w.done:
			waiting = false
		case <-time.After(time.Millisecond):
		}
	}
	w.ic.interrupt.Store(false)
	w.ic.Conn.SetReadDeadline(time.Time{})
	w.state.Store(watchIdle)
}

// now starts the command's watch at once, not at the sweep after next, and
// makes an EOF end the client whatever it sent before.
func (w *watcher) now() {
	w.blocked.Store(true)
	if w.state.CompareAndSwap(watchArmed, watchRunning) {
		go w.watch()
	}
}

// holdsRequest reports whether b holds a whole request that read would
// return, not one it skips.
func holdsRequest(b []byte) bool {
	args, err := newReqReader(bufio.NewReader(bytes.NewReader(b)), Limits{}).read()
	return err == nil && len(args) > 0
}

// watch runs on a goroutine of its own, which the sweeper started when it
// moved the state from armed to running.
func (w *watcher) watch() {
	defer func() { w.done <- struct{}{} }()
	for !w.ic.interrupt.Load() {
		_, err := w.rd.Peek(w.rd.Buffered() + 1)
		switch {
		case err == nil:
		case err == bufio.ErrBufferFull || w.ic.interrupt.Load():
			// A full buffer: the client sent ahead more than it holds,
			// which is read after the command.
			return
		default:
			// Requests sent before the EOF run after this command, as
			// when a reader goroutine parsed ahead; anything else (an
			// empty line, half a request) is skipped or cut by the EOF.
			// A blocked client that leaves is gone, as Redis frees it
			// without running what it sent while blocked.
			if b, _ := w.rd.Peek(w.rd.Buffered()); w.blocked.Load() || !holdsRequest(b) {
				w.peer.Close()
				w.s.wakeBlocked()
			}
			return
		}
	}
}

// dispatchSafe is Dispatch that survives a panic of a command (scriptgen):
// the stack goes to the log, the client gets "ERR internal error" when
// none of the command's reply has left yet (a half-sent reply cannot be
// taken back: the client is only closed), and the process and every other
// client go on. ok is false after a panic; the caller then closes.
func (s *Server) dispatchSafe(c net.Conn, p *Peer, out *countingWriter, args []string) (ok bool) {
	sent := out.n.Load()
	defer func() {
		if v := recover(); v != nil {
			s.logPanic(c, "running "+args[0], v)
			if out.n.Load() == sent {
				p.w.Reset(out) // drops what the command buffered
				p.WriteError(msgInternalError)
				p.Flush()
			}
		}
	}()
	s.Dispatch(p, args)
	return true
}

// msgInternalError is the reply to a command that panicked. Redis has no
// such reply: a bug of its own crashes it.
const msgInternalError = "ERR internal error"

// countingWriter counts the bytes written to the connection, which tells
// whether a command's reply has started to leave.
type countingWriter struct {
	w io.Writer
	n atomic.Int64 // also written by a flush of another goroutine (PUBLISH)
}

func (cw *countingWriter) Write(b []byte) (int, error) {
	n, err := cw.w.Write(b)
	cw.n.Add(int64(n))
	return n, err
}

func (s *Server) logPanic(c net.Conn, doing string, v any) {
	s.log("panic %s for client %s: %v\n%s", doing, c.RemoteAddr(), v, debug.Stack())
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
	// interrupt ends a read at its deadline however busy the client:
	// a watcher's read at the end of the command it watched.
	interrupt atomic.Bool
	last      atomic.Int64 // Monotonic at the last read or command end
}

func (c *idleConn) active() { c.last.Store(nanotime()) }

// idle is how long the client has sent nothing.
func (c *idleConn) idle() time.Duration { return time.Duration(nanotime() - c.last.Load()) }

func (c *idleConn) Read(b []byte) (int, error) {
	if c.timeout <= 0 {
		return c.Conn.Read(b)
	}
	for {
		if c.interrupt.Load() {
			return 0, os.ErrDeadlineExceeded
		}
		left := c.timeout
		if !c.busy.Load() {
			left -= c.idle()
		}
		c.Conn.SetReadDeadline(time.Now().Add(left))
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.active()
		}
		var ne net.Error
		if n == 0 && errors.As(err, &ne) && ne.Timeout() &&
			!c.interrupt.Load() && (c.busy.Load() || c.idle() < c.timeout) {
			continue
		}
		return n, err
	}
}
