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

	// CLIENT REPLY: the peer's writer while replies are discarded, and how
	// many commands are left to discard (-1: until REPLY ON).
	saved *bufio.Writer
	skip  int
}

var discard = bufio.NewWriterSize(io.Discard, 16)

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
	for p := range s.clients.byPeer {
		out = append(out, p)
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
			c.saved, p.w = p.w, discard
		}
		c.skip = -1
		if skipNext {
			c.skip = 1
		}
	}
}

// MakeReplica makes p the connection of a replica (scriptgen: SYNC):
// replies to what it sends from now on are dropped, as Redis writes a
// replica nothing but the stream (REPLCONF ACK gets no answer), and the
// function returned writes the stream to it and flushes.
func (p *Peer) MakeReplica() func(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	if c := p.client; c != nil && c.saved != nil {
		w, c.saved = c.saved, nil // CLIENT REPLY OFF before
	}
	p.w = bufio.NewWriterSize(io.Discard, 16)
	return func(s string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		w.WriteString(s)
		w.Flush()
	}
}

// Kill closes the connection; the command running on it, if any, ends
// first.
func (c *Client) Kill() { c.conn.Close() }

// Addr and LocalAddr are the connection's two ends.
func (c *Client) Addr() string      { return c.conn.RemoteAddr().String() }
func (c *Client) LocalAddr() string { return c.conn.LocalAddr().String() }

// Idle is how long the client has sent nothing.
func (c *Client) Idle() time.Duration {
	return time.Since(time.Unix(0, c.idle.last.Load()))
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
