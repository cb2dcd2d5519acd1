//go:build linux

package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The event loop (scriptgen). A goroutine per client cost each request a
// read that found nothing, the goroutine's park and wake-up through Go's
// poller, and a second thread's epoll_wait: serve spent 1.6x redis-server's
// CPU on a request, over half of it there. And the clients' goroutines ran
// their commands in the order the scheduler woke them, not in the order
// the commands came: Go's poller hands a batch of ready connections over
// newest first, so a command sent after another on a second connection
// could run first (Redis's tests of blocked clients send so).
//
// The loop is Redis's: one goroutine waits on an epoll set of the clients'
// sockets (level-triggered), reads each ready socket once and runs every
// whole request it holds in order; once the round of ready sockets has
// run, it writes each client's replies in one write (release), as Redis
// writes them before it sleeps, and waits again. A client leaves the
// loop for a goroutine of its own (servePeer's, with its watcher) when the
// loop cannot serve it without waiting, until its command has ended and it
// has nothing unread (back): its command waits for others (BLPOP:
// Peer.Blocked), runs past watchAfter (a script: the loop goes on in a new
// goroutine meanwhile, so that others get BUSY and SCRIPT KILL is heard,
// as Redis serves them while a script runs), its replies do not fit the
// socket's buffer, or a request does not fit the read buffer.

// The socket's reads and writes are syscall's, not x/sys/unix's: the race
// detector sees syscall's (and Go's net package's) as ordered one after
// the other, as the client's write and the server's read are.

// errWouldBlock is a loop client's read that finds nothing more.
var errWouldBlock = errors.New("would block")

type evLoop struct {
	s    *Server
	once sync.Once
	ep   int // the epoll set; -1 when it could not be made
	wake int // an eventfd in it, to wake the loop

	mu    sync.Mutex
	conns map[int32]*loopConn
	// owner is the generation of the goroutine that runs the loop, 0 for
	// none, written under mu and read without it (owns, on every
	// request); gens counts them.
	owner    atomic.Uint64
	gens     uint64
	cur      *loopConn // the client the owner serves, if any
	sweeping bool
	closed   bool          // the server closed: no more clients
	begun    atomic.Uint64 // commands begun in the loop
	// held are the clients whose replies wait for the end of the owner's
	// present round of events (release). Only the owner touches it.
	held []*loopConn
}

// A loopConn is a client the loop serves, until it leaves.
type loopConn struct {
	l    *evLoop
	fd   int32
	pc   *peerConn
	src  *fdSource
	sock *loopSocket
	left bool        // under l.mu: it left the loop, or is gone
	busy atomic.Bool // a command of its runs
}

func (l *evLoop) init() {
	l.ep, l.wake = -1, -1
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		l.s.log("no event loop: %v", err)
		return
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err == nil {
		err = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake)})
	}
	if err != nil {
		l.s.log("no event loop: %v", err)
		unix.Close(ep)
		return
	}
	l.ep, l.wake, l.conns = ep, wake, map[int32]*loopConn{}
}

// serveInLoop hands c to the event loop, false if the loop cannot take
// it (then c is as it was).
func (s *Server) serveInLoop(c net.Conn) bool {
	tc, ok := c.(*net.TCPConn)
	if !ok || !s.loopOn {
		return false
	}
	l := &s.loop
	l.once.Do(func() { l.s = s; l.init() })
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if l.ep < 0 || closed {
		return false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	fd := -1
	rc.Control(func(f uintptr) { fd, err = unix.Dup(int(f)) })
	if fd < 0 {
		return false
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return false
	}
	sock := &loopSocket{fd: fd, laddr: tc.LocalAddr(), raddr: tc.RemoteAddr()}
	tc.Close() // the loop's copy of the socket stays open
	s.mu.Lock()
	delete(s.peers, c)
	s.peers[sock] = struct{}{}
	s.mu.Unlock()

	lc := &loopConn{l: l, fd: int32(fd), sock: sock, src: &fdSource{fd: fd}}
	ic := &idleConn{Conn: sock}
	lc.pc = s.newPeerConn(sock, ic, lc.src, sock)
	lc.pc.loopBusy = func(b bool) {
		lc.busy.Store(b)
		if b {
			l.begun.Add(1)
		}
	}
	lc.src.leave, sock.leave, lc.pc.peer.onBlocked = lc.leave, lc.leave, lc.leave
	lc.pc.back = lc.back
	lc.pc.start()

	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.add(lc) {
		// Served by a goroutine instead.
		lc.left = true
		lc.detach()
		go lc.serveAlone()
	}
	return true
}

// add puts lc in the epoll set, and starts the loop's goroutine and its
// sweeper if they are not running; false if epoll refused it. Under l.mu.
func (l *evLoop) add(lc *loopConn) bool {
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, int(lc.fd), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: lc.fd}); err != nil {
		return false
	}
	l.conns[lc.fd] = lc
	if l.owner.Load() == 0 {
		l.startOwner()
	}
	if !l.sweeping {
		l.sweeping = true
		go l.sweep()
	}
	return true
}

// wakeOwner ends the owner's wait in epoll_wait.
func (l *evLoop) wakeOwner() {
	unix.Write(l.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
}

// close ends the loop of a server whose clients are all gone (Close): its
// goroutine, once it has seen them go, and its epoll set.
func (l *evLoop) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.conns == nil { // closed, or never made
		l.closed = true
		return
	}
	l.closed = true
	for i := 0; l.owner.Load() != 0 && i < 1000; i++ {
		l.wakeOwner()
		l.mu.Unlock()
		time.Sleep(time.Millisecond)
		l.mu.Lock()
	}
	unix.Close(l.ep)
	unix.Close(l.wake)
}

// startOwner starts a goroutine that runs the loop, the only one that
// does from now on. Under l.mu.
func (l *evLoop) startOwner() {
	l.gens++
	l.owner.Store(l.gens)
	l.cur = nil
	go l.run(l.gens)
}

// owns reports whether the goroutine of generation gen still runs the
// loop.
func (l *evLoop) owns(gen uint64) bool {
	return l.owner.Load() == gen
}

// run is the loop, as the goroutine of generation gen runs it: until a
// client it serves leaves (the goroutine then serves that client alone),
// or no client is left.
func (l *evLoop) run(gen uint64) {
	events := make([]unix.EpollEvent, 128)
	for {
		// A goroutine that stopped running the loop while it wrote the
		// replies of a round left the rest of them to this one.
		if !l.release(gen) {
			return
		}
		n, err := unix.EpollWait(l.ep, events, -1)
		if err != nil && err != unix.EINTR {
			l.mu.Lock()
			closed := l.closed
			if closed {
				l.owner.Store(0)
				l.cur = nil
			}
			l.mu.Unlock()
			if closed {
				return
			}
			l.s.log("event loop: %v", err)
			time.Sleep(10 * time.Millisecond)
		}
		for _, ev := range events[:max(n, 0)] {
			if ev.Fd == int32(l.wake) {
				var b [8]byte
				unix.Read(l.wake, b[:])
				continue
			}
			l.mu.Lock()
			lc := l.conns[ev.Fd]
			if lc == nil || lc.left {
				l.mu.Unlock()
				continue
			}
			l.cur = lc
			l.mu.Unlock()
			if !l.serveEvent(lc, gen) {
				return
			}
		}
		if !l.release(gen) {
			return
		}
		l.mu.Lock()
		if len(l.conns) == 0 {
			l.owner.Store(0)
			l.cur = nil
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
	}
}

// serveEvent reads lc's socket once and runs the whole requests it then
// holds; false when the goroutine no longer runs the loop, because lc
// left it meanwhile (the goroutine has then served lc to its end).
func (l *evLoop) serveEvent(lc *loopConn, gen uint64) (owner bool) {
	pc := lc.pc
	defer func() {
		if v := recover(); v != nil {
			l.s.logPanic(pc.c, "serving", v)
			if owner = l.owns(gen); owner {
				owner = l.end(lc, gen)
			} else {
				lc.finish()
			}
		}
	}()
	if lc.sock.hold() {
		l.held = append(l.held, lc)
	}
	var rerr error
	if pc.rd.Buffered() < pc.rd.Size() {
		lc.src.fresh = true
		_, rerr = pc.rd.Peek(pc.rd.Buffered() + 1)
		lc.src.fresh = false
		if rerr == errWouldBlock || rerr == bufio.ErrBufferFull {
			rerr = nil
		}
	}
	for {
		args, fast := pc.r.whole()
		var err error
		if !fast {
			b, _ := pc.rd.Peek(pc.rd.Buffered())
			skip, whole := scanRequest(b, pc.r.lim.MaxBulkLen, pc.unauth)
			pc.rd.Discard(skip)
			if !whole {
				break
			}
			args, err = l.s.readSafe(pc.c, pc.r)
		}
		ok := err == nil && pc.exec(args)
		if err != nil {
			pc.readFailed(err)
		}
		if !l.owns(gen) {
			// It left: the reader wanted more than had come, or the
			// command waited or ran long. Now it is this goroutine's.
			if !ok || !pc.serve() {
				lc.finish()
			}
			return false
		}
		if !ok {
			return l.end(lc, gen)
		}
	}
	if rerr != nil {
		// The client's end, or its socket's: what came before has run.
		return l.end(lc, gen)
	}
	if pc.rd.Buffered() == pc.rd.Size() {
		// A request longer than the buffer: a goroutine reads the rest.
		lc.leave()
		lc.serveAlone()
		return false
	}
	l.mu.Lock()
	if l.cur == lc {
		l.cur = nil
	}
	l.mu.Unlock()
	return true
}

// release writes the replies the round's clients hold, as Redis writes
// them before it sleeps: a round of many clients' requests costs each one
// write, and their replies reach the clients together, for them to read
// in one wake-up. False when the goroutine no longer runs the loop: a
// client's socket was full, the client left the loop, and this goroutine
// wrote the rest and went on serving it (the new owner writes the others').
func (l *evLoop) release(gen uint64) bool {
	for len(l.held) > 0 {
		lc := l.held[0]
		l.held[0] = nil
		l.held = l.held[1:]
		if len(l.held) == 0 {
			l.held = l.held[:0:cap(l.held)]
		}
		l.mu.Lock()
		if lc.left {
			// Whoever serves it now writes what it holds (leaveLocked),
			// maybe blocked on a full socket under its wmu, which the
			// loop does not wait for: the hold ends when it comes back
			// (attach).
			l.mu.Unlock()
			continue
		}
		l.cur = lc
		l.mu.Unlock()
		lc.sock.release()
		if !l.owns(gen) {
			if !lc.pc.serve() {
				lc.finish()
			}
			return false
		}
		l.mu.Lock()
		if l.cur == lc {
			l.cur = nil
		}
		l.mu.Unlock()
	}
	return true
}

// end writes what lc holds and ends it; false when the goroutine no
// longer runs the loop (lc's socket was full: this goroutine wrote the
// rest, out of the loop, and ended it).
func (l *evLoop) end(lc *loopConn, gen uint64) (owner bool) {
	lc.sock.release()
	if !l.owns(gen) {
		lc.finish()
		return false
	}
	l.drop(lc)
	return true
}

// leave makes lc a client of a goroutine of its own, for good. If the
// loop is serving it (its command waits, or the sweeper found it running
// long), the goroutine serving it goes on with it, and a new goroutine
// runs the loop; else a new goroutine serves it.
func (lc *loopConn) leave() {
	l := lc.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leaveLocked(lc)
}

func (l *evLoop) leaveLocked(lc *loopConn) {
	if lc.left {
		return
	}
	lc.left = true
	l.forget(lc)
	lc.detach()
	// Replies the loop held for it go now, not after its command, which
	// may wait long (BLPOP); a write of its own waits for this one.
	go lc.sock.Write(nil)
	if l.cur == lc {
		l.startOwner()
		return
	}
	go lc.serveAlone()
}

// serveAlone serves a client that left the loop until it goes back to it
// or goes.
func (lc *loopConn) serveAlone() {
	if !lc.pc.serve() {
		lc.finish()
	}
}

// back puts lc, which left the loop, back in it, between two commands and
// with nothing it sent unread: its later commands run in the loop again,
// in the order they come with the others'. False when it cannot go back
// (the server no longer runs a loop, or the client is closing).
func (lc *loopConn) back() bool {
	l := lc.l
	if lc.pc.peer.Closed() || !lc.sock.attach() {
		return false
	}
	lc.pc.unwatchSocket()
	lc.src.conn.Store(nil)
	lc.pc.ic.Conn = lc.sock
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.add(lc) {
		// Stays out, on a copy in Go's poller again.
		lc.detach()
		return false
	}
	lc.left = false
	return true
}

// forget takes lc out of the loop's set. Under l.mu.
func (l *evLoop) forget(lc *loopConn) {
	unix.EpollCtl(l.ep, unix.EPOLL_CTL_DEL, int(lc.fd), nil)
	if l.conns[lc.fd] == lc {
		delete(l.conns, lc.fd)
	}
	if len(l.conns) == 0 {
		// The owner may wait with nothing left to wait on: it ends.
		l.wakeOwner()
	}
}

// detach gives lc's reads and writes to a net.Conn of Go's poller, and a
// watcher, as servePeer's client has.
func (lc *loopConn) detach() {
	pc := lc.pc
	nc := lc.sock.detach()
	pc.ic.Conn = nc
	lc.src.conn.Store(pc.ic)
	w := pc.watchSocket()
	if lc.busy.Load() {
		w.arm() // the command running ends with its disarm
	}
}

// drop ends a client the loop serves: it closed, or is closed.
func (l *evLoop) drop(lc *loopConn) {
	l.mu.Lock()
	if !lc.left {
		lc.left = true
		l.forget(lc)
	}
	if l.cur == lc {
		l.cur = nil
	}
	l.mu.Unlock()
	lc.finish()
}

// finish is a loop client's end, in or out of the loop: what servePeer's
// caller does after it.
func (lc *loopConn) finish() {
	lc.sock.Write(nil) // what it holds, if it left the loop holding replies
	lc.pc.end()
	s := lc.l.s
	s.mu.Lock()
	delete(s.peers, lc.sock)
	s.mu.Unlock()
	lc.sock.closeAll()
	s.wg.Done()
}

// sweep leaves the loop for the command that has run since the sweep
// before (watchAfter to twice that): the loop goes on in a new goroutine.
func (l *evLoop) sweep() {
	t := time.NewTicker(watchAfter)
	defer t.Stop()
	var seen uint64
	for range t.C {
		l.mu.Lock()
		if len(l.conns) == 0 {
			l.sweeping = false
			l.mu.Unlock()
			return
		}
		begun := l.begun.Load()
		if cur := l.cur; cur != nil && cur.busy.Load() && begun == seen {
			l.leaveLocked(cur)
		}
		seen = begun
		l.mu.Unlock()
	}
}

// fdSource is what a loop client's reader reads: the socket, read once
// for each time epoll finds it readable, and Go's net.Conn once the
// client has left the loop.
type fdSource struct {
	fd    int
	fresh bool // the loop's read of a readiness event is still to come
	conn  atomic.Pointer[idleConn]
	leave func()
}

func (f *fdSource) Read(p []byte) (int, error) {
	if ic := f.conn.Load(); ic != nil {
		return ic.Read(p)
	}
	if !f.fresh {
		// The reader wants more of a request than has come: the client
		// leaves the loop, and this goroutine waits for the rest.
		f.leave()
		return f.conn.Load().Read(p)
	}
	f.fresh = false
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case n > 0:
			return n, nil
		case err == nil:
			return 0, io.EOF
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			return 0, errWouldBlock
		default:
			return 0, err
		}
	}
}

// loopSocket is a loop client's socket: the net.Conn the server and
// CLIENT LIST know it by, the writer of its replies, and, while it is out
// of the loop, the net.Conn of Go's poller that serves it then.
type loopSocket struct {
	// wmu is held through each write, so that a client going back to the
	// loop closes its copy in Go's poller with no write on it.
	wmu sync.Mutex
	// mu guards fd, closed and nc; closing the fd takes both.
	mu     sync.Mutex
	fd     int
	closed bool
	nc     net.Conn
	laddr  net.Addr
	raddr  net.Addr
	leave  func()
	// Under wmu: held makes writes wait in kept until the loop's round of
	// events ends (release), while the client is in the loop.
	held bool
	kept []byte
	// away says nc is set (under mu): the client is out of the loop.
	away atomic.Bool
}

// Write writes b whole, or keeps it while the loop holds the client's
// replies; a socket whose buffer is full makes its client leave the
// loop, and the rest is written by Go's poller.
func (s *loopSocket) Write(b []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.held && !s.away.Load() {
		s.kept = append(s.kept, b...)
		return len(b), nil
	}
	if len(s.kept) > 0 {
		if err := s.writeOut(); err != nil {
			return 0, err
		}
	}
	return s.write(b)
}

// hold makes the client's replies wait for release; false if they
// already do.
func (s *loopSocket) hold() bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	was := s.held
	s.held = true
	return !was
}

// release ends the hold and writes what it kept.
func (s *loopSocket) release() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.held = false
	if len(s.kept) > 0 {
		s.writeOut()
	}
}

// writeOut writes the replies held, and forgets them, written or not: a
// socket that fails a write fails the client's next read too. Under wmu.
func (s *loopSocket) writeOut() error {
	_, err := s.write(s.kept)
	s.kept = s.kept[:0]
	if cap(s.kept) > 64<<10 {
		s.kept = nil // a large reply's buffer is not kept
	}
	return err
}

// write writes b whole. Under wmu.
func (s *loopSocket) write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		s.mu.Lock()
		fd, closed, nc := s.fd, s.closed, s.nc
		s.mu.Unlock()
		switch {
		case nc != nil:
			m, err := nc.Write(b[n:])
			return n + m, err
		case closed:
			return n, net.ErrClosed
		}
		m, err := syscall.Write(fd, b[n:])
		switch {
		case m > 0:
			n += m
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			s.leave()
			s.mu.Lock()
			nc = s.nc
			s.mu.Unlock()
			if nc == nil {
				return n, net.ErrClosed // gone meanwhile
			}
		default:
			return n, err
		}
	}
	return n, nil
}

// detach makes the net.Conn that serves the client out of the loop: a
// copy of the socket in Go's poller.
func (s *loopSocket) detach() net.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nc != nil || s.closed {
		return closedConn{s}
	}
	fd, err := unix.Dup(s.fd)
	if err == nil {
		f := os.NewFile(uintptr(fd), "")
		s.nc, err = net.FileConn(f)
		f.Close()
		s.away.Store(err == nil)
	}
	if err != nil {
		unix.Shutdown(s.fd, unix.SHUT_RDWR)
		return closedConn{s}
	}
	return s.nc
}

// attach closes the copy of the socket in Go's poller, for a client going
// back to the loop; false if the socket is closed.
func (s *loopSocket) attach() bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
		s.away.Store(false)
	}
	s.held = false // held when it left, and written since
	return true
}

// Close ends the connection (CLIENT KILL, the server's Close): the reads
// of whoever serves it end, and it then closes its copies. It does not
// wait for a write under way: the shutdown ends that too.
func (s *loopSocket) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		unix.Shutdown(s.fd, unix.SHUT_RDWR)
	}
	return nil
}

func (s *loopSocket) closeAll() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		unix.Close(s.fd)
	}
	if s.nc != nil {
		s.nc.Close()
	}
}

func (s *loopSocket) Read([]byte) (int, error)         { return 0, errors.New("read of a loop socket") }
func (s *loopSocket) LocalAddr() net.Addr              { return s.laddr }
func (s *loopSocket) RemoteAddr() net.Addr             { return s.raddr }
func (s *loopSocket) SetDeadline(time.Time) error      { return nil }
func (s *loopSocket) SetReadDeadline(time.Time) error  { return nil }
func (s *loopSocket) SetWriteDeadline(time.Time) error { return nil }

// closedConn stands for a socket that could not be handed to Go's poller:
// it reads an EOF.
type closedConn struct{ *loopSocket }

func (closedConn) Read([]byte) (int, error) { return 0, io.EOF }
