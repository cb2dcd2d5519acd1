package miniredis

// scriptgen: the paging SCAN, HSCAN, SSCAN and ZSCAN share.

import (
	"hash/fnv"
	"sort"
)

// scanDefaultCount is COUNT when the command gives none, as in Redis.
const scanDefaultCount = 10

// scanHashMask keeps a position below 2^62, so position+1, the next
// cursor, never wraps and never reaches the sign bit of the int the
// cursor is parsed into.
const scanHashMask = 1<<62 - 1

// scanPos is an element's position in a scan: a hash of its bytes.
//
// Redis iterates a dict in its buckets' order and hands back the next
// bucket as the cursor, so a cursor survives inserts and deletes and any
// number is accepted. A position derived from the element itself keeps
// both properties without state on the server: the order (hash, then
// bytes) does not move when other elements come or go, so an element
// present for the whole scan lies beyond the cursor until a page returns
// it, and a cursor nobody handed out just resumes at that position. A
// table of cursor ids would have to be bounded and would lose a slow
// client's scan; sorting by bytes would need the last element, not a
// number, to resume from.
func scanPos(elem string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(elem))
	return h.Sum64() & scanHashMask
}

// scanPage returns the page of elems a scan at cursor gives with count
// (scanDefaultCount when 0), sorted by bytes, and the next cursor: 0 once
// nothing lies beyond the page. A page never splits elements of equal
// position, or a cursor could not resume between them; so it holds at
// least count elements unless it is the last, and a scan over n elements
// present throughout ends within n/count+1 calls.
func scanPage(elems []string, cursor, count int) ([]string, int) {
	if count <= 0 {
		count = scanDefaultCount
	}
	type posElem struct {
		pos  uint64
		elem string
	}
	from := uint64(cursor) // a negative cursor reads as Redis's strtoull does: past every position
	rest := make([]posElem, 0, len(elems))
	for _, e := range elems {
		if p := scanPos(e); p >= from {
			rest = append(rest, posElem{p, e})
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		if rest[i].pos != rest[j].pos {
			return rest[i].pos < rest[j].pos
		}
		return rest[i].elem < rest[j].elem
	})
	n := count
	if n > len(rest) {
		n = len(rest)
	}
	for n > 0 && n < len(rest) && rest[n].pos == rest[n-1].pos {
		n++
	}
	page := make([]string, n)
	for i := range page {
		page[i] = rest[i].elem
	}
	sort.Strings(page)
	next := 0
	if n < len(rest) {
		next = int(rest[n-1].pos + 1)
	}
	return page, next
}

// scanWhole reports whether Redis would return key's value whole at
// cursor 0 whatever COUNT says: it does so for the compact encodings
// (listpack, intset), which it cannot iterate bucket by bucket.
func (m *Miniredis) scanWhole(db *RedisDB, key string) bool {
	switch m.encoding(db, key) {
	case "listpack", "intset":
		return true
	}
	return false
}

// scanKey is the page of elems, key's members, that HSCAN, SSCAN or ZSCAN
// returns, and the next cursor: all of them and 0 for a compact encoding
// whatever the cursor, as Redis, a page otherwise.
func (m *Miniredis) scanKey(db *RedisDB, key string, elems []string, cursor, count int) ([]string, int) {
	if m.scanWhole(db, key) {
		return elems, 0
	}
	return scanPage(elems, cursor, count)
}
