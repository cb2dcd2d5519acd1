package transactional

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// What the engine still corrects after miniredis rather than in its copy:
// a destination a store leaves empty, deleted once the command has run,
// which in MULTI must wait for EXEC. The engine runs such a client's
// command on its own nested connection (throughInner), as it runs a
// script's redis.call, and mends the outcome; miniredis's handlers end
// inside its transaction machinery, where nothing can follow them.

// emptyingStores are the commands after which miniredis may leave an
// empty set or sorted set at the destination, where Redis deletes the key
// (no Redis key ever holds an empty aggregate). miniredis may even store
// it as a nil map, which the next SADD to it panics on.
var emptyingStores = map[string]bool{"sunionstore": true, "sinterstore": true, "sdiffstore": true,
	"zunionstore": true, "zinterstore": true, "zdiffstore": true, "zrangestore": true}

// dropEmpty deletes key from the script's database if it holds an empty
// set or sorted set.
func (e *Engine) dropEmpty(key string) {
	db := e.m.DBLocked(miniredis.PeerDB(e.inner))
	typ := db.LiveType(key)
	if (typ == "set" || typ == "zset") && db.MemberCount(key) == 0 {
		db.Drop(key)
	}
}

// storeDropsEmpty runs a client's SUNIONSTORE, SINTERSTORE, ZUNIONSTORE
// and the like on the engine's own connection and deletes a destination
// left empty, as Redis does and as redis.call does for scripts (call.go),
// and reports whether it did; in MULTI it queues that for EXEC. An arity
// error, a subscribed or unauthenticated connection are miniredis's.
func (e *Engine) storeDropsEmpty(c *server.Peer, cmd string, args []string) bool {
	if c == e.inner || !isEmptyingStore(cmd) || len(args) == 0 {
		return false
	}
	return e.throughInner(c, cmd, args, func() { e.dropEmpty(args[0]) })
}

// throughInner answers a client's command by running it on the engine's
// own connection, under miniredis's lock or, in MULTI, queued for EXEC,
// and has after mend the keyspace once miniredis has run it. It
// reports whether it took the command: a subscribed or unauthenticated
// connection and a bad arity are left to miniredis.
func (e *Engine) throughInner(c *server.Peer, cmd string, args []string, after func()) bool {
	if miniredis.PeerSubscribed(c) || e.opts.password != "" && !miniredis.PeerAuthenticated(c) {
		return false
	}
	if info := commandIndex[cmd]; info == nil || !info.ArityOK(len(args)+1) {
		return false
	}
	full := append([]string{cmd}, args...)
	// The nested peer's Dispatch counts it in INFO commandstats when it
	// runs (from EXEC in MULTI, as Redis counts a queued command).
	c.MarkCounted()
	e.runNowOrQueued(c, func(p *server.Peer) {
		miniredis.PrepareNested(e.inner, miniredis.PeerDB(p), "")
		raw := e.dispatchInner(full, p.Resp3)
		after()
		p.WriteRaw(string(raw))
	})
	return true
}

// runNowOrQueued runs fn for c under miniredis's lock, or, in MULTI,
// queues it for EXEC (which holds the lock) and answers QUEUED.
func (e *Engine) runNowOrQueued(c *server.Peer, fn func(*server.Peer)) {
	if miniredis.PeerInMulti(c) {
		miniredis.QueuePeer(c, fn)
		c.WriteInline("QUEUED")
		return
	}
	if !e.m.LockFor(c, e.busyWhileWaiting) {
		return
	}
	defer e.m.Unlock()
	fn(c)
}

// isEmptyingStore is emptyingStores for a command name in upper case (as
// miniredis hands it to the hook) or lower case (as redis.call's lookup
// names it): commandIndex gives its lower-case name without lower-casing
// it (this runs for every command a script makes), and only names ending
// in STORE are looked up.
func isEmptyingStore(cmd string) bool {
	if len(cmd) < 10 || !strings.EqualFold(cmd[len(cmd)-5:], "STORE") {
		return false
	}
	info := commandIndex[cmd]
	return info != nil && emptyingStores[info.Name]
}
