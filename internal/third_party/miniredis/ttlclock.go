package miniredis

// scriptgen: key TTLs as deadlines.
//
// Upstream kept each key's TTL as the duration left at the last clock move
// and, on every move, sorted every key of every database to subtract the
// time elapsed from each TTL. A simulation moves the clock once a request,
// with thousands of keys alive, so a move cost a sort of them all. Here
// db.ttl holds each key's deadline on the TTL clock (Miniredis.ttlNow, the
// time TTLs have advanced in all), a per-database heap orders the
// deadlines, and a move pops only the keys it expires: O(log n) per key set
// or expired, nothing for the keys that stay. What commands read and write
// is still the duration left (ttlLeft, setTTL), so their code is upstream's.

import "time"

// ttlEntry is a deadline in a database's heap. Entries are never removed
// when a key's TTL changes or goes: an entry whose deadline is no longer the
// key's (stale) is dropped when it reaches the top.
type ttlEntry struct {
	at  time.Duration
	key string
}

// ttlHeap is a min-heap of deadlines. Its push and pop are container/heap's
// algorithms on the concrete type: through heap.Interface, every push
// boxed its entry in an interface, an allocation on every EXPIRE.
type ttlHeap []ttlEntry

func (h *ttlHeap) push(e ttlEntry) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

// pop removes and returns the earliest deadline; h is not empty.
func (h *ttlHeap) pop() ttlEntry {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	h.down(0, n)
	e := old[n]
	*h = old[:n]
	return e
}

// init orders h from scratch.
func (h ttlHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i, len(h))
	}
}

func (h ttlHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !(h[j].at < h[i].at) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h ttlHeap) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h[j2].at < h[j1].at {
			j = j2 // right child
		}
		if !(h[j].at < h[i].at) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// ttlLeft is the time key has left to live, and whether it has a TTL.
func (db *RedisDB) ttlLeft(key string) (time.Duration, bool) {
	at, ok := db.ttl[key]
	if !ok {
		return 0, false
	}
	return at - db.master.ttlNow, true
}

// setTTL gives key left to live.
func (db *RedisDB) setTTL(key string, left time.Duration) {
	at := db.master.ttlNow + left
	db.master.dirtied()
	db.ttl[key] = at
	db.ttlHeap.push(ttlEntry{at, key})
	// A key whose TTL is set again and again (a limiter's, on every
	// request) leaves an entry each time; rebuilt from db.ttl once stale
	// entries are half the heap, it stays within twice the keys with a TTL.
	if len(db.ttlHeap) > 64 && len(db.ttlHeap) > 2*len(db.ttl) {
		db.ttlHeap = db.ttlHeap[:0]
		for k, at := range db.ttl {
			db.ttlHeap = append(db.ttlHeap, ttlEntry{at, k})
		}
		db.ttlHeap.init()
	}
}

// advanceTTLs moves the TTL clock of every database on by elapsed and
// expires what that leaves behind.
func (m *Miniredis) advanceTTLs(elapsed time.Duration) {
	m.ttlNow += elapsed
	// Expiring is no change a command made (deleteExpiredKeyAndPropagate
	// leaves server.dirty be): what it deletes goes out as DEL of its own.
	dirty := m.dirty
	defer func() { m.dirty = dirty }()
	for _, db := range m.dbs {
		if db != nil {
			db.expireDue(elapsed)
		}
	}
}

// expireDue moves the hash-field TTLs on by elapsed and, unless DEBUG
// set-active-expire turned the active cycle off (expire.go), expires the
// keys due.
func (db *RedisDB) expireDue(elapsed time.Duration) {
	if !db.master.noActiveExpire {
		db.expireDueKeys()
	}
	if len(db.hashTTLs) == 0 {
		return // scriptgen: no range over an empty map on every clock move
	}
	for key := range db.hashTTLs {
		db.checkHashFieldTTL(key, elapsed)
	}
}

// expireDueKeys deletes the keys whose deadline the TTL clock has reached,
// or, with redisExpiry, passed.
func (db *RedisDB) expireDueKeys() {
	now := db.master.ttlNow
	for len(db.ttlHeap) > 0 && db.ttlHeap[0].at <= now {
		e := db.ttlHeap.pop()
		if at, ok := db.ttl[e.key]; !ok || at != e.at {
			continue // stale
		}
		if e.at == now && db.master.redisExpiry {
			// Redis expires a key once the clock is past its deadline
			// (keyIsExpired: now > when); at the deadline it still
			// reads, with PTTL 0. Left a nanosecond, it goes at the next
			// move, and the commands that delete a key at a TTL of 0
			// (checkTTL) leave it be meanwhile.
			db.setTTL(e.key, 1)
			continue
		}
		db.deleteExpired(e.key)
	}
}

// RedisExpiry makes keys expire as in Redis: when the clock is past their
// deadline, not at it. Upstream deleted a key whose TTL reached 0.
func (m *Miniredis) RedisExpiry(on bool) {
	m.Lock()
	defer m.Unlock()
	m.redisExpiry = on
}

// TTLLeft is the time key has left to live in db, and whether it has a
// TTL, for a caller that holds the lock (m.Lock) and so cannot use TTL.
func (db *RedisDB) TTLLeft(key string) (time.Duration, bool) { return db.ttlLeft(key) }

// SetTTLLeft gives key left to live in db; the caller holds the lock.
func (db *RedisDB) SetTTLLeft(key string, left time.Duration) { db.setTTL(key, left) }

// Tick moves the TTLs on to the clock's time, expiring what that leaves
// behind, as the next command would.
func (m *Miniredis) Tick() {
	m.Lock()
	defer m.Unlock()
	m.tickLocked()
}
