package server

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/fpconv"
)

func errUnknownCommand(cmd string, args []string) string {
	s := fmt.Sprintf("ERR unknown command `%s`, with args beginning with: ", cmd)
	if len(args) > 20 {
		args = args[:20]
	}
	for _, a := range args {
		s += fmt.Sprintf("`%s`, ", a)
	}
	return s
}

// Cmd is what Register expects
type Cmd func(c *Peer, cmd string, args []string)

type DisconnectHandler func(c *Peer)

// Hook is can be added to run before every cmd. Return true if the command is done.
type Hook func(*Peer, string, ...string) bool

// Server is a simple redis server
type Server struct {
	l         net.Listener
	cmds      map[string]*cmdMeta
	preHook   atomic.Pointer[Hook] // scriptgen: read by every command without s.mu
	peers     map[net.Conn]struct{}
	mu        sync.Mutex
	wg        sync.WaitGroup
	infoConns int
	infoCmds  atomic.Int64 // scriptgen: counted without s.mu
	limits    Limits       // scriptgen: see SetLimits
	peerState PeerState    // scriptgen: see SetLimits
	logf      func(format string, args ...any)
	wake      func()                   // see SetWake
	clients   clientList               // scriptgen: see clientinfo.go
	errs      ErrorStats               // scriptgen: see errorstats.go
	stats     atomic.Pointer[cmdStats] // scriptgen: see cmdstats.go
	watchers  watchers                 // scriptgen: see conn.go
	loop      evLoop                   // scriptgen: see loop_linux.go
	loopOn    bool                     // scriptgen: see SetEventLoop
}

// NewServer makes a server listening on addr. Close with .Close().
func NewServer(addr string) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return newServer(l), nil
}

func NewServerTLS(addr string, cfg *tls.Config) (*Server, error) {
	l, err := tls.Listen("tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	return newServer(l), nil
}

// NewServerConn makes a server without a listener. Connections are added
// with ServeConn. Close with .Close().
func NewServerConn() *Server {
	return &Server{
		cmds:   map[string]*cmdMeta{},
		peers:  map[net.Conn]struct{}{},
		loopOn: true,
	}
}

func newServer(l net.Listener) *Server {
	s := Server{
		cmds:   map[string]*cmdMeta{},
		peers:  map[net.Conn]struct{}{},
		l:      l,
		loopOn: true,
	}

	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.serve(l)

		s.mu.Lock()
		for c := range s.peers {
			c.Close()
		}
		s.mu.Unlock()
	}()
	return &s
}

// (un)set a hook which is ran before every call. It returns true if the command is done.
func (s *Server) SetPreHook(h Hook) {
	if h == nil {
		s.preHook.Store(nil)
		return
	}
	s.preHook.Store(&h)
}

func (s *Server) serve(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		s.ServeConn(conn)
	}
}

// ServeConn handles a net.Conn. Nice with net.Pipe()
func (s *Server) ServeConn(conn net.Conn) {
	s.mu.Lock()
	if len(s.peers) >= s.limits.withDefaults().MaxClients {
		s.mu.Unlock()
		// As Redis: the error, unasked, then close.
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		conn.Write([]byte("-ERR max number of clients reached\r\n"))
		conn.Close()
		return
	}
	s.wg.Add(1)
	s.peers[conn] = struct{}{}
	s.infoConns++
	loop := s.loopOn && s.limits.IdleTimeout <= 0
	s.mu.Unlock()

	if loop && s.serveInLoop(conn) {
		return
	}
	go func() {
		defer s.wg.Done()
		defer conn.Close()

		s.servePeer(conn)

		s.mu.Lock()
		delete(s.peers, conn)
		s.mu.Unlock()
	}()
}

// SetEventLoop chooses how connections accepted from now on are served
// (scriptgen): on (the default, on Linux), by one event loop until a
// client needs a goroutine of its own (loop_linux.go); off, each by a
// goroutine of its own from the start. Clients with an idle timeout
// (Limits.IdleTimeout) always get a goroutine.
func (s *Server) SetEventLoop(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loopOn = on
}

// Addr has the net.Addr struct
func (s *Server) Addr() *net.TCPAddr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.l == nil {
		return nil
	}
	return s.l.Addr().(*net.TCPAddr)
}

// Close a server started with NewServer. It will wait until all clients are
// closed.
func (s *Server) Close() {
	s.mu.Lock()
	if s.l != nil {
		s.l.Close()
	}
	s.l = nil
	for c := range s.peers {
		c.Close()
	}
	s.mu.Unlock()

	s.wg.Wait()
	s.loop.close()
}

// Register a command. It can't have been registered before. Safe to call on a
// running server.
func (s *Server) Register(cmd string, f Cmd, options ...CmdOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd = strings.ToUpper(cmd)
	if _, ok := s.cmds[cmd]; ok {
		return fmt.Errorf("command already registered: %s", cmd)
	}

	meta := &cmdMeta{
		handler:  f,
		readOnly: false,
	}
	for _, option := range options {
		option(meta)
	}
	s.cmds[cmd] = meta

	return nil
}

func (s *Server) Dispatch(c *Peer, args []string) {
	if len(args) == 0 {
		return // scriptgen: as Redis ignores an empty request
	}
	cmd, args := args[0], args[1:]
	cmdUp := strings.ToUpper(cmd)
	// scriptgen: the hook is read without s.mu: every client's every
	// command took it, and under load those were lock hand-offs between
	// the clients' goroutines.
	st := s.CommandStat(cmdUp, args)
	mark := c.startCmd(st)
	outerName, outerArgs := c.cmdName, c.cmdArgs
	c.cmdName, c.cmdArgs = cmdUp, args
	defer func() { c.cmdName, c.cmdArgs = outerName, outerArgs }()
	if h := s.preHook.Load(); h != nil {
		if (*h)(c, cmdUp, args...) {
			c.endCmd(mark)
			return
		}
	}

	s.mu.Lock()
	cmdMeta, ok := s.cmds[cmdUp]
	s.mu.Unlock()
	if !ok {
		c.WriteError(errUnknownCommand(cmd, args))
		c.endCmd(mark)
		return
	}
	s.infoCmds.Add(1)
	run(c, cmdMeta.handler, cmdUp, args)
	c.endCmd(mark)
}

// run is the end of Dispatch and RunHandler: the handler, then the
// protocol switch it may have asked for (HELLO).
func run(c *Peer, h Cmd, cmdUp string, args []string) {
	h(c, cmdUp, args)
	if c.SwitchResp3 != nil {
		c.Resp3 = *c.SwitchResp3
		c.SwitchResp3 = nil
	}
}

// Wrap replaces the handler of every registered command with what wrap
// makes of it (scriptgen: checks that run before a command, as the
// registrar of the checks puts them).
func (s *Server) Wrap(wrap func(cmdUp string, h Cmd) Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, m := range s.cmds {
		m.handler = wrap(name, m.handler)
	}
}

// Handler is the command registered under cmdUp (upper case), nil if
// none is. scriptgen: for a caller that resolves a command name once and
// runs it many times without Dispatch (RunHandler).
func (s *Server) Handler(cmdUp string) Cmd {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.cmds[cmdUp]; ok {
		return m.handler
	}
	return nil
}

// RunHandler is Dispatch for a command whose handler the caller looked up
// (Handler) and whose pre-hook it has run itself: the count, the handler,
// and the protocol switch after it, as Dispatch does them. st is the
// command's counters (CommandStat), which the caller may keep too.
func (s *Server) RunHandler(c *Peer, h Cmd, st *CmdStat, cmdUp string, args []string) {
	s.infoCmds.Add(1)
	mark := c.startCmd(st)
	outerName, outerArgs := c.cmdName, c.cmdArgs
	c.cmdName, c.cmdArgs = cmdUp, args
	run(c, h, cmdUp, args)
	c.cmdName, c.cmdArgs = outerName, outerArgs
	c.endCmd(mark)
}

// Command is the command c runs: its name in upper case and its
// arguments, as Dispatch or RunHandler got them (scriptgen: what
// replication propagates). The slice is the request's: a caller that
// keeps it past the command copies it.
func (c *Peer) Command() (string, []string) { return c.cmdName, c.cmdArgs }

// TotalCommands is total (known) commands since this the server started
func (s *Server) TotalCommands() int {
	return int(s.infoCmds.Load())
}

// IsRegisteredCommand checks if a command is registered
func (s *Server) IsRegisteredCommand(cmd string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmdUp := strings.ToUpper(cmd)
	_, ok := s.cmds[cmdUp]
	return ok
}

// IsReadOnlyCommand checks if a command is marked as read-only
func (s *Server) IsReadOnlyCommand(cmd string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmdUp := strings.ToUpper(cmd)
	if cmdMeta, ok := s.cmds[cmdUp]; ok {
		return cmdMeta.readOnly
	}
	return false
}

// ClientsLen gives the number of connected clients right now
func (s *Server) ClientsLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.peers)
}

// TotalConnections give the number of clients connected since the server
// started, including the currently connected ones
func (s *Server) TotalConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.infoConns
}

// Peer is a client connected to the server
type Peer struct {
	w            *bufio.Writer
	closed       bool
	Resp3        bool
	SwitchResp3  *bool       // we'll switch to this version _after_ the command
	Ctx          interface{} // anything goes, server won't touch this
	onDisconnect []func()    // list of callbacks
	mu           sync.Mutex  // for Block()
	ClientName   string      // client name set by CLIENT SETNAME
	sink         Sink        // scriptgen: see SetSink
	client       *Client     // scriptgen: see clientinfo.go
	errs         *ErrorStats // scriptgen: see errorstats.go
	// scriptgen: the error replies written, and the marks of the
	// command running (cmdstats.go); only the peer's goroutine
	// touches them.
	nerr int64
	cmd  cmdState
	// watch reads the client's socket while its command runs long
	// (conn.go); nil for a peer the server does not read.
	watch atomic.Pointer[watcher]
	// onBlocked, when set, runs as the command is about to wait
	// (Blocked): a client the event loop serves leaves it.
	onBlocked func()
	// scriptgen: the command running, for Command.
	cmdName string
	cmdArgs []string
}

func NewPeer(w *bufio.Writer) *Peer {
	return &Peer{
		w: w,
	}
}

// Flush the write buffer. Called automatically after every redis command
func (c *Peer) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.Flush()
}

// Close the client connection after the current command is done.
func (c *Peer) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
}

// Blocked tells the server that the peer's command waits for other
// clients (BLPOP and the like; scriptgen). Its socket is read from now on,
// as Redis reads a blocked client, not from the watcher's sweep 100 to
// 200 ms later: a client that leaves is closed, and the commands that
// wait woken (SetWake), at once, and INFO no longer counts it blocked.
func (c *Peer) Blocked() {
	if c.onBlocked != nil {
		c.onBlocked()
	}
	if w := c.watch.Load(); w != nil {
		w.now()
	}
}

// Return true if the peer connection closed.
func (c *Peer) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Register a function to execute on disconnect. There can be multiple
// functions registered.
func (c *Peer) OnDisconnect(f func()) {
	c.onDisconnect = append(c.onDisconnect, f)
}

// issue multiple calls, guarded with a mutex
func (c *Peer) Block(f func(*Writer)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&Writer{c.w, c.Resp3, c.sink, c})
}

// scriptgen: the single-reply methods below write through a Writer on the
// stack; upstream's closure per reply (c.Block(func…)) was an allocation.
// A peer with a sink takes no lock: it is the engine's nested peer, written
// by one goroutine only, under miniredis's lock (see SetSink).

// WriteError writes a redis 'Error'
func (c *Peer) WriteError(e string) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteError(e)
}

// WriteInline writes a redis inline string
func (c *Peer) WriteInline(s string) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteInline(s)
}

// WriteOK write the inline string `OK`
func (c *Peer) WriteOK() {
	c.WriteInline("OK")
}

// WriteBulk writes a bulk string
func (c *Peer) WriteBulk(s string) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteBulk(s)
}

// WriteNull writes a redis Null element
func (c *Peer) WriteNull() {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteNull()
}

// WriteLen starts an array with the given length
func (c *Peer) WriteLen(n int) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteLen(n)
}

// WriteMapLen starts a map with the given length (number of keys)
func (c *Peer) WriteMapLen(n int) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteMapLen(n)
}

// WriteSetLen starts a set with the given length (number of elements)
func (c *Peer) WriteSetLen(n int) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteSetLen(n)
}

// WritePushLen starts a push-data array with the given length
func (c *Peer) WritePushLen(n int) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WritePushLen(n)
}

// WriteInt writes an integer
func (c *Peer) WriteInt(n int) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteInt(n)
}

// WriteFloat writes a float
func (c *Peer) WriteFloat(n float64) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteFloat(n)
}

// WriteDoubleText writes text as a RESP3 double, or a bulk string in RESP2,
// spelt text (scriptgen: Redis's addReplyHumanLongDouble, whose text is
// not formatFloat's); a sink gets the same text.
func (c *Peer) WriteDoubleText(text string) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	switch {
	case !w.resp3:
		w.WriteBulk(text)
	case w.sink != nil:
		w.sink.Raw("," + text + "\r\n")
	default:
		w.writeLine(',', text)
	}
}

// WriteRaw writes a raw redis response
func (c *Peer) WriteRaw(s string) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteRaw(s)
}

// WriteRawBytes is WriteRaw for a reply made as bytes (scriptgen: a
// script's reply, which string(b) copied once per EVAL before WriteRaw
// copied it again into the buffer). b may be reused after the call.
func (c *Peer) WriteRawBytes(b []byte) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.w.Write(b)
		return
	}
	c.sink.Raw(string(b))
}

// WriteStrings is a helper to (bulk)write a string list
func (c *Peer) WriteStrings(strs []string) {
	if c.sink == nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	w := Writer{c.w, c.Resp3, c.sink, c}
	w.WriteStrings(strs)
}

// SetSink makes the peer hand its replies to s instead of writing RESP;
// nil goes back to RESP (scriptgen). Only for a peer no other goroutine
// writes to, and called by the goroutine that does: while a sink is set,
// the peer's writes take no lock.
func (c *Peer) SetSink(s Sink) {
	c.sink = s
}

// A Sink receives a peer's replies as the RESP values they would be
// written as, after the RESP2/RESP3 choices the Writer makes: Map, Set,
// Push and Double come only from a RESP3 peer (a RESP2 one gets an array
// of 2n, an array, an array and a bulk string), and Error and Status have
// had their whitespace made inline (scriptgen).
type Sink interface {
	Error(msg string)
	Status(s string)
	Int(n int)
	Bulk(s string)
	Null()
	Array(n int) // n < 0: a null array
	Map(n int)   // n pairs follow
	Set(n int)
	Push(n int)
	Double(f float64)
	Raw(s string) // a whole RESP reply, written as is
}

func toInline(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
}

// A Writer is given to the callback in Block()
type Writer struct {
	w     *bufio.Writer
	resp3 bool
	sink  Sink  // scriptgen: replies go here, not to w, when set
	peer  *Peer // scriptgen: counts WriteError's errors when set
}

// scriptgen: the Writer writes RESP with strconv and WriteString where
// upstream used fmt.Fprintf, byte for byte the same.

// writeHeader writes a RESP type byte, a decimal number and CRLF.
func (w *Writer) writeHeader(t byte, n int) {
	var buf [24]byte
	b := append(buf[:0], t)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '\r', '\n')
	w.w.Write(b)
}

// writeLine writes a RESP type byte, s and CRLF.
func (w *Writer) writeLine(t byte, s string) {
	w.w.WriteByte(t)
	w.w.WriteString(s)
	w.w.WriteString("\r\n")
}

// WriteError writes a redis 'Error'
func (w *Writer) WriteError(e string) {
	if w.peer != nil {
		w.peer.CountError(e)
	}
	if w.sink != nil {
		w.sink.Error(toInline(e))
		return
	}
	w.writeLine('-', toInline(e))
}

func (w *Writer) WriteLen(n int) {
	if w.sink != nil {
		w.sink.Array(n)
		return
	}
	w.writeHeader('*', n)
}

func (w *Writer) WriteMapLen(n int) {
	if w.resp3 {
		if w.sink != nil {
			w.sink.Map(n)
			return
		}
		w.writeHeader('%', n)
		return
	}
	w.WriteLen(n * 2)
}

func (w *Writer) WriteSetLen(n int) {
	if w.resp3 {
		if w.sink != nil {
			w.sink.Set(n)
			return
		}
		w.writeHeader('~', n)
		return
	}
	w.WriteLen(n)
}

func (w *Writer) WritePushLen(n int) {
	if w.resp3 {
		if w.sink != nil {
			w.sink.Push(n)
			return
		}
		w.writeHeader('>', n)
		return
	}
	w.WriteLen(n)
}

// WriteBulk writes a bulk string
func (w *Writer) WriteBulk(s string) {
	if w.sink != nil {
		w.sink.Bulk(s)
		return
	}
	w.writeHeader('$', len(s))
	w.w.WriteString(s)
	w.w.WriteString("\r\n")
}

// WriteStrings writes a list of strings (bulk)
func (w *Writer) WriteStrings(strs []string) {
	w.WriteLen(len(strs))
	for _, s := range strs {
		w.WriteBulk(s)
	}
}

// WriteInt writes an integer
func (w *Writer) WriteInt(n int) {
	if w.sink != nil {
		w.sink.Int(n)
		return
	}
	w.writeHeader(':', n)
}

// WriteFloat writes a float
func (w *Writer) WriteFloat(n float64) {
	if w.resp3 {
		if w.sink != nil {
			w.sink.Double(n)
			return
		}
		w.writeLine(',', formatFloat(n))
		return
	}
	w.WriteBulk(formatFloat(n))
}

// WriteNull writes a redis Null element
func (w *Writer) WriteNull() {
	if w.sink != nil {
		w.sink.Null()
		return
	}
	if w.resp3 {
		w.w.WriteString("_\r\n")
		return
	}
	w.w.WriteString("$-1\r\n")
}

// WriteInline writes a redis inline string
func (w *Writer) WriteInline(s string) {
	if w.sink != nil {
		w.sink.Status(toInline(s))
		return
	}
	w.writeLine('+', toInline(s))
}

// WriteRaw writes a raw redis response
func (w *Writer) WriteRaw(s string) {
	if w.sink != nil {
		w.sink.Raw(s)
		return
	}
	w.w.WriteString(s)
}

func (w *Writer) Flush() {
	if w.sink != nil {
		return
	}
	w.w.Flush()
}

// formatFloat formats a float the way redis does.
// Redis uses a method called "grisu2", which we ported from C.
func formatFloat(v float64) string {
	return fpconv.Dtoa(v)
}
