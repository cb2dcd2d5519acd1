// scriptgen: the clients a blocking command holds, served in the order
// they blocked (issue 28: Redis's suite, type/list and type/zset).
//
// Upstream woke every waiting client on each change and let them race for
// the lock, so with four clients in BZMPOP on one key any of them got the
// first element; Redis serves a key's clients first come, first served
// (blocked.c), and its suite reads their replies in that order, waiting
// for ever on a client that got nothing. INFO's blocked_clients, which the
// suite polls before it pushes what wakes them, counts the queue.

package miniredis

import (
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// blockWaiter is one client waiting in blocking.
type blockWaiter struct {
	c   *server.Peer
	ctx *connCtx
	cb  blockCmd
	// done: cb, CLIENT UNBLOCK or the client's close has ended the wait
	// and taken the client out of the queue, under the lock.
	done bool
	// wake tells the client's goroutine, which waits without the lock,
	// that it is done (a buffer of one: the sender never waits).
	wake chan struct{}
}

// block queues a client whose command found nothing to serve it.
func (m *Miniredis) block(c *server.Peer, ctx *connCtx, cb blockCmd) *blockWaiter {
	w := &blockWaiter{c: c, ctx: ctx, cb: cb, wake: make(chan struct{}, 1)}
	m.blockq = append(m.blockq, w)
	return w
}

// finish ends w's wait: out of the queue, and its goroutine told. Under the
// lock.
func (m *Miniredis) finish(w *blockWaiter) {
	w.done = true
	m.unblock(w)
	w.wake <- struct{}{}
}

// unblock takes a client out of the queue.
func (m *Miniredis) unblock(w *blockWaiter) {
	for i, x := range m.blockq {
		if x == w {
			m.blockq = append(m.blockq[:i], m.blockq[i+1:]...)
			return
		}
	}
}

// wrongTypeWakes answers WRONGTYPE for a blocking command's key of
// another type and reports true, on the command's first try; for a client
// already waiting it reports false, and the command skips the key: Redis
// wakes a client blocked on a list (or sorted set) only when the key holds
// one ("LPUSH + DEL + SET should not awake blocked client").
func (m *Miniredis) wrongTypeWakes(c *server.Peer) bool {
	if m.serving {
		return false
	}
	c.WriteError(msgWrongType)
	return true
}

// Unlock serves the blocked clients that the lock's holder made ready, then
// releases the lock: Redis serves them at the end of the command that
// readied them (handleClientsBlockedOnKeys), before any other command runs.
// Each waiting goroutine used to be woken to serve them, after the holder
// had released the lock, so the holder's next command could run first:
// "Linked LMOVEs" found the element still in the source list. It also
// woke every blocked client on every command, and each took the lock.
func (m *Miniredis) Unlock() {
	if len(m.blockq) > 0 {
		m.serveBlocked()
	}
	m.lock.Unlock()
}

// serveBlocked runs the queued commands oldest first, under the lock, each
// answering its own client, until a pass serves none: a BLMOVE served may
// push what an older client waits for. A client closed meanwhile (gone,
// CLIENT KILL) leaves the queue unanswered.
func (m *Miniredis) serveBlocked() {
	if m.blockedClock != nil {
		if t, moved := m.blockedClock(); moved {
			m.setTimeLocked(t)
			m.tickLocked()
		}
	}
	m.serving = true
	defer func() { m.serving = false }()
	for served := true; served; {
		served = false
		for i := 0; i < len(m.blockq); i++ {
			w := m.blockq[i]
			switch {
			case w.c.Closed():
			case m.Ctx.Err() == nil && w.cb(w.c, w.ctx):
				served = true
			default:
				continue
			}
			m.finish(w)
			i--
		}
	}
}

// SetBlockedClock gives the clock blocked clients are served at: it
// returns the time and whether it moved (the engine's wall clock); nil,
// the default, leaves the clock where the readying command had it. It
// must be set before the server serves.
func (m *Miniredis) SetBlockedClock(now func() (time.Time, bool)) { m.blockedClock = now }

// wakeGone is the server's wake (SetWake) when it sees a client leave: the
// Unlock takes a blocked one out.
func (m *Miniredis) wakeGone() {
	m.lock.Lock()
	m.Unlock()
}

// isBlocked reports whether c waits in a blocking command.
func (m *Miniredis) isBlocked(c *server.Peer) bool {
	for _, w := range m.blockq {
		if w.c == c && !w.done {
			return true
		}
	}
	return false
}

// blockedClients is INFO's blocked_clients: the clients waiting in a
// blocking command (BLPOP, BLMOVE, BZPOPMIN, XREAD BLOCK, …), where
// upstream answered 0.
func (m *Miniredis) blockedClients() int {
	return len(m.blockq)
}

// nullArray is what a blocking command answers when its time is up, and
// LMPOP and ZMPOP when there is nothing to pop: Redis's null array, "_" to
// a RESP3 client (upstream: "*-1" to either, but for LMPOP's).
func nullArray(c *server.Peer) {
	if c.Resp3 {
		c.WriteNull()
		return
	}
	c.WriteLen(-1)
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: it ends the wait
// of the client with that id, as if its time were up (a null array,
// Redis's replyToBlockedClientTimedOut) or with Redis's UNBLOCKED error,
// and answers 1, or 0 when no such client waits. The reason is read
// before the id, as in Redis (networking.c).
func (m *Miniredis) cmdClientUnblock(c *server.Peer, args []string) {
	withError := false
	if len(args) > 2 {
		c.WriteError("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.")
		return
	}
	if len(args) == 2 {
		switch strings.ToUpper(args[1]) {
		case "TIMEOUT":
		case "ERROR":
			withError = true
		default:
			c.WriteError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || !isRedisInteger(args[0]) {
		c.WriteError(msgInvalidInt)
		return
	}
	for _, w := range m.blockq {
		if clientID(w.c) != id {
			continue
		}
		// The reply first: finish lets the client's goroutine flush.
		if withError {
			w.c.WriteError("UNBLOCKED client unblocked via CLIENT UNBLOCK")
		} else {
			nullArray(w.c)
		}
		m.finish(w)
		c.WriteInt(1)
		return
	}
	c.WriteInt(0)
}
