package server

import (
	"bufio"
	"io"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// scriptgen: what CLIENT LIST, CLIENT INFO, CLIENT ID and CLIENT KILL need
// of a connection, kept beside the Peer so that the commands' hot path
// gains one pointer store per command (Client.begin) and nothing else.
// Upstream kept no per-connection record but the name.

// Client is a connection as CLIENT LIST shows it. Fields another
// goroutine reads are atomic: CLIENT LIST runs on the asker's goroutine.
type Client struct {
	ID      int64
	Created time.Time
	conn    net.Conn
	idle    *idleConn
	last    atomic.Pointer[[]string] // the arguments of the last command begun
	db      atomic.Int32
	resp    atomic.Int32 // 2 or 3
	name    atomic.Pointer[string]
	NoEvict atomic.Bool
	killed  atomic.Bool // Kill: gone for CLIENT LIST and KILL at once

	// CLIENT REPLY: the peer's writer while replies are discarded, and how
	// many commands are left to discard (-1: until REPLY ON).
	saved *bufio.Writer
	skip  int
}

// clientList is the server's connections by peer.
type clientList struct {
	mu     sync.Mutex
	nextID int64
	byPeer map[*Peer]*Client
}

// addClient records a new connection; dropClient forgets it.
func (s *Server) addClient(p *Peer, c net.Conn, ic *idleConn) {
	l := &s.clients
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byPeer == nil {
		l.byPeer = map[*Peer]*Client{}
	}
	l.nextID++
	p.client = &Client{ID: l.nextID, Created: time.Now(), conn: c, idle: ic}
	p.client.resp.Store(2)
	l.byPeer[p] = p.client
}

func (s *Server) dropClient(p *Peer) {
	s.clients.mu.Lock()
	delete(s.clients.byPeer, p)
	s.clients.mu.Unlock()
}

// Clients lists the connected peers, oldest first.
func (s *Server) Clients() []*Peer {
	s.clients.mu.Lock()
	out := make([]*Peer, 0, len(s.clients.byPeer))
	for p, c := range s.clients.byPeer {
		if !c.killed.Load() {
			out = append(out, p)
		}
	}
	s.clients.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].client.ID < out[j].client.ID })
	return out
}

// Client is the peer's connection record, nil for a peer without a
// connection (the engine's nested peer, a test's).
func (c *Peer) Client() *Client { return c.client }

// begin notes a command about to run, on the peer's goroutine.
func (c *Client) begin(p *Peer, args []string) {
	c.last.Store(&args)
	if c.saved == nil || c.skip < 0 {
		return
	}
	if c.skip == 0 {
		p.mu.Lock()
		p.w, c.saved = c.saved, nil
		p.mu.Unlock()
		return
	}
	c.skip--
}

// SetReply is CLIENT REPLY ON, OFF or SKIP (the next command's reply
// only): OFF and SKIP discard their own reply too, as Redis does.
func (p *Peer) SetReply(on, skipNext bool) {
	c := p.client
	if c == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case on:
		if c.saved != nil {
			p.w, c.saved = c.saved, nil
		}
	default:
		if c.saved == nil {
			// A writer of its own: two connections' replies into one
			// shared writer raced (go test -race).
			c.saved, p.w = p.w, bufio.NewWriterSize(io.Discard, 16)
		}
		c.skip = -1
		if skipNext {
			c.skip = 1
		}
	}
}

// EndReplyOff is RESET's part of CLIENT REPLY: OFF ends, so that RESET's
// own reply is written, while a SKIP already applied to the command
// running (RESET) still discards its reply, as in Redis.
func (p *Peer) EndReplyOff() {
	if c := p.client; c != nil && c.skip < 0 {
		p.SetReply(true, false)
	}
}

// MakeReplica makes p the connection of a replica (scriptgen: SYNC):
// replies to what it sends from now on are dropped, as Redis writes a
// replica nothing but the stream (REPLCONF ACK gets no answer), and the
// function returned queues the stream for it. A goroutine of its own
// writes the queue out, so that a replica that reads slowly, or not at
// all, never holds up the writer (who holds the keyspace's lock); one
// whose queue grows past limit bytes is disconnected, as Redis drops a
// replica past client-output-buffer-limit.
func (p *Peer) MakeReplica(limit int) func(s string) {
	p.mu.Lock()
	w := p.w
	if c := p.client; c != nil && c.saved != nil {
		w, c.saved = c.saved, nil // CLIENT REPLY OFF before
	}
	p.w = bufio.NewWriterSize(io.Discard, 16)
	p.mu.Unlock()
	q := &replicaQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
	p.OnDisconnect(func() { close(q.done) })
	go q.run(w)
	return func(s string) { q.push(p, s, limit) }
}

// replicaQueue is the stream not yet written to one replica.
type replicaQueue struct {
	mu     sync.Mutex
	buf    []string
	size   int
	closed bool
	wake   chan struct{}
	done   chan struct{} // the connection is gone
}

func (q *replicaQueue) push(p *Peer, s string, limit int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.buf = append(q.buf, s)
	q.size += len(s)
	if q.size > limit {
		q.closed, q.buf = true, nil
		if c := p.client; c != nil {
			c.Kill()
		}
		return
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *replicaQueue) run(w *bufio.Writer) {
	for {
		select {
		case <-q.done:
			return
		case <-q.wake:
		}
		q.mu.Lock()
		buf := q.buf
		q.buf, q.size = nil, 0
		q.mu.Unlock()
		// w is this goroutine's alone since MakeReplica: no p.mu, which
		// the replica's own commands take to answer into the discard.
		for _, s := range buf {
			w.WriteString(s)
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// Kill closes the connection; the command running on it, if any, ends
// first. Clients leaves it out from now on, as Redis frees a killed
// client at once: whoever serves it may see the close only later.
func (c *Client) Kill() {
	c.killed.Store(true)
	c.conn.Close()
}

// Addr and LocalAddr are the connection's two ends.
func (c *Client) Addr() string      { return c.conn.RemoteAddr().String() }
func (c *Client) LocalAddr() string { return c.conn.LocalAddr().String() }

// Idle is how long the client has sent nothing.
func (c *Client) Idle() time.Duration {
	return c.idle.idle()
}

// LastCommand is the arguments of the command running or last run.
func (c *Client) LastCommand() []string {
	if a := c.last.Load(); a != nil {
		return *a
	}
	return nil
}

// DB, SetDB, Resp, SetResp, Name and SetName keep what the commands
// choose (SELECT, HELLO, CLIENT SETNAME) where other connections may read it.
func (c *Client) DB() int          { return int(c.db.Load()) }
func (c *Client) SetDB(id int)     { c.db.Store(int32(id)) }
func (c *Client) Resp() int        { return int(c.resp.Load()) }
func (c *Client) SetResp(v int)    { c.resp.Store(int32(v)) }
func (c *Client) SetName(n string) { c.name.Store(&n) }
func (c *Client) Name() string {
	if n := c.name.Load(); n != nil {
		return *n
	}
	return ""
}
