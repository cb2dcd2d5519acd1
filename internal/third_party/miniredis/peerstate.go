package miniredis

import "github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"

// scriptgen: the connection state the engine reads and sets, as exported
// functions. The engine used to reach connCtx's unexported fields through
// reflection and offsets, when miniredis was a dependency it could not
// change; in this copy the state has an API, and the compiler checks it.

// PeerDB is the database p has selected.
func PeerDB(p *server.Peer) int { return getCtx(p).selectedDB }

// PeerAuthenticated reports whether p has passed AUTH.
func PeerAuthenticated(p *server.Peer) bool { return getCtx(p).authenticated }

// SetPeerAuthenticated marks p as having passed AUTH.
func SetPeerAuthenticated(p *server.Peer) { getCtx(p).authenticated = true }

// PeerSubscribed reports whether p is in Pub/Sub mode.
func PeerSubscribed(p *server.Peer) bool { return getCtx(p).subscriber != nil }

// PeerInMulti reports whether p is queueing commands for EXEC.
func PeerInMulti(p *server.Peer) bool { return inTx(getCtx(p)) }

// MarkPeerDirty makes p's EXEC fail (EXECABORT), as a command refused while
// queueing does; nothing when p is not in MULTI.
func MarkPeerDirty(p *server.Peer) {
	if ctx := getCtx(p); inTx(ctx) {
		ctx.dirtyTransaction = true
	}
}

// QueuePeer appends fn to p's MULTI queue: EXEC runs it with the lock
// held, in order with the other queued commands.
func QueuePeer(p *server.Peer, fn func(*server.Peer)) {
	counted := p.CountLater() // INFO commandstats: when EXEC runs it
	addTxCmd(getCtx(p), func(c *server.Peer, _ *connCtx) { counted(func() { fn(c) }) })
}

// PrepareNested makes p a nested peer, whose commands run under the lock
// their caller holds (as a script's redis.call does), in database db,
// authenticated; sha names the script for the commands that report it.
func PrepareNested(p *server.Peer, db int, sha string) {
	ctx := getCtx(p)
	ctx.nested = true
	ctx.nestedSHA = sha
	ctx.authenticated = true
	ctx.selectedDB = db
}

// PeerAnswerable reports whether a check may answer p's command itself,
// before miniredis's handler: p is nested (a script's redis.call), or is
// neither queueing for MULTI, subscribed, nor waiting for AUTH (miniredis
// has the right answer for those). It reads what only the lock's holder,
// or p's own goroutine, writes.
func (m *Miniredis) PeerAnswerable(p *server.Peer) bool {
	ctx := getCtx(p)
	return ctx.nested || !(inTx(ctx) || ctx.subscriber != nil || len(m.passwords) > 0 && !ctx.authenticated)
}
