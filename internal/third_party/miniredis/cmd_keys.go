// scriptgen: DUMP, RESTORE and COPY as Redis 7.0 serves them.

package miniredis

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// commandsKeys handles DUMP, RESTORE and COPY in Redis's payload format
// (package rdb), for every type but HyperLogLogs, whose registers miniredis
// keeps in a sketch of its own that has no Redis encoding. Upstream's DUMP
// answered with a string's raw bytes and its RESTORE stored the payload as
// a string; its COPY lost a stream's last ID.
func commandsKeys(m *Miniredis) {
	m.srv.Register("COPY", m.cmdCopy)
	m.srv.Register("DUMP", m.cmdDump, server.ReadOnlyOption())
	m.srv.Register("RESTORE", m.cmdRestore)
}

// checkPubsub7 is checkPubsub with Redis 7.0's text, as the engine gave it
// while it served these commands.
func (m *Miniredis) checkPubsub7(c *server.Peer, cmd string) bool {
	if getCtx(c).nested || !PeerSubscribed(c) {
		return false
	}
	c.WriteError(fmt.Sprintf(MsgPubsubContext, strings.ToLower(cmd)))
	return true
}

// DUMP
func (m *Miniredis) cmdDump(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMDWith(c, cmd, args, exactly(1), m.checkPubsub7) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.DBLocked(ctx.selectedDB)
		v, err := db.toRDB(args[0])
		switch {
		case err != nil:
			c.WriteError(err.Error())
		case v == nil:
			c.WriteNull()
		default:
			c.WriteBulk(string(rdb.Dump(v)))
		}
	})
}

// RESTORE, restoreCommand of Redis 7.0, checks in its order.
func (m *Miniredis) cmdRestore(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMDWith(c, cmd, args, atLeast(3), m.checkPubsub7) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if msg := m.DBLocked(ctx.selectedDB).restore(args); msg != "" {
			c.WriteError(msg)
			return
		}
		c.WriteOK()
	})
}

// restore is RESTORE's work; it returns the error reply, or "".
func (db *RedisDB) restore(args []string) string {
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
			n, ok := parseInt64(args[j+1])
			if !ok {
				return msgInvalidInt
			}
			if n < 0 {
				return msgBadIdleTime
			}
			idle = n
			j++
		case opt == "freq" && more >= 1 && idle == -1:
			n, ok := parseInt64(args[j+1])
			if !ok {
				return msgInvalidInt
			}
			if n < 0 || n > 255 {
				return msgBadFreq
			}
			freq = n
			j++
		default:
			return msgSyntaxError
		}
	}
	if !replace && db.LiveType(key) != "" {
		return msgBusyKey
	}
	ttl, ok := parseInt64(args[1])
	if !ok {
		return msgInvalidInt
	}
	if ttl < 0 {
		return msgBadTTL
	}
	payload := []byte(args[2])
	if err := rdb.Verify(payload); err != nil {
		return "ERR " + err.Error()
	}
	v, err := rdb.Restore(payload)
	if err != nil {
		return "ERR " + err.Error()
	}
	s, err := db.master.fromRDB(v)
	if err != nil {
		return err.Error()
	}
	now := db.master.effectiveNow()
	if ttl != 0 {
		if absTTL {
			s.at = time.UnixMilli(ttl)
		} else {
			s.at = now.Add(time.Duration(ttl) * time.Millisecond)
		}
		s.expires = true
		// Redis's checkAlreadyExpired: an expiry not after now deletes.
		if !s.at.After(now) {
			if replace && db.LiveType(key) != "" {
				db.Drop(key)
			}
			return ""
		}
	}
	db.RestoreSnapshot(key, s)
	return ""
}

// COPY, copyCommand of Redis 7.0: the copy is a snapshot's deep copy,
// expiry included.
func (m *Miniredis) cmdCopy(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMDWith(c, cmd, args, atLeast(2), m.checkPubsub7) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		src := m.DBLocked(ctx.selectedDB)
		dst := src
		replace := false
		for j := 2; j < len(args); j++ {
			switch opt := strings.ToLower(args[j]); {
			case opt == "replace":
				replace = true
			case opt == "db" && j+1 < len(args):
				n, msg := dbIndex(args[j+1]) // scriptgen
				if msg != "" {
					c.WriteError(msg)
					return
				}
				if !validDB(n) {
					c.WriteError(msgDBIndexOutOfRange)
					return
				}
				dst = m.DBLocked(n)
				j++
			default:
				c.WriteError(msgSyntaxError)
				return
			}
		}
		if dst == src && args[0] == args[1] {
			c.WriteError(msgSameObject)
			return
		}
		s := src.Snapshot(args[0])
		if s.typ == "" {
			c.WriteInt(0)
			return
		}
		// scriptgen: Redis looks the target up in its database
		// (lookupKeyWrite), which deletes it there if it has expired.
		if dst != src {
			dst.expireIfNeeded(args[1])
		}
		if dst.LiveType(args[1]) != "" && !replace {
			c.WriteInt(0)
			return
		}
		dst.RestoreSnapshot(args[1], s)
		c.WriteInt(1)
	})
}

// toRDB is key's value in rdb's terms, nil when key does not exist.
func (db *RedisDB) toRDB(key string) (rdb.Value, error) {
	return db.rdbValue(key, db.LiveType(key))
}

// rdbValue is toRDB for key of type typ, live or expired.
func (db *RedisDB) rdbValue(key, typ string) (rdb.Value, error) {
	switch typ {
	case "":
		return nil, nil
	case keyTypeString:
		return rdb.String(db.stringKeys[key]), nil
	case keyTypeList:
		return append(rdb.List(nil), db.listKeys[key]...), nil
	case keyTypeSet:
		s := make(rdb.Set, 0, len(db.setKeys[key]))
		for k := range db.setKeys[key] {
			s = append(s, k)
		}
		sort.Strings(s)
		return s, nil
	case keyTypeHash:
		// scriptgen: a listpack's fields in its order (hashorder.go).
		h := make(rdb.Hash, 0, len(db.hashKeys[key]))
		for _, k := range db.hashFields(key) {
			h = append(h, rdb.Field{Name: k, Value: db.hashKeys[key][k]})
		}
		return h, nil
	case keyTypeSortedSet:
		z := make(rdb.ZSet, 0, len(db.sortedsetKeys[key]))
		for k, v := range db.sortedsetKeys[key] {
			z = append(z, rdb.Member{Name: k, Score: v})
		}
		return z, nil
	case keyTypeStream:
		return streamToRDB(db.streamKeys[key])
	}
	return nil, errors.New(msgDumpHLL)
}

func parseRDBID(s string) (rdb.StreamID, error) {
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

func rdbIDLess(a, b rdb.StreamID) bool { return a.Ms < b.Ms || a.Ms == b.Ms && a.Seq < b.Seq }

// streamToRDB converts a stream. miniredis does not count the entries ever
// added nor remember the last deleted ID, so a dumped stream says
// len(entries) and 0-0 for them.
func streamToRDB(sk *streamKey) (rdb.Value, error) {
	s := &rdb.Stream{}
	for _, en := range sk.entries {
		id, err := parseRDBID(en.ID)
		if err != nil {
			return nil, err
		}
		s.Entries = append(s.Entries, rdb.StreamEntry{ID: id, Fields: append([]string(nil), en.Values...)})
	}
	if n := len(s.Entries); n > 0 {
		s.LastID = s.Entries[n-1].ID
	}
	if last := sk.lastAllocatedID; last != "" {
		id, err := parseRDBID(last)
		if err != nil {
			return nil, err
		}
		if rdbIDLess(s.LastID, id) {
			s.LastID = id
		}
	}
	// scriptgen: the stream's own counts since it keeps them.
	s.EntriesAdded = max(sk.entriesAdded, uint64(len(s.Entries)))
	if sk.maxDeletedID != "" {
		id, err := parseRDBID(sk.maxDeletedID)
		if err != nil {
			return nil, err
		}
		s.MaxDeletedID = id
	}
	names := make([]string, 0, len(sk.groups))
	for name := range sk.groups {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g := sk.groups[name]
		last, err := parseRDBID(g.lastID)
		if err != nil {
			return nil, err
		}
		grp := rdb.Group{Name: name, LastID: last, EntriesRead: g.entriesRead}
		seen := map[string]bool{}
		for _, p := range g.pending {
			id, err := parseRDBID(p.id)
			if err != nil {
				return nil, err
			}
			grp.Pending = append(grp.Pending, rdb.Pending{
				ID: id, Consumer: p.consumer,
				DeliveryTime:  p.lastDelivery.UnixMilli(),
				DeliveryCount: uint64(p.deliveryCount),
			})
			seen[p.consumer] = true
		}
		sort.Slice(grp.Pending, func(i, j int) bool { return rdbIDLess(grp.Pending[i].ID, grp.Pending[j].ID) })
		for name, c := range g.consumers {
			grp.Consumers = append(grp.Consumers, rdb.Consumer{Name: name, SeenTime: c.lastSeen.UnixMilli()})
			delete(seen, name)
		}
		for name := range seen {
			grp.Consumers = append(grp.Consumers, rdb.Consumer{Name: name})
		}
		sort.Slice(grp.Consumers, func(i, j int) bool { return grp.Consumers[i].Name < grp.Consumers[j].Name })
		s.Groups = append(s.Groups, grp)
	}
	return s, nil
}

// fromRDB is a snapshot of a key holding v, without expiry.
func (m *Miniredis) fromRDB(v rdb.Value) (KeySnapshot, error) {
	s := KeySnapshot{typ: v.Type()}
	switch v := v.(type) {
	case rdb.String:
		s.str = string(v)
	case rdb.List:
		s.list = listKey(v)
	case rdb.Set:
		s.set = make(setKey, len(v))
		for _, m := range v {
			s.set[m] = struct{}{}
		}
	case rdb.Hash:
		s.hash = make(hashKey, len(v))
		fields, values := make([]string, len(v)), make([]string, len(v))
		for i, f := range v {
			s.hash[f.Name] = f.Value
			fields[i], values[i] = f.Name, f.Value
		}
		// scriptgen: in the payload's order while a listpack holds it
		// (hashorder.go).
		s.order = m.restoredHashOrder(fields, values)
		s.listpack = s.order != nil
	case rdb.ZSet:
		s.zset = make(sortedSet, len(v))
		for _, z := range v {
			s.zset[z.Name] = z.Score
		}
	case *rdb.Stream:
		s.stream = streamFromRDB(v)
	default:
		return KeySnapshot{}, errors.New(msgRestoreHLL)
	}
	return s, nil
}

// streamFromRDB builds a stream with its groups.
func streamFromRDB(s *rdb.Stream) *streamKey {
	sk := &streamKey{
		entries:         make([]StreamEntry, len(s.Entries)),
		lastAllocatedID: s.LastID.String(),
		groups:          make(map[string]*streamGroup, len(s.Groups)),
		entriesAdded:    s.EntriesAdded,
	}
	if s.MaxDeletedID != (rdb.StreamID{}) {
		sk.maxDeletedID = s.MaxDeletedID.String()
	}
	for i, en := range s.Entries {
		sk.entries[i] = StreamEntry{ID: en.ID.String(), Values: append([]string(nil), en.Fields...)}
	}
	for _, g := range s.Groups {
		grp := &streamGroup{
			stream:      sk,
			entriesRead: g.EntriesRead,
			lastID:      g.LastID.String(),
			pending:     make([]pendingEntry, len(g.Pending)),
			consumers:   make(map[string]*consumer, len(g.Consumers)),
		}
		counts := map[string]int{}
		for i, pe := range g.Pending {
			grp.pending[i] = pendingEntry{
				id:            pe.ID.String(),
				consumer:      pe.Consumer,
				deliveryCount: int(pe.DeliveryCount),
				lastDelivery:  time.UnixMilli(pe.DeliveryTime).UTC(),
			}
			counts[pe.Consumer]++
		}
		for _, c := range g.Consumers {
			seen := time.UnixMilli(c.SeenTime).UTC()
			grp.consumers[c.Name] = &consumer{numPendingEntries: counts[c.Name], lastSeen: seen, lastSuccess: seen}
		}
		sk.groups[g.Name] = grp
	}
	return sk
}
