package miniredis

// scriptgen: sorted sets keep their order.
//
// Upstream's sorted set is a map from member to score, and every read in
// order (ZRANGE, ZCOUNT, ZRANGEBYSCORE, ZREMRANGEBYSCORE, ZRANK, …) sorted
// all of it: O(n log n) a command. A sliding-log limiter reads its log in
// order several times a request, so a log of 1,000 entries cost 300 µs a
// request and one of 10,000 entries 3 ms. Here each database keeps, per
// sorted-set key, the members in order beside the map, updated in place by
// the writes that change a stored set (ssetAdd, ssetIncrby, ssetRem: a
// binary search and a move) and built again by a sort when it does not
// belong to the key's current map (a set replaced whole, renamed, restored
// by the engine). Reads get a copy, O(n), or a rank by binary search.

import (
	"math"
	"reflect"
	"sort"
)

// ssIndex is a sorted set's members in ascending (score, member) order, and
// the map it orders.
type ssIndex struct {
	set   sortedSet
	elems ssElems
}

func ssLess(a, b ssElem) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

// search is where e is, or would go, in idx.
func (idx *ssIndex) search(e ssElem) int {
	return sort.Search(len(idx.elems), func(i int) bool { return !ssLess(idx.elems[i], e) })
}

func (idx *ssIndex) insert(e ssElem) {
	i := idx.search(e)
	idx.elems = append(idx.elems, ssElem{})
	copy(idx.elems[i+1:], idx.elems[i:])
	idx.elems[i] = e
}

func (idx *ssIndex) remove(e ssElem) {
	i := idx.search(e)
	switch {
	case i >= len(idx.elems) || idx.elems[i] != e:
	case i == 0:
		// The lowest score goes first in a sliding window: no move, and
		// appends reclaim the space as they grow the slice.
		idx.elems[0] = ssElem{}
		idx.elems = idx.elems[1:]
	default:
		idx.elems = append(idx.elems[:i], idx.elems[i+1:]...)
	}
}

// sameMap reports whether a and b are the same map (not equal ones).
func sameMap(a, b sortedSet) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// ssetIndex is key's index, built if it is missing or belongs to another
// map than ss, the key's set; nil for a set with a NaN score, which has no
// order to keep (upstream's sort left it as it fell).
func (db *RedisDB) ssetIndex(key string, ss sortedSet) *ssIndex {
	idx := db.ssIndexes[key]
	if idx != nil && sameMap(idx.set, ss) && len(idx.elems) == len(ss) {
		return idx
	}
	if db.ssIndexes == nil {
		db.ssIndexes = map[string]*ssIndex{}
	}
	elems := ss.elems()
	for _, e := range elems {
		if math.IsNaN(e.score) {
			delete(db.ssIndexes, key)
			return nil
		}
	}
	sort.Sort(byScore(elems))
	idx = &ssIndex{set: ss, elems: elems}
	db.ssIndexes[key] = idx
	return idx
}

// ssetChanged keeps key's index, if it has a current one, in step with a
// member whose score went from old (had: it was there) to score (has: it
// is still there). Called after the map changed.
func (db *RedisDB) ssetChanged(key string, ss sortedSet, member string, old float64, had bool, score float64, has bool) {
	idx := db.ssIndexes[key]
	if idx == nil || !sameMap(idx.set, ss) {
		return
	}
	if math.IsNaN(old) || math.IsNaN(score) {
		delete(db.ssIndexes, key)
		return
	}
	if had {
		idx.remove(ssElem{old, member})
	}
	if has {
		idx.insert(ssElem{score, member})
	}
}

// ssetOrder is ss, key's set, in ascending order: the index's, shared (a
// caller may read it, not change it, nor keep it across a write), or ss
// sorted when it has none.
func (db *RedisDB) ssetOrder(key string, ss sortedSet) ssElems {
	if idx := db.ssetIndex(key, ss); idx != nil {
		return idx.elems
	}
	return ss.byScore(asc)
}

// ssetView is key's members in ascending order, shared (see ssetOrder).
func (db *RedisDB) ssetView(key string) ssElems {
	ss, ok := db.sortedsetKeys[key]
	if !ok {
		return nil
	}
	return db.ssetOrder(key, ss)
}

// ssetScoreRange is the members of key with scores in the range, as
// withSSRange picks them from the set in order: a view (see ssetView),
// found by binary search where the set has an index.
func (db *RedisDB) ssetScoreRange(key string, min float64, minIncl bool, max float64, maxIncl bool) ssElems {
	ss, ok := db.sortedsetKeys[key]
	if !ok {
		return nil
	}
	idx := db.ssetIndex(key, ss)
	if idx == nil {
		return withSSRange(ss.byScore(asc), min, minIncl, max, maxIncl)
	}
	e := idx.elems // no NaN: a binary search finds what withSSRange's scan would
	from := sort.Search(len(e), func(i int) bool { return e[i].score > min || minIncl && e[i].score == min })
	to := sort.Search(len(e), func(i int) bool { return e[i].score > max || !maxIncl && e[i].score == max })
	if from >= len(e) {
		return nil // as withSSRange: all scores below the range
	}
	if to < from {
		to = from
	}
	return e[from:to]
}
