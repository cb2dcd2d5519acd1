package miniredis

import "time"

// scriptgen: the keyspace as the engine's write journal and its guards see
// it, as exported methods. The engine reached these fields through
// reflection and unsafe while miniredis was a dependency; in this copy they
// have an API, and the compiler checks it. Every method here is for a
// caller that holds the lock (m.Lock), as a script or a hooked command
// does, and none moves the TTL clock.

// LiveType is key's type ("string", "hash", "list", "set", "zset", "hll",
// "stream"), or "" when it does not exist or its deadline has passed
// without the TTL clock having expired it yet.
func (db *RedisDB) LiveType(key string) string {
	t, ok := db.keys[key]
	if !ok {
		return ""
	}
	if at, ok := db.deadline(key); ok && !at.After(db.master.effectiveNow()) {
		return ""
	}
	return t
}

// deadline is key's absolute expiry, and whether it has one. The TTLs the
// database holds count from ttlBase.
func (db *RedisDB) deadline(key string) (time.Time, bool) {
	left, ok := db.ttlLeft(key)
	if !ok {
		return time.Time{}, false
	}
	return db.master.ttlBase().Add(left), true
}

// ttlBase is the instant the TTLs held count from. With ClockTTL, they run
// with the clock and count from the last tick. Without it (upstream's
// default) they stand still until FastForward, so the deadline is always
// their length away from now: counted from the last tick, which is never
// set then, every TTL would have ended in year 1, and TTL answered -2 for
// a key that GET still found.
func (m *Miniredis) ttlBase() time.Time {
	if m.clockTTL {
		return m.lastTick
	}
	return m.effectiveNow()
}

// Drop removes key entirely, expiry and hash-field expiries included, and
// moves its version for WATCH, whether or not it existed (a key a rollback
// or RESTORE puts back was written, even where there was none).
func (db *RedisDB) Drop(key string) {
	db.del(key, true)
	db.touch(key)
}

// touch marks key modified for WATCH, as every write does.
func (db *RedisDB) touch(key string) {
	db.keyVersion[key]++
	db.master.dirtied()
}

// MemberCount is how many members the set or sorted set key holds.
func (db *RedisDB) MemberCount(key string) int {
	if s, ok := db.setKeys[key]; ok {
		return len(s)
	}
	return len(db.sortedsetKeys[key])
}

// KeySnapshot is one key's complete state: its value, deep-copied, its
// expiry and its hash fields' expiries. The zero value is a key that does
// not exist.
type KeySnapshot struct {
	typ      string
	str      string
	hash     hashKey
	order    []string // scriptgen: a listpack hash's fields in order (hashorder.go)
	listpack bool     // the hash is a listpack
	list     listKey
	set      setKey
	zset     sortedSet
	hll      *hll
	stream   *streamKey
	fieldTTL map[string]time.Duration
	at       time.Time
	expires  bool
}

// Type is the snapshot key's type, "" when it did not exist.
func (s KeySnapshot) Type() string { return s.typ }

// Snapshot copies key's state deeply, so that later writes (which are made
// in place: an XADD appends to the stream the database holds) leave it as
// it was.
func (db *RedisDB) Snapshot(key string) KeySnapshot {
	typ := db.LiveType(key)
	if typ == "" {
		return KeySnapshot{}
	}
	s := KeySnapshot{typ: typ}
	switch typ {
	case keyTypeString:
		s.str = db.stringKeys[key]
	case keyTypeHash:
		s.hash = copyMap(db.hashKeys[key])
		if order, ok := db.hashOrder[key]; ok {
			s.order, s.listpack = append([]string(nil), order...), true
		}
		if f, ok := db.hashTTLs[key]; ok {
			s.fieldTTL = copyMap(f)
		}
	case keyTypeList:
		s.list = append(listKey(nil), db.listKeys[key]...)
	case keyTypeSet:
		s.set = copyMap(db.setKeys[key])
	case keyTypeSortedSet:
		s.zset = copyMap(db.sortedsetKeys[key])
	case keyTypeHll:
		s.hll = db.hllKeys[key].copy()
	case keyTypeStream:
		s.stream = db.streamKeys[key].deepCopy()
	}
	s.at, s.expires = db.deadline(key)
	return s
}

// RestoreSnapshot puts a snapshot back under key, replacing whatever key
// holds. The value itself is handed over, not copied: a snapshot is
// restored at most once.
func (db *RedisDB) RestoreSnapshot(key string, s KeySnapshot) {
	if s.typ == "" {
		if _, ok := db.keys[key]; ok {
			db.Drop(key)
		}
		return
	}
	db.Drop(key)
	db.keys[key] = s.typ
	switch s.typ {
	case keyTypeString:
		db.stringKeys[key] = s.str
	case keyTypeHash:
		db.hashKeys[key] = s.hash
		if s.listpack {
			db.hashOrder[key] = s.order
		}
		if s.fieldTTL != nil {
			db.hashTTLs[key] = s.fieldTTL
		}
	case keyTypeList:
		db.listKeys[key] = s.list
	case keyTypeSet:
		db.setKeys[key] = s.set
	case keyTypeSortedSet:
		db.sortedsetKeys[key] = s.zset
	case keyTypeHll:
		db.hllKeys[key] = s.hll
	case keyTypeStream:
		db.streamKeys[key] = s.stream
	}
	db.lru[key] = db.master.effectiveNow()
	if s.expires {
		db.setTTL(key, s.at.Sub(db.master.ttlBase()))
	}
}

// copyMap copies a map whose keys and values hold no references; nil stays
// nil.
func copyMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// deepCopy copies s with everything it holds: its entries, its groups
// (pointing back at the copy), their pending entries and consumers, and
// the last ID it allocated (streamKey.copy, COPY's, shares the entries and
// pending entries and forgets that ID).
func (s *streamKey) deepCopy() *streamKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &streamKey{lastAllocatedID: s.lastAllocatedID, entriesAdded: s.entriesAdded, maxDeletedID: s.maxDeletedID}
	if s.nodes != nil {
		c.nodes, c.nodesLive = append([]streamNode(nil), s.nodes...), s.nodesLive
	}
	if s.entries != nil {
		c.entries = make([]StreamEntry, len(s.entries))
		for i, e := range s.entries {
			c.entries[i] = StreamEntry{ID: e.ID, Values: append([]string(nil), e.Values...)}
		}
	}
	if s.groups != nil {
		c.groups = make(map[string]*streamGroup, len(s.groups))
		for name, g := range s.groups {
			gc := g.copy()
			gc.stream = c
			if g.pending != nil {
				gc.pending = append([]pendingEntry(nil), g.pending...)
			}
			if g.consumers == nil {
				gc.consumers = nil
			}
			c.groups[name] = gc
		}
	}
	return c
}
