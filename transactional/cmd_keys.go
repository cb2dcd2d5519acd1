package transactional

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

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

// moveInPlace serves LMOVE, RPOPLPUSH and their blocking forms from a list
// of one element onto itself, and reports whether it did. miniredis pops
// the element, which deletes the key and its expiry with it, and pushes
// it back onto a new key; Redis moves it within the one list, which keeps
// the key, its expiry and its single element as they were. Every other
// case is miniredis's: for a connection in MULTI, subscribed or not yet
// authenticated, for a bad arity or direction, and for any other list.
func (e *Engine) moveInPlace(c *server.Peer, cmd string, args []string) bool {
	var n int
	switch cmd {
	case "LMOVE":
		n = 4
	case "BLMOVE":
		n = 5
	case "RPOPLPUSH":
		n = 2
	case "BRPOPLPUSH":
		n = 3
	default:
		return false
	}
	if len(args) != n || args[0] != args[1] {
		return false
	}
	if cmd == "LMOVE" || cmd == "BLMOVE" {
		for _, dir := range args[2:4] {
			if !strings.EqualFold(dir, "LEFT") && !strings.EqualFold(dir, "RIGHT") {
				return false
			}
		}
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	db := e.m.DBLocked(miniredis.PeerDB(c))
	if db.LiveType(args[0]) != "list" {
		return false
	}
	l := db.ListValue(args[0])
	if len(l) != 1 {
		return false
	}
	db.Touch(args[0])
	w := respWriter{resp3: c.Resp3}
	w.bulk(l[0])
	c.WriteRaw(string(w.buf))
	return true
}

// ttlRounded serves TTL, which Redis rounds to the nearest second ((ms +
// 500) / 1000: a key with 600 ms left has 1) and miniredis truncates, and
// reports whether it did. A connection in MULTI, subscribed or not yet
// authenticated, and a bad arity, are left to miniredis.
func (e *Engine) ttlRounded(c *server.Peer, cmd string, args []string) bool {
	if cmd != "TTL" || len(args) != 1 {
		return false
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	db := e.m.DBLocked(miniredis.PeerDB(c))
	ttl := int64(-2)
	if db.LiveType(args[0]) != "" {
		ttl = -1
		if at, ok := db.Deadline(args[0]); ok {
			ms := max(at.Sub(e.m.NowLocked()).Milliseconds(), 0)
			ttl = (ms + 500) / 1000
		}
	}
	w := respWriter{resp3: c.Resp3}
	w.integer(ttl)
	c.WriteRaw(string(w.buf))
	return true
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
	return e.throughInner(c, cmd, args, func(raw []byte) []byte {
		e.dropEmpty(args[0])
		return raw
	})
}

// throughInner answers a client's command by running it on the engine's
// own connection, under miniredis's lock or, in MULTI, queued for EXEC,
// and has fix mend the keyspace or the reply after miniredis ran it. It
// reports whether it took the command: a subscribed or unauthenticated
// connection and a bad arity are left to miniredis.
func (e *Engine) throughInner(c *server.Peer, cmd string, args []string, fix func(raw []byte) []byte) bool {
	if miniredis.PeerSubscribed(c) || e.opts.password != "" && !miniredis.PeerAuthenticated(c) {
		return false
	}
	if info := commandIndex[cmd]; info == nil || !info.ArityOK(len(args)+1) {
		return false
	}
	full := append([]string{cmd}, args...)
	e.runNowOrQueued(c, func(p *server.Peer) {
		miniredis.PrepareNested(e.inner, miniredis.PeerDB(p), "")
		p.WriteRaw(string(fix(e.dispatchInner(full, p.Resp3))))
	})
	return true
}

// storeSourcesTyped answers WRONGTYPE, as Redis does, when a source of
// SUNIONSTORE, SINTERSTORE, SDIFFSTORE (sets) or ZUNIONSTORE, ZINTERSTORE
// (sets and sorted sets) holds another type, or a weight is not a float
// (NaN included), and reports whether it did: miniredis deletes the
// destination before it looks at the sources, and takes NaN weights.
func (e *Engine) storeSourcesTyped(c *server.Peer, cmd string, args []string) bool {
	if !isEmptyingStore(cmd) || len(args) < 2 {
		return false
	}
	sources, zset := args[1:], cmd[0] == 'Z'

	if zset {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || 2+n > len(args) {
			return false // miniredis's argument errors
		}
		sources = args[2 : 2+n]
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	db := e.m.DBLocked(miniredis.PeerDB(c))
	for _, k := range sources {
		if typ := db.LiveType(k); typ != "" && typ != "set" && !(zset && typ == "zset") {
			writeError(c, msgWrongType)
			return true
		}
	}
	// Then the weights, which miniredis takes as NaN.
	if zset {
		rest := args[2+len(sources):]
		if len(rest) > len(sources) && strings.EqualFold(rest[0], "WEIGHTS") {
			for _, w := range rest[1 : 1+len(sources)] {
				if !isRedisFloat(w) {
					writeError(c, msgWeightNotFloat)
					return true
				}
			}
		}
	}
	return false
}

// pairsReply reports whether Redis 7 answers cmd (args after the name) in
// RESP3 with an array of [member, score] (or [field, value]) pairs, where
// miniredis sends one flat array.
func pairsReply(cmd string, args []string) bool {
	has := func(tok string, from int) bool {
		for _, a := range args[min(from, len(args)):] {
			if strings.EqualFold(a, tok) {
				return true
			}
		}
		return false
	}
	switch cmd {
	case "ZPOPMIN", "ZPOPMAX":
		return len(args) == 2
	case "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE":
		return has("WITHSCORES", 3)
	case "ZUNION", "ZINTER", "ZDIFF":
		return has("WITHSCORES", 2)
	case "ZRANDMEMBER":
		return len(args) >= 3 && has("WITHSCORES", 2)
	case "HRANDFIELD":
		return len(args) >= 3 && has("WITHVALUES", 2)
	}
	return false
}

// regroupPairs turns a RESP3 array of 2n replies into n arrays of two; any
// other reply (an error, a null, an odd count) is returned as it is.
func regroupPairs(raw []byte) []byte {
	end := bytes.Index(raw, []byte("\r\n"))
	if len(raw) == 0 || raw[0] != '*' || end < 0 {
		return raw
	}
	n, err := strconv.Atoi(string(raw[1:end]))
	if err != nil || n <= 0 || n%2 != 0 {
		return raw
	}
	out := make([]byte, 0, len(raw)+4*n)
	out = append(out, '*')
	out = strconv.AppendInt(out, int64(n/2), 10)
	out = append(out, '\r', '\n')
	pos := end + 2
	for k := 0; k < n; k++ {
		_, m, err := parseReply(raw[pos:])
		if err != nil {
			return raw
		}
		if k%2 == 0 {
			out = append(out, "*2\r\n"...)
		}
		out = append(out, raw[pos:pos+m]...)
		pos += m
	}
	return out
}

// pairsGuard answers a RESP3 client's command whose reply Redis groups in
// pairs (pairsReply), running it on the engine's own connection and
// regrouping the reply, and reports whether it did; in MULTI it queues
// that for EXEC. Scripts get the same in redis.call (call.go).
func (e *Engine) pairsGuard(c *server.Peer, cmd string, args []string) bool {
	if c == e.inner || !c.Resp3 || !pairsReply(cmd, args) {
		return false
	}
	return e.throughInner(c, cmd, args, regroupPairs)
}

// answerable reports whether the engine may answer c's command itself: a
// script's own command, or a client's that is not queued for MULTI, nor
// from a subscribed or not yet authenticated connection (miniredis has
// the right answer for those).
func (e *Engine) answerable(c *server.Peer) bool {
	return c == e.inner || !(miniredis.PeerInMulti(c) || miniredis.PeerSubscribed(c) || e.opts.password != "" && !miniredis.PeerAuthenticated(c))
}

// lockClient takes miniredis's lock for a client's command and returns
// its release; a script's own command holds it already.
func (e *Engine) lockClient(c *server.Peer) func() {
	if c == e.inner {
		return func() {}
	}
	e.m.Lock()
	return e.m.Unlock
}

// runNowOrQueued runs fn for c under miniredis's lock, or, in MULTI,
// queues it for EXEC (which holds the lock) and answers QUEUED.
func (e *Engine) runNowOrQueued(c *server.Peer, fn func(*server.Peer)) {
	if miniredis.PeerInMulti(c) {
		miniredis.QueuePeer(c, fn)
		c.WriteInline("QUEUED")
		return
	}
	e.m.Lock()
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
