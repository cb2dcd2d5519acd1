package transactional

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"

	"github.com/scriptgen/scriptgen/transactional/internal/resp"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// DUMP and RESTORE in Redis's payload format (package rdb), for every type
// miniredis holds but its HyperLogLogs, whose registers miniredis keeps in
// a sketch of its own that has no Redis encoding. miniredis's own DUMP
// answers with a string's raw bytes and its RESTORE stores the payload as a
// string, so the engine serves both, for clients and for scripts alike.
// COPY too: miniredis's loses a stream's last ID.

// isKeyCommand reports whether cmd is one of the data commands the engine
// serves instead of miniredis.
func isKeyCommand(cmd string) bool { return cmd == "DUMP" || cmd == "RESTORE" || cmd == "COPY" }

// Redis 7.0's texts for RESTORE (cluster.c), verbatim.
const (
	msgBusyKey      = "BUSYKEY Target key name already exists."
	msgSyntax       = "ERR syntax error"
	msgBadTTL       = "ERR Invalid TTL value, must be >= 0"
	msgBadIdleTime  = "ERR Invalid IDLETIME value, must be >= 0"
	msgBadFreq      = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	msgDumpHLL      = "ERR scriptgen engine: DUMP of a HyperLogLog is not supported (miniredis keeps no Redis encoding of it)"
	msgWrongTypeHLL = "ERR scriptgen engine: RESTORE of this payload is not supported"
	msgDBRange      = "ERR DB index is out of range"
	msgSameObject   = "ERR source and destination objects are the same"
)

// keyCommand serves DUMP and RESTORE on c's selected database. The caller
// holds miniredis's lock.
func (e *Engine) keyCommand(c *server.Peer, cmd string, args []string) {
	db := e.store.db(miniredis.PeerDB(c))
	w := resp.Writer{Resp3: c.Resp3}
	switch cmd {
	case "DUMP":
		e.cmdDump(&w, db, args)
	case "RESTORE":
		e.cmdRestore(&w, db, args)
	case "COPY":
		e.cmdCopy(&w, db, args)
	}
	c.WriteRaw(string(w.Buf))
}

func (e *Engine) cmdDump(w *resp.Writer, db reflect.Value, args []string) {
	typ := e.store.typeOf(db, args[0])
	if typ == "" {
		w.Null()
		return
	}
	v, err := toRDB(typ, e.store.value(db, args[0], typ))
	if err != nil {
		w.ErrorReply(err.Error())
		return
	}
	w.Bulk(string(rdb.Dump(v)))
}

// cmdRestore is restoreCommand of Redis 7.0, checks in its order.
func (e *Engine) cmdRestore(w *resp.Writer, db reflect.Value, args []string) {
	key := args[0]
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 3; j < len(args); j++ {
		more := len(args) - j - 1
		switch opt := strings.ToLower(args[j]); {
		case opt == "replace":
			replace = true
		case opt == "absttl":
			absTTL = true
		case opt == "idletime" && more >= 1 && freq == -1:
			n, err := strconv.ParseInt(args[j+1], 10, 64)
			if err != nil {
				w.ErrorReply(msgInvalidInt)
				return
			}
			if n < 0 {
				w.ErrorReply(msgBadIdleTime)
				return
			}
			idle = n
			j++
		case opt == "freq" && more >= 1 && idle == -1:
			n, err := strconv.ParseInt(args[j+1], 10, 64)
			if err != nil {
				w.ErrorReply(msgInvalidInt)
				return
			}
			if n < 0 || n > 255 {
				w.ErrorReply(msgBadFreq)
				return
			}
			freq = n
			j++
		default:
			w.ErrorReply(msgSyntax)
			return
		}
	}
	if !replace && e.store.typeOf(db, key) != "" {
		w.ErrorReply(msgBusyKey)
		return
	}
	ttl, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		w.ErrorReply(msgInvalidInt)
		return
	}
	if ttl < 0 {
		w.ErrorReply(msgBadTTL)
		return
	}
	payload := []byte(args[2])
	if err := rdb.Verify(payload); err != nil {
		w.ErrorReply("ERR " + err.Error())
		return
	}
	v, err := rdb.Restore(payload)
	if err != nil {
		w.ErrorReply("ERR " + err.Error())
		return
	}
	typ, val, err := fromRDB(db, v)
	if err != nil {
		w.ErrorReply(err.Error())
		return
	}
	now := e.store.now()
	var at time.Time
	if ttl != 0 {
		if absTTL {
			at = time.UnixMilli(ttl)
		} else {
			at = now.Add(time.Duration(ttl) * time.Millisecond)
		}
		// Redis's checkAlreadyExpired: an expiry not after now deletes.
		if !at.After(now) {
			if replace && e.store.typeOf(db, key) != "" {
				e.store.del(db, key)
			}
			w.Status("OK")
			return
		}
	}
	e.store.put(db, key, typ, val, at, ttl != 0)
	w.Status("OK")
}

// cmdCopy is copyCommand of Redis 7.0: the copy is the journal's deep
// copy, expiry included.
func (e *Engine) cmdCopy(w *resp.Writer, src reflect.Value, args []string) {
	dst := src
	replace := false
	for j := 2; j < len(args); j++ {
		switch opt := strings.ToLower(args[j]); {
		case opt == "replace":
			replace = true
		case opt == "db" && j+1 < len(args):
			n, err := strconv.ParseInt(args[j+1], 10, 32)
			if err != nil {
				w.ErrorReply(msgInvalidInt)
				return
			}
			if n < 0 || n >= miniredis.Databases {
				w.ErrorReply(msgDBRange)
				return
			}
			dst = e.store.db(int(n))
			j++
		default:
			w.ErrorReply(msgSyntax)
			return
		}
	}
	if dst.Addr().Pointer() == src.Addr().Pointer() && args[0] == args[1] {
		w.ErrorReply(msgSameObject)
		return
	}
	sn := e.store.snap(src, args[0])
	if sn.typ == "" {
		w.Integer(0)
		return
	}
	if e.store.typeOf(dst, args[1]) != "" && !replace {
		w.Integer(0)
		return
	}
	e.store.restore(dst, args[1], sn)
	w.Integer(1)
}

// toRDB converts a miniredis value of type typ.
func toRDB(typ string, v reflect.Value) (rdb.Value, error) {
	switch typ {
	case "string":
		return rdb.String(v.String()), nil
	case "list":
		l := make(rdb.List, v.Len())
		for i := range l {
			l[i] = v.Index(i).String()
		}
		return l, nil
	case "set":
		s := make(rdb.Set, 0, v.Len())
		for _, k := range v.MapKeys() {
			s = append(s, k.String())
		}
		sort.Strings(s)
		return s, nil
	case "hash":
		h := make(rdb.Hash, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			h = append(h, rdb.Field{Name: it.Key().String(), Value: it.Value().String()})
		}
		sort.Slice(h, func(i, j int) bool { return h[i].Name < h[j].Name })
		return h, nil
	case "zset":
		z := make(rdb.ZSet, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			z = append(z, rdb.Member{Name: it.Key().String(), Score: it.Value().Float()})
		}
		return z, nil
	case "stream":
		return streamToRDB(v.Elem())
	}
	return nil, fmt.Errorf("%s", msgDumpHLL)
}

func parseID(s string) (rdb.StreamID, error) {
	ms, seq, _ := strings.Cut(s, "-")
	a, err := strconv.ParseUint(ms, 10, 64)
	if err != nil {
		return rdb.StreamID{}, fmt.Errorf("ERR scriptgen engine: stream ID %q", s)
	}
	b, err := strconv.ParseUint(seq, 10, 64)
	if err != nil && seq != "" {
		return rdb.StreamID{}, fmt.Errorf("ERR scriptgen engine: stream ID %q", s)
	}
	return rdb.StreamID{Ms: a, Seq: b}, nil
}

func idLess(a, b rdb.StreamID) bool { return a.Ms < b.Ms || a.Ms == b.Ms && a.Seq < b.Seq }

// streamToRDB converts a miniredis streamKey. miniredis does not count the
// entries ever added nor remember the last deleted ID, so a dumped stream
// says len(entries) and 0-0 for them.
func streamToRDB(sk reflect.Value) (rdb.Value, error) {
	s := &rdb.Stream{}
	for _, en := range unexported(sk, "entries").Interface().([]miniredis.StreamEntry) {
		id, err := parseID(en.ID)
		if err != nil {
			return nil, err
		}
		s.Entries = append(s.Entries, rdb.StreamEntry{ID: id, Fields: append([]string(nil), en.Values...)})
	}
	if n := len(s.Entries); n > 0 {
		s.LastID = s.Entries[n-1].ID
	}
	if last := unexported(sk, "lastAllocatedID").String(); last != "" {
		id, err := parseID(last)
		if err != nil {
			return nil, err
		}
		if idLess(s.LastID, id) {
			s.LastID = id
		}
	}
	s.EntriesAdded = uint64(len(s.Entries))
	groups := unexported(sk, "groups")
	names := make([]string, 0, groups.Len())
	for _, k := range groups.MapKeys() {
		names = append(names, k.String())
	}
	sort.Strings(names)
	for _, name := range names {
		g := groups.MapIndex(reflect.ValueOf(name)).Elem()
		last, err := parseID(unexported(g, "lastID").String())
		if err != nil {
			return nil, err
		}
		grp := rdb.Group{Name: name, LastID: last, EntriesRead: -1}
		seen := map[string]bool{}
		pending := unexported(g, "pending")
		for i := 0; i < pending.Len(); i++ {
			p := pending.Index(i)
			id, err := parseID(unexported(p, "id").String())
			if err != nil {
				return nil, err
			}
			consumer := unexported(p, "consumer").String()
			grp.Pending = append(grp.Pending, rdb.Pending{
				ID: id, Consumer: consumer,
				DeliveryTime:  unexported(p, "lastDelivery").Interface().(time.Time).UnixMilli(),
				DeliveryCount: uint64(unexported(p, "deliveryCount").Int()),
			})
			seen[consumer] = true
		}
		sort.Slice(grp.Pending, func(i, j int) bool { return idLess(grp.Pending[i].ID, grp.Pending[j].ID) })
		consumers := unexported(g, "consumers")
		for _, k := range consumers.MapKeys() {
			c := consumers.MapIndex(k).Elem()
			grp.Consumers = append(grp.Consumers, rdb.Consumer{Name: k.String(), SeenTime: unexported(c, "lastSeen").Interface().(time.Time).UnixMilli()})
			delete(seen, k.String())
		}
		for name := range seen {
			grp.Consumers = append(grp.Consumers, rdb.Consumer{Name: name})
		}
		sort.Slice(grp.Consumers, func(i, j int) bool { return grp.Consumers[i].Name < grp.Consumers[j].Name })
		s.Groups = append(s.Groups, grp)
	}
	return s, nil
}

// fromRDB builds the miniredis value for v, with the types db's maps hold.
func fromRDB(db reflect.Value, v rdb.Value) (string, reflect.Value, error) {
	typ := v.Type()
	elem := unexported(db, typeFields[typ]).Type().Elem()
	switch v := v.(type) {
	case rdb.String:
		return typ, reflect.ValueOf(string(v)), nil
	case rdb.List:
		return typ, reflect.ValueOf([]string(v)).Convert(elem), nil
	case rdb.Set:
		m := reflect.MakeMapWithSize(elem, len(v))
		for _, s := range v {
			m.SetMapIndex(reflect.ValueOf(s), reflect.ValueOf(struct{}{}))
		}
		return typ, m, nil
	case rdb.Hash:
		m := make(map[string]string, len(v))
		for _, f := range v {
			m[f.Name] = f.Value
		}
		return typ, reflect.ValueOf(m).Convert(elem), nil
	case rdb.ZSet:
		m := make(map[string]float64, len(v))
		for _, z := range v {
			m[z.Name] = z.Score
		}
		return typ, reflect.ValueOf(m).Convert(elem), nil
	case *rdb.Stream:
		return typ, streamFromRDB(elem, v), nil
	}
	return "", reflect.Value{}, fmt.Errorf("%s", msgWrongTypeHLL)
}

// streamFromRDB builds a *streamKey (elem is its pointer type).
func streamFromRDB(elem reflect.Type, s *rdb.Stream) reflect.Value {
	p := reflect.New(elem.Elem())
	sk := p.Elem()
	entries := make([]miniredis.StreamEntry, len(s.Entries))
	for i, en := range s.Entries {
		entries[i] = miniredis.StreamEntry{ID: en.ID.String(), Values: append([]string(nil), en.Fields...)}
	}
	unexported(sk, "entries").Set(reflect.ValueOf(entries))
	unexported(sk, "lastAllocatedID").SetString(s.LastID.String())
	groups := unexported(sk, "groups")
	groups.Set(reflect.MakeMap(groups.Type()))
	for _, g := range s.Groups {
		gp := reflect.New(groups.Type().Elem().Elem())
		gv := gp.Elem()
		unexported(gv, "stream").Set(p)
		unexported(gv, "lastID").SetString(g.LastID.String())
		pending := unexported(gv, "pending")
		pending.Set(reflect.MakeSlice(pending.Type(), len(g.Pending), len(g.Pending)))
		counts := map[string]int{}
		for i, pe := range g.Pending {
			pv := pending.Index(i)
			unexported(pv, "id").SetString(pe.ID.String())
			unexported(pv, "consumer").SetString(pe.Consumer)
			unexported(pv, "deliveryCount").SetInt(int64(pe.DeliveryCount))
			unexported(pv, "lastDelivery").Set(reflect.ValueOf(time.UnixMilli(pe.DeliveryTime).UTC()))
			counts[pe.Consumer]++
		}
		consumers := unexported(gv, "consumers")
		consumers.Set(reflect.MakeMap(consumers.Type()))
		for _, c := range g.Consumers {
			cp := reflect.New(consumers.Type().Elem().Elem())
			seen := reflect.ValueOf(time.UnixMilli(c.SeenTime).UTC())
			unexported(cp.Elem(), "numPendingEntries").SetInt(int64(counts[c.Name]))
			unexported(cp.Elem(), "lastSeen").Set(seen)
			unexported(cp.Elem(), "lastSuccess").Set(seen)
			consumers.SetMapIndex(reflect.ValueOf(c.Name), cp)
		}
		groups.SetMapIndex(reflect.ValueOf(g.Name), gp)
	}
	return p
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
	db := e.store.db(miniredis.PeerDB(c))
	if e.store.typeOf(db, args[0]) != "list" {
		return false
	}
	l := e.store.value(db, args[0], "list")
	if l.Len() != 1 {
		return false
	}
	e.store.touch(db, args[0])
	w := resp.Writer{Resp3: c.Resp3}
	w.Bulk(l.Index(0).String())
	c.WriteRaw(string(w.Buf))
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
	db := e.store.db(miniredis.PeerDB(c))
	ttl := int64(-2)
	if e.store.typeOf(db, args[0]) != "" {
		ttl = -1
		if at, ok := e.store.deadline(db, args[0]); ok {
			ms := max(at.Sub(e.store.now()).Milliseconds(), 0)
			ttl = (ms + 500) / 1000
		}
	}
	w := resp.Writer{Resp3: c.Resp3}
	w.Integer(ttl)
	c.WriteRaw(string(w.Buf))
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
	db := e.store.db(miniredis.PeerDB(c))
	for _, k := range sources {
		if typ := e.store.typeOf(db, k); typ != "" && typ != "set" && !(zset && typ == "zset") {
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
		_, m, err := resp.Parse(raw[pos:])
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
