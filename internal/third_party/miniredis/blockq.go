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

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// blockWaiter is one client waiting in blocking.
type blockWaiter struct {
	c    *server.Peer
	ctx  *connCtx
	cb   blockCmd
	done bool // cb has answered it
}

// block queues a client whose command found nothing to serve it.
func (m *Miniredis) block(c *server.Peer, ctx *connCtx, cb blockCmd) *blockWaiter {
	w := &blockWaiter{c: c, ctx: ctx, cb: cb}
	m.blockq = append(m.blockq, w)
	return w
}

// unblock takes a client out of the queue (served, timed out or gone).
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

// serveBlocked runs the queued commands oldest first, under the lock, each
// answering its own client, until a pass serves none: a BLMOVE served may
// push what an older client waits for.
func (m *Miniredis) serveBlocked() {
	m.serving = true
	defer func() { m.serving = false }()
	for served := m.Ctx.Err() == nil; served; {
		served = false
		for _, w := range m.blockq {
			if w.done || w.c.Closed() {
				continue
			}
			if w.cb(w.c, w.ctx) {
				w.done, served = true, true
			}
		}
	}
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
	n := 0
	for _, w := range m.blockq {
		if !w.done {
			n++
		}
	}
	return n
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
		if w.done || clientID(w.c) != id {
			continue
		}
		w.done = true
		if withError {
			w.c.WriteError("UNBLOCKED client unblocked via CLIENT UNBLOCK")
		} else {
			nullArray(w.c)
		}
		c.WriteInt(1)
		return
	}
	c.WriteInt(0)
}
