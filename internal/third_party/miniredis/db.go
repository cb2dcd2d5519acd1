package miniredis

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"time"
)

var (
	errInvalidEntryID = errors.New("stream ID is invalid")
)

// exists also updates the lru
func (db *RedisDB) exists(k string) bool {
	_, ok := db.keys[k]
	if ok {
		db.lru[k] = db.master.effectiveNow()
	}
	return ok
}

// t gives the type of a key, or ""
func (db *RedisDB) t(k string) string {
	return db.keys[k]
}

// incr increases the version and the lru timestamp
func (db *RedisDB) incr(k string) {
	db.master.dirtied()
	db.lru[k] = db.master.effectiveNow()
	if db.master.watched {
		db.keyVersion[k]++
	}
}

// allKeys returns all keys. Sorted.
func (db *RedisDB) allKeys() []string {
	res := make([]string, 0, len(db.keys))
	for k := range db.keys {
		res = append(res, k)
	}
	sort.Strings(res) // To make things deterministic.
	return res
}

// flush removes all keys and values.
func (db *RedisDB) flush() {
	db.master.dirtied()
	db.keys = map[string]string{}
	db.lru = map[string]time.Time{}
	db.stringKeys = map[string]string{}
	db.hashKeys = map[string]hashKey{}
	db.listKeys = map[string]listKey{}
	db.setKeys = map[string]setKey{}
	db.hllKeys = map[string]*hll{}
	db.sortedsetKeys = map[string]sortedSet{}
	db.ttl = map[string]time.Duration{}
	db.ttlHeap = nil
	db.ssIndexes = map[string]*ssIndex{}
	db.hashOrder = map[string][]string{}
	db.hashTTLs = map[string]map[string]time.Duration{}
	db.streamKeys = map[string]*streamKey{}
}

// move something to another db. Will return ok. Or not.
func (db *RedisDB) move(key string, to *RedisDB) bool {
	if _, ok := to.keys[key]; ok {
		return false
	}

	t, ok := db.keys[key]
	if !ok {
		return false
	}
	to.keys[key] = db.keys[key]
	switch t {
	case keyTypeString:
		to.stringKeys[key] = db.stringKeys[key]
	case keyTypeHash:
		to.hashKeys[key] = db.hashKeys[key]
		if fieldTTLs, ok := db.hashTTLs[key]; ok {
			to.hashTTLs[key] = fieldTTLs
		}
		if order, ok := db.hashOrder[key]; ok {
			to.hashOrder[key] = order
		}
	case keyTypeList:
		to.listKeys[key] = db.listKeys[key]
	case keyTypeSet:
		to.setKeys[key] = db.setKeys[key]
	case keyTypeSortedSet:
		to.sortedsetKeys[key] = db.sortedsetKeys[key]
	case keyTypeStream:
		to.streamKeys[key] = db.streamKeys[key]
	case keyTypeHll:
		to.hllKeys[key] = db.hllKeys[key]
	default:
		panic("unhandled key type")
	}
	if v, ok := db.ttlLeft(key); ok {
		to.setTTL(key, v)
	}
	to.incr(key)
	db.del(key, true)
	return true
}

func (db *RedisDB) rename(from, to string) {
	if from == to {
		return
	}
	db.del(to, true)
	switch db.t(from) {
	case keyTypeString:
		db.stringKeys[to] = db.stringKeys[from]
	case keyTypeHash:
		db.hashKeys[to] = db.hashKeys[from]
		if fieldTTLs, ok := db.hashTTLs[from]; ok {
			db.hashTTLs[to] = fieldTTLs
		}
		if order, ok := db.hashOrder[from]; ok {
			db.hashOrder[to] = order
		}
	case keyTypeList:
		db.listKeys[to] = db.listKeys[from]
	case keyTypeSet:
		db.setKeys[to] = db.setKeys[from]
	case keyTypeSortedSet:
		db.sortedsetKeys[to] = db.sortedsetKeys[from]
	case keyTypeStream:
		db.streamKeys[to] = db.streamKeys[from]
	case keyTypeHll:
		db.hllKeys[to] = db.hllKeys[from]
	default:
		panic("missing case")
	}
	db.keys[to] = db.keys[from]
	if v, ok := db.ttlLeft(from); ok {
		db.setTTL(to, v)
	}
	db.incr(to)

	db.del(from, true)
}

func (db *RedisDB) del(k string, delTTL bool) {
	if !db.exists(k) {
		return
	}
	t := db.t(k)
	db.master.dirtied()
	delete(db.keys, k)
	delete(db.lru, k)
	if db.master.watched {
		db.keyVersion[k]++
	}
	if delTTL {
		delete(db.ttl, k)
	}
	switch t {
	case keyTypeString:
		delete(db.stringKeys, k)
	case keyTypeHash:
		delete(db.hashKeys, k)
		delete(db.hashTTLs, k)
		delete(db.hashOrder, k)
	case keyTypeList:
		delete(db.listKeys, k)
	case keyTypeSet:
		delete(db.setKeys, k)
	case keyTypeSortedSet:
		delete(db.sortedsetKeys, k)
		delete(db.ssIndexes, k)
	case keyTypeStream:
		delete(db.streamKeys, k)
	case keyTypeHll:
		delete(db.hllKeys, k)
	default:
		panic("Unknown key type: " + t)
	}
}

// stringGet returns the string key or "" on error/nonexists.
func (db *RedisDB) stringGet(k string) string {
	if t, ok := db.keys[k]; !ok || t != keyTypeString {
		return ""
	}
	return db.stringKeys[k]
}

// stringSet force set()s a key. Does not touch expire.
func (db *RedisDB) stringSet(k, v string) {
	if t, ok := db.keys[k]; ok && t == keyTypeString {
		// scriptgen: a string replaced by a string stays in its maps.
		// del and the stores after it were four map deletes and two
		// inserts per SET or INCR of a live key; a WATCH sees the
		// version move all the same.
		db.stringKeys[k] = v
		db.incr(k)
		return
	}
	db.del(k, false)
	db.keys[k] = keyTypeString
	db.stringKeys[k] = v
	db.incr(k)
}

// change int key value
func (db *RedisDB) stringIncr(k string, delta int) (int, error) {
	v := 0
	if sv, ok := db.stringKeys[k]; ok {
		var err error
		v, err = strconv.Atoi(sv)
		if err != nil {
			return 0, ErrIntValueError
		}
	}

	if delta > 0 {
		if math.MaxInt-delta < v {
			return 0, ErrIntValueOverflowError
		}
	} else {
		if math.MinInt-delta > v {
			return 0, ErrIntValueOverflowError
		}
	}

	v += delta
	db.stringSet(k, strconv.Itoa(v))
	return v, nil
}

// change float key value
func (db *RedisDB) stringIncrfloat(k string, delta *big.Float) (*big.Float, error) {
	v := new(big.Float).SetPrec(longDoubleBits) // scriptgen: long double, as Redis
	if sv, ok := db.stringKeys[k]; ok {
		var err error
		v, err = parseLongDouble(sv)
		if err != nil {
			return nil, ErrFloatValueError
		}
	}
	v.Add(v, delta)
	db.stringSet(k, formatBig(v))
	return v, nil
}

// listLpush is 'left push', aka unshift. Returns the new length.
func (db *RedisDB) listLpush(k, v string) int {
	l, ok := db.listKeys[k]
	if !ok {
		db.keys[k] = keyTypeList
	}
	l = append([]string{v}, l...)
	db.listKeys[k] = l
	db.incr(k)
	return len(l)
}

// 'left pop', aka shift.
func (db *RedisDB) listLpop(k string) string {
	l := db.listKeys[k]
	el := l[0]
	l = l[1:]
	if len(l) == 0 {
		db.del(k, true)
	} else {
		db.listKeys[k] = l
	}
	db.incr(k)
	return el
}

func (db *RedisDB) listPush(k string, v ...string) int {
	l, ok := db.listKeys[k]
	if !ok {
		db.keys[k] = keyTypeList
	}
	l = append(l, v...)
	db.listKeys[k] = l
	db.incr(k)
	return len(l)
}

func (db *RedisDB) listPop(k string) string {
	l := db.listKeys[k]
	el := l[len(l)-1]
	l = l[:len(l)-1]
	if len(l) == 0 {
		db.del(k, true)
	} else {
		db.listKeys[k] = l
		db.incr(k)
	}
	return el
}

// setset replaces a whole set.
func (db *RedisDB) setSet(k string, set setKey) {
	db.keys[k] = keyTypeSet
	db.setKeys[k] = set
	db.incr(k)
}

// setadd adds members to a set. Returns nr of new keys.
func (db *RedisDB) setAdd(k string, elems ...string) int {
	s, ok := db.setKeys[k]
	if !ok {
		s = setKey{}
		db.keys[k] = keyTypeSet
	}
	added := 0
	for _, e := range elems {
		if _, ok := s[e]; !ok {
			added++
		}
		s[e] = struct{}{}
	}
	db.setKeys[k] = s
	if added > 0 || !ok {
		// scriptgen: members already there change nothing, as in Redis
		// (no dirty, no WATCH), so nothing is propagated to replicas.
		db.incr(k)
	}
	return added
}

// setrem removes members from a set. Returns nr of deleted keys.
func (db *RedisDB) setRem(k string, fields ...string) int {
	s, ok := db.setKeys[k]
	if !ok {
		return 0
	}
	removed := 0
	for _, f := range fields {
		if _, ok := s[f]; ok {
			removed++
			delete(s, f)
		}
	}
	if len(s) == 0 {
		db.del(k, true)
	} else {
		db.setKeys[k] = s
	}
	if removed > 0 {
		db.incr(k) // scriptgen: see setAdd
	}
	return removed
}

// All members of a set.
func (db *RedisDB) setMembers(k string) []string {
	return db.setOrder(db.setKeys[k])
}

// setOrder is set's members in Redis's order for an intset, numeric, and
// sorted by bytes otherwise (scriptgen: hashorder.go).
func (db *RedisDB) setOrder(set setKey) []string {
	members := make([]string, 0, len(set))
	for k := range set {
		members = append(members, k)
	}
	sort.Strings(members)
	db.intsetOrder(members)
	return members
}

// Is a SET value present?
func (db *RedisDB) setIsMember(k, v string) bool {
	set, ok := db.setKeys[k]
	if !ok {
		return false
	}
	_, ok = set[v]
	return ok
}

// hashFields returns all keys ('fields') for a hash key (scriptgen: a
// listpack's in its order, a hash table's sorted; hashorder.go).
func (db *RedisDB) hashFields(k string) []string {
	if order, ok := db.hashOrder[k]; ok {
		return append([]string(nil), order...)
	}
	v := db.hashKeys[k]
	var r []string
	for k := range v {
		r = append(r, k)
	}
	sort.Strings(r)
	return r
}

// hashValues returns all values a hash key (scriptgen: in the order of
// its fields, as Redis's HVALS and HKEYS walk the hash alike; upstream
// sorted the values).
func (db *RedisDB) hashValues(k string) []string {
	h := db.hashKeys[k]
	fields := db.hashFields(k)
	for i, f := range fields {
		fields[i] = h[f]
	}
	return fields
}

// hashGet a value
func (db *RedisDB) hashGet(key, field string) string {
	return db.hashKeys[key][field]
}

// hashSet returns the number of new keys
func (db *RedisDB) hashSet(k string, fv ...string) int {
	// scriptgen: the key's maps are looked up once a call, not once a
	// field (a limiter's HSET runs on every request); the version moves
	// once a call, which is all WATCH looks at.
	if t, ok := db.keys[k]; !ok || t != keyTypeHash {
		if ok {
			db.del(k, true)
		}
		db.keys[k] = keyTypeHash
	}
	h, ok := db.hashKeys[k]
	if !ok {
		h = db.newHash(k)
	}
	db.hashAdding(k, fv) // scriptgen: hashorder.go
	new := 0
	for idx := 0; idx+1 < len(fv); idx += 2 {
		n := len(h)
		h[fv[idx]] = fv[idx+1]
		if len(h) > n {
			new++
			db.hashAdded(k, fv[idx])
		}
	}
	if len(fv) > 1 {
		db.incr(k)
	}
	return new
}

// hashIncr changes int key value
func (db *RedisDB) hashIncr(key, field string, delta int) (int, error) {
	v := 0
	if h, ok := db.hashKeys[key]; ok {
		if f, ok := h[field]; ok {
			var err error
			v, err = strconv.Atoi(f)
			if err != nil {
				return 0, ErrIntValueError
			}
		}
	}
	v += delta
	db.hashSet(key, field, strconv.Itoa(v))
	return v, nil
}

// hashIncrfloat changes float key value
func (db *RedisDB) hashIncrfloat(key, field string, delta *big.Float) (*big.Float, error) {
	v := new(big.Float).SetPrec(longDoubleBits) // scriptgen: long double, as Redis
	if h, ok := db.hashKeys[key]; ok {
		if f, ok := h[field]; ok {
			var err error
			v, err = parseLongDouble(f)
			if err != nil {
				return nil, ErrFloatValueError
			}
		}
	}
	v.Add(v, delta)
	db.hashSet(key, field, formatBig(v))
	return v, nil
}

// sortedSet set returns a sortedSet as map
func (db *RedisDB) sortedSet(key string) map[string]float64 {
	ss := db.sortedsetKeys[key]
	return map[string]float64(ss)
}

// ssetSet sets a complete sorted set.
func (db *RedisDB) ssetSet(key string, sset sortedSet) {
	db.keys[key] = keyTypeSortedSet
	db.incr(key)
	db.sortedsetKeys[key] = sset
}

// ssetAdd adds member to a sorted set. Returns whether this was a new member.
func (db *RedisDB) ssetAdd(key string, score float64, member string) bool {
	ss, ok := db.sortedsetKeys[key]
	if !ok {
		ss = newSortedSet()
		db.keys[key] = keyTypeSortedSet
	}
	old, ok := ss[member]
	ss[member] = score
	db.sortedsetKeys[key] = ss
	db.ssetChanged(key, ss, member, old, ok, score, true)
	if !ok || old != score {
		db.incr(key) // scriptgen: see setAdd
	}
	return !ok
}

// All members from a sorted set, ordered by score.
func (db *RedisDB) ssetMembers(key string) []string {
	ss, ok := db.sortedsetKeys[key]
	if !ok {
		return nil
	}
	elems := db.ssetOrder(key, ss)
	members := make([]string, 0, len(elems))
	for _, e := range elems {
		members = append(members, e.member)
	}
	return members
}

// All members+scores from a sorted set, ordered by score.
func (db *RedisDB) ssetElements(key string) ssElems {
	ss, ok := db.sortedsetKeys[key]
	if !ok {
		return nil
	}
	return append(ssElems(nil), db.ssetOrder(key, ss)...) // the caller's to change
}

func (db *RedisDB) ssetRandomMember(key string) string {
	elems := db.ssetElements(key)
	if len(elems) == 0 {
		return ""
	}
	return elems[db.master.randIntn(len(elems))].member
}

// ssetCard is the sorted set cardinality.
func (db *RedisDB) ssetCard(key string) int {
	ss := db.sortedsetKeys[key]
	return ss.card()
}

// ssetRank is the sorted set rank.
func (db *RedisDB) ssetRank(key, member string, d direction) (int, bool) {
	ss := db.sortedsetKeys[key]
	score, ok := ss[member]
	if !ok {
		return 0, false
	}
	idx := db.ssetIndex(key, ss)
	if idx == nil {
		return ss.rankByScore(member, d)
	}
	rank := idx.search(ssElem{score, member})
	if d == desc {
		rank = len(idx.elems) - 1 - rank
	}
	return rank, true
}

// ssetScore is sorted set score.
func (db *RedisDB) ssetScore(key, member string) float64 {
	ss := db.sortedsetKeys[key]
	return ss[member]
}

// ssetMScore returns multiple scores of a list of members in a sorted set.
func (db *RedisDB) ssetMScore(key string, members []string) []float64 {
	scores := make([]float64, 0, len(members))
	ss := db.sortedsetKeys[key]
	for _, member := range members {
		scores = append(scores, ss[member])
	}
	return scores
}

// ssetRem is sorted set key delete.
func (db *RedisDB) ssetRem(key, member string) bool {
	ss := db.sortedsetKeys[key]
	old, ok := ss[member]
	delete(ss, member)
	db.ssetChanged(key, ss, member, old, ok, 0, false)
	if ok {
		db.master.dirtied() // scriptgen: for replication (repl.go)
	}
	if len(ss) == 0 {
		// Delete key on removal of last member
		db.del(key, true)
	}
	return ok
}

// ssetExists tells if a member exists in a sorted set.
func (db *RedisDB) ssetExists(key, member string) bool {
	ss := db.sortedsetKeys[key]
	_, ok := ss[member]
	return ok
}

// ssetIncrby changes float sorted set score.
func (db *RedisDB) ssetIncrby(k, m string, delta float64) float64 {
	ss, ok := db.sortedsetKeys[k]
	if !ok {
		ss = newSortedSet()
		db.keys[k] = keyTypeSortedSet
		db.sortedsetKeys[k] = ss
	}

	old, had := ss.get(m)
	v := delta // scriptgen: a new member's score is the increment, -0 too
	if had {
		v += old
	}
	ss.set(v, m)
	db.ssetChanged(k, ss, m, old, had, v, true)
	db.incr(k)
	return v
}

// setDiff implements the logic behind SDIFF*
func (db *RedisDB) setDiff(keys []string) (setKey, error) {
	key := keys[0]
	keys = keys[1:]
	if db.exists(key) && db.t(key) != keyTypeSet {
		return nil, ErrWrongType
	}
	s := setKey{}
	for k := range db.setKeys[key] {
		s[k] = struct{}{}
	}
	for _, sk := range keys {
		if !db.exists(sk) {
			continue
		}
		if db.t(sk) != keyTypeSet {
			return nil, ErrWrongType
		}
		for e := range db.setKeys[sk] {
			delete(s, e)
		}
	}
	return s, nil
}

// setInter implements the logic behind SINTER*
// len keys needs to be > 0
func (db *RedisDB) setInter(keys []string) (setKey, error) {
	// all keys must either not exist, or be of type "set".
	for _, key := range keys {
		if db.exists(key) && db.t(key) != keyTypeSet {
			return nil, ErrWrongType
		}
	}

	key := keys[0]
	keys = keys[1:]
	if !db.exists(key) {
		return nil, nil
	}
	if db.t(key) != keyTypeSet {
		return nil, ErrWrongType
	}
	s := setKey{}
	for k := range db.setKeys[key] {
		s[k] = struct{}{}
	}
	for _, sk := range keys {
		if !db.exists(sk) {
			return setKey{}, nil
		}
		if db.t(sk) != keyTypeSet {
			return nil, ErrWrongType
		}
		other := db.setKeys[sk]
		for e := range s {
			if _, ok := other[e]; ok {
				continue
			}
			delete(s, e)
		}
	}
	return s, nil
}

// setIntercard implements the logic behind SINTER*
// len keys needs to be > 0
func (db *RedisDB) setIntercard(keys []string, limit int) (int, error) {
	// all keys must either not exist, or be of type "set".
	allExist := true
	for _, key := range keys {
		exists := db.exists(key)
		allExist = allExist && exists
		if exists && db.t(key) != "set" {
			return 0, ErrWrongType
		}
	}

	if !allExist {
		return 0, nil
	}

	smallestKey := keys[0]
	smallestIdx := 0
	for i, key := range keys {
		if len(db.setKeys[key]) < len(db.setKeys[smallestKey]) {
			smallestKey = key
			smallestIdx = i
		}
	}
	keys[smallestIdx] = keys[len(keys)-1]
	keys = keys[:len(keys)-1]

	count := 0
	for item := range db.setKeys[smallestKey] {
		inIntersection := true
		for _, key := range keys {
			if _, ok := db.setKeys[key][item]; !ok {
				inIntersection = false
				break
			}
		}
		if inIntersection {
			count++
			if count == limit {
				break
			}
		}
	}

	return count, nil
}

// setUnion implements the logic behind SUNION*
func (db *RedisDB) setUnion(keys []string) (setKey, error) {
	key := keys[0]
	keys = keys[1:]
	if db.exists(key) && db.t(key) != "set" {
		return nil, ErrWrongType
	}
	s := setKey{}
	for k := range db.setKeys[key] {
		s[k] = struct{}{}
	}
	for _, sk := range keys {
		if !db.exists(sk) {
			continue
		}
		if db.t(sk) != "set" {
			return nil, ErrWrongType
		}
		for e := range db.setKeys[sk] {
			s[e] = struct{}{}
		}
	}
	return s, nil
}

func (db *RedisDB) newStream(key string) (*streamKey, error) {
	if s, err := db.stream(key); err != nil {
		return nil, err
	} else if s != nil {
		return nil, fmt.Errorf("ErrAlreadyExists")
	}

	db.keys[key] = keyTypeStream
	s := newStreamKey()
	db.streamKeys[key] = s
	db.incr(key)
	return s, nil
}

// return existing stream, or nil.
func (db *RedisDB) stream(key string) (*streamKey, error) {
	if db.exists(key) && db.t(key) != keyTypeStream {
		return nil, ErrWrongType
	}

	return db.streamKeys[key], nil
}

// return existing stream group, or nil.
func (db *RedisDB) streamGroup(key, group string) (*streamGroup, error) {
	s, err := db.stream(key)
	if err != nil || s == nil {
		return nil, err
	}
	return s.groups[group], nil
}

func (db *RedisDB) checkHashFieldTTL(key string, duration time.Duration) {
	fieldTTLs, ok := db.hashTTLs[key]
	if !ok {
		return
	}

	for field, ttl := range fieldTTLs {
		fieldTTLs[field] = ttl - duration
		if fieldTTLs[field] <= 0 {
			// Delete the expired field
			delete(db.hashKeys[key], field)
			db.hashRemoved(key, field)
			delete(fieldTTLs, field)

			// If hash is now empty, delete the entire key
			if len(db.hashKeys[key]) == 0 {
				db.del(key, true)
			}
		}
	}
}

func (db *RedisDB) checkTTL(key string) {
	if v, ok := db.ttlLeft(key); ok && v <= 0 {
		db.del(key, true)
	}
}

// hllAdd adds members to a hll. Returns 1 if at least 1 if internal HyperLogLog was altered, otherwise 0
func (db *RedisDB) hllAdd(k string, elems ...string) int {
	s, ok := db.hllKeys[k]
	if !ok {
		s = newHll()
		db.keys[k] = keyTypeHll
	}
	hllAltered := 0
	for _, e := range elems {
		if s.Add([]byte(e)) {
			hllAltered = 1
		}
	}
	db.hllKeys[k] = s
	db.incr(k)
	return hllAltered
}

// hllCount estimates the amount of members added to hll by hllAdd. If called with several arguments, hllCount returns a sum of estimations
func (db *RedisDB) hllCount(keys []string) (int, error) {
	countOverall := 0
	for _, key := range keys {
		if db.exists(key) && db.t(key) != keyTypeHll {
			return 0, ErrNotValidHllValue
		}
		if !db.exists(key) {
			continue
		}
		countOverall += db.hllKeys[key].Count()
	}

	return countOverall, nil
}

// hllMerge merges all the hlls provided as keys to the first key. Creates a new hll in the first key if it contains nothing
func (db *RedisDB) hllMerge(keys []string) error {
	for _, key := range keys {
		if db.exists(key) && db.t(key) != keyTypeHll {
			return ErrNotValidHllValue
		}
	}

	destKey := keys[0]
	restKeys := keys[1:]

	var destHll *hll
	if db.exists(destKey) {
		destHll = db.hllKeys[destKey]
	} else {
		destHll = newHll()
	}

	for _, key := range restKeys {
		if !db.exists(key) {
			continue
		}
		destHll.Merge(db.hllKeys[key])
	}

	db.hllKeys[destKey] = destHll
	db.keys[destKey] = keyTypeHll
	db.incr(destKey)

	return nil
}
