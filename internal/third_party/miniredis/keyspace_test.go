package miniredis

import (
	"fmt"
	"testing"
	"time"
)

// TestSnapshotRoundTrip: a snapshot taken before writes that change every
// type in place, restored after them, gives back each key as it was, with
// its expiry and hash-field expiries; a snapshot of a missing key deletes
// what was written there since. Every restore moves the key's version, so
// that EXEC after WATCH sees it.
func TestSnapshotRoundTrip(t *testing.T) {
	m := NewMiniRedis()
	m.SetTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m.ClockTTL(true)
	db := m.DB(0)
	db.Set("s", "v")
	db.SetTTL("s", 10*time.Second)
	db.HSet("h", "a", "1", "b", "2")
	db.HExpire("h", "a", 5*time.Second)
	db.Push("l", "1", "2")
	db.SetAdd("x", "m")
	db.ZAdd("z", 1, "m")
	db.HllAdd("p", "a", "b")
	if _, err := db.XAdd("st", "1-1", []string{"f", "v"}); err != nil {
		t.Fatal(err)
	}
	db.streamKeys["st"].createGroup("g", "0", -1)
	keys := []string{"s", "h", "l", "x", "z", "p", "st", "missing"}

	m.Lock()
	snaps := map[string]KeySnapshot{}
	before := map[string]string{}
	for _, k := range keys {
		snaps[k] = db.Snapshot(k)
		before[k] = dumpKey(db, k)
	}
	m.Unlock()

	db.Set("s", "w")
	db.HSet("h", "a", "9")
	db.Push("l", "3")
	db.SetAdd("x", "n")
	db.ZAdd("z", 2, "m")
	db.HllAdd("p", "c", "d", "e")
	if _, err := db.XAdd("st", "2-1", []string{"f", "w"}); err != nil {
		t.Fatal(err)
	}
	db.Set("missing", "now here")

	m.Lock()
	defer m.Unlock()
	for _, k := range keys {
		v := db.keyVersion[k]
		db.RestoreSnapshot(k, snaps[k])
		if got := dumpKey(db, k); got != before[k] {
			t.Errorf("%s restored: %s, want %s", k, got, before[k])
		}
		if db.keyVersion[k] == v {
			t.Errorf("%s: restore left its version as it was", k)
		}
	}
	if snaps["missing"].Type() != "" || db.LiveType("missing") != "" {
		t.Errorf("a missing key's snapshot is of type %q, restores to %q", snaps["missing"].Type(), db.LiveType("missing"))
	}
}

// dumpKey is everything the database holds for k, printed (maps in
// order): the values are changed in place.
func dumpKey(db *RedisDB, k string) string {
	left, expires := db.ttlLeft(k)
	v := []any{db.keys[k], left, expires, db.stringKeys[k], db.hashKeys[k], db.hashTTLs[k],
		db.listKeys[k], db.setKeys[k], db.sortedsetKeys[k]}
	if h := db.hllKeys[k]; h != nil {
		v = append(v, h.Count())
	}
	if s := db.streamKeys[k]; s != nil {
		v = append(v, s.entries, s.lastAllocatedID, len(s.groups))
	}
	return fmt.Sprint(v...)
}
