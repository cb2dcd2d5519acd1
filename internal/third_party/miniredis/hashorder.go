package miniredis

// scriptgen: small hashes in insertion order, sets of integers in order.
//
// Redis 7.0 holds a hash as a listpack while it has at most
// hash-max-listpack-entries fields and no field or value longer than
// hash-max-listpack-value bytes, and a listpack answers HGETALL, HKEYS,
// HVALS, HSCAN, a whole HRANDFIELD and DUMP in the order its fields were
// added; HDEL keeps the others' order. A hash that passes a threshold is
// converted to a hash table for good, whose order is the dict's, which no
// one can rely on: ours is sorted by field, as upstream's. db.hashOrder
// holds the fields of each listpack hash in order; a hash without an entry
// there is a hash table. Upstream answered every hash sorted.
//
// A set of integers within set-max-intset-entries is an intset in Redis,
// which answers in numeric order; any other set is a hash table (7.0 has
// no listpack sets), sorted here by bytes as upstream did.

import (
	"sort"
	"strconv"
)

// listpackLimits are hash-max-listpack-entries and -value, read from the
// configuration once after each change of it (hashSet is on the path of
// every HSET a script makes).
type listpackLimits struct {
	entries, value int64
	read           bool
}

func (m *Miniredis) hashLimits() listpackLimits {
	c := m.cfg()
	if !c.hashLimits.read {
		c.hashLimits = listpackLimits{
			entries: m.ConfigInt("hash-max-listpack-entries"),
			value:   m.ConfigInt("hash-max-listpack-value"),
			read:    true,
		}
	}
	return c.hashLimits
}

// isListpackHash reports whether key is a hash Redis would hold as a
// listpack.
func (db *RedisDB) isListpackHash(key string) bool {
	_, ok := db.hashOrder[key]
	return ok
}

// hashAdding converts key, a listpack hash or a hash to be made, to a hash
// table when one of fv (fields and values about to be set) is longer than
// a listpack holds, as hashTypeTryConversion does before a write.
func (db *RedisDB) hashAdding(key string, fv []string) {
	if _, ok := db.hashOrder[key]; !ok {
		return
	}
	limit := db.master.hashLimits().value
	for _, s := range fv {
		if int64(len(s)) > limit {
			delete(db.hashOrder, key)
			return
		}
	}
}

// hashAdded notes field, new in key, at the end of its order, and converts
// key to a hash table once it has more fields than a listpack holds.
func (db *RedisDB) hashAdded(key, field string) {
	order, ok := db.hashOrder[key]
	if !ok {
		return
	}
	if int64(len(order)) >= db.master.hashLimits().entries {
		delete(db.hashOrder, key)
		return
	}
	db.hashOrder[key] = append(order, field)
}

// hashRemoved takes field, deleted from key, out of its order.
func (db *RedisDB) hashRemoved(key, field string) {
	order, ok := db.hashOrder[key]
	if !ok {
		return
	}
	for i, f := range order {
		if f == field {
			db.hashOrder[key] = append(order[:i], order[i+1:]...)
			return
		}
	}
}

// newHash makes key an empty hash, a listpack, as createHashObject does.
func (db *RedisDB) newHash(key string) hashKey {
	h := hashKey{}
	db.hashKeys[key] = h
	db.hashOrder[key] = nil
	return h
}

// restoredHashOrder is the order of a hash RESTORE or DEBUG RELOAD loads
// from fields in the payload's order: a listpack's unless it has more
// fields than a listpack holds or, as rdbLoadObject checks a plain hash, a
// longer field or value; nil (a hash table) then.
func (m *Miniredis) restoredHashOrder(fields, values []string) []string {
	lim := m.hashLimits()
	if int64(len(fields)) > lim.entries {
		return nil
	}
	for i := range fields {
		if int64(len(fields[i])) > lim.value || int64(len(values[i])) > lim.value {
			return nil
		}
	}
	return append(make([]string, 0, len(fields)), fields...)
}

// intsetOrder sorts members numerically if key is a set Redis would hold
// as an intset: integers only, no more than set-max-intset-entries.
func (db *RedisDB) intsetOrder(members []string) {
	if int64(len(members)) > db.master.ConfigInt("set-max-intset-entries") {
		return
	}
	nums := make([]int64, len(members))
	for i, s := range members {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || !isRedisInteger(s) {
			return
		}
		nums[i] = n
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	for i, n := range nums {
		members[i] = strconv.FormatInt(n, 10)
	}
}
