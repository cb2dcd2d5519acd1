package miniredis

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// TestSortedSetIndex holds the sorted-set index to upstream's order (the
// map sorted afresh on every read) through random writes: members added,
// re-scored, incremented and removed, sets replaced whole, renamed, moved,
// deleted and emptied, and maps swapped in behind their back as the
// engine's rollback does. After each write every key's members, elements and
// the ranks of its members, both ways, must be upstream's, and so must the
// members of random score ranges.
func TestSortedSetIndex(t *testing.T) {
	m := NewMiniRedis()
	r := rand.New(rand.NewSource(3))
	m.Lock()
	defer m.Unlock()
	db, other := m.db(0), m.db(1)
	keys := []string{"a", "b", "c"}
	member := func() string { return fmt.Sprintf("m%d", r.Intn(60)) }
	score := func() float64 { return float64(r.Intn(20)) / 2 } // ties, so members order them too
	for step := 0; step < 20000; step++ {
		k := keys[r.Intn(len(keys))]
		isZset := db.t(k) == keyTypeSortedSet
		switch op := r.Intn(20); {
		case op < 8 && (isZset || !db.exists(k)):
			db.ssetAdd(k, score(), member())
		case op < 10 && isZset:
			db.ssetIncrby(k, member(), float64(r.Intn(7)-3))
		case op < 16 && isZset:
			for _, mb := range db.ssetMembers(k) {
				if r.Intn(3) == 0 {
					db.ssetRem(k, mb)
				}
			}
		case op == 16:
			ss := sortedSet{}
			for range r.Intn(5) + 1 {
				ss[member()] = score()
			}
			db.del(k, true)
			db.ssetSet(k, ss)
		case op == 17 && db.exists(k):
			db.rename(k, keys[r.Intn(len(keys))])
		case op == 18 && db.exists(k):
			db.move(k, other)
			if r.Intn(2) == 0 {
				other.move(k, db)
			}
		case op == 19 && isZset && r.Intn(2) == 0:
			// Replaced behind the set's back, as the engine's rollback and
			// RESTORE do: a new map, the same length, other scores.
			ss := sortedSet{}
			for mb := range db.sortedsetKeys[k] {
				ss[mb] = score()
			}
			db.sortedsetKeys[k] = ss
		case op == 19:
			db.del(k, true)
		}
		for _, k := range keys {
			ss, ok := db.sortedsetKeys[k]
			if !ok {
				continue
			}
			want := ss.byScore(asc)
			if got := db.ssetElements(k); !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d: %s in order %v, want %v", step, k, got, want)
			}
			members := db.ssetMembers(k)
			for i, e := range want {
				if members[i] != e.member {
					t.Fatalf("step %d: %s members %v, want the order of %v", step, k, members, want)
				}
				for _, d := range []direction{asc, desc} {
					wantRank, _ := ss.rankByScore(e.member, d)
					if rank, ok := db.ssetRank(k, e.member, d); !ok || rank != wantRank {
						t.Fatalf("step %d: rank of %s in %s (%v) = %d, %v; want %d", step, e.member, k, d, rank, ok, wantRank)
					}
				}
			}
			for range 3 {
				min, max := score()-1, score()
				minIncl, maxIncl := r.Intn(2) == 0, r.Intn(2) == 0
				if r.Intn(4) == 0 {
					min, max = max, min
				}
				got := db.ssetScoreRange(k, min, minIncl, max, maxIncl)
				if want := withSSRange(want, min, minIncl, max, maxIncl); len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d: %s scores %v (%v) to %v (%v): %v, want %v", step, k, min, minIncl, max, maxIncl, got, want)
				}
			}
			if _, ok := db.ssetRank(k, "absent", asc); ok {
				t.Fatalf("step %d: an absent member has a rank", step)
			}
		}
	}
}
