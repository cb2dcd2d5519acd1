package miniredis

// scriptgen: the paging SCAN, HSCAN, SSCAN and ZSCAN share.

import (
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scanDefaultCount is COUNT when the command gives none, as in Redis.
const scanDefaultCount = 10

// scanHashMask keeps a position below 2^62, so position+1, the next
// cursor, never wraps to 0, which would end the scan.
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
func scanPage(elems []string, cursor uint64, count int) ([]string, uint64) {
	if count <= 0 {
		count = scanDefaultCount
	}
	type posElem struct {
		pos  uint64
		elem string
	}
	rest := make([]posElem, 0, len(elems))
	for _, e := range elems {
		if p := scanPos(e); p >= cursor {
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
	var next uint64
	if n < len(rest) {
		next = rest[n-1].pos + 1
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
func (m *Miniredis) scanKey(db *RedisDB, key string, elems []string, cursor uint64, count int) ([]string, uint64) {
	if m.scanWhole(db, key) {
		return elems, 0
	}
	return scanPage(elems, cursor, count)
}

// parseCursor reads a cursor as Redis 7.0's parseScanCursorOrReply does,
// with strtoul: an optional sign (a negative number wraps around), no
// leading space, nothing after the digits, at most 2^64-1; it reports
// false where Redis answers "invalid cursor".
func parseCursor(s string) (uint64, bool) {
	if s == "" {
		return 0, true // strtoul converts nothing and stops at the end
	}
	switch s[0] {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return 0, false
	}
	digits, neg := s, false
	if s[0] == '+' || s[0] == '-' {
		digits, neg = s[1:], s[0] == '-'
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// scanOptions reads the options after a cursor (args) as Redis 7.0's
// scanGenericCommand does: COUNT as string2l reads it, at least 1; MATCH;
// TYPE for SCAN only (keyed false); anything else, or an option without
// its value, a syntax error. It returns the options without the cursor
// and Redis's error text, or "".
func scanOptions(args []string, keyed bool) (scanOpts, string) {
	var opts scanOpts
	for ; len(args) > 0; args = args[2:] {
		if len(args) < 2 {
			return opts, msgSyntaxError
		}
		switch strings.ToLower(args[0]) {
		case "count":
			if !isRedisInteger(args[1]) {
				return opts, msgInvalidInt
			}
			n, _ := strconv.ParseInt(args[1], 10, 64)
			if n < 1 {
				return opts, msgSyntaxError
			}
			opts.count = int(min(n, 1<<31)) // beyond any collection
		case "match":
			opts.withMatch, opts.match = true, args[1]
		case "type":
			if keyed {
				return opts, msgSyntaxError
			}
			opts.withType, opts._type = true, strings.ToLower(args[1])
		default:
			return opts, msgSyntaxError
		}
	}
	return opts, ""
}

// keyScan serves HSCAN, SSCAN and ZSCAN (args: key, cursor, options) in
// Redis 7.0's order: the cursor, then the key (a missing one is an empty
// scan, another type WRONGTYPE), then the options; upstream read the
// options before the key. members lists a key's elements and write sends
// a page of them as the command's array.
func (m *Miniredis) keyScan(c *server.Peer, cmd string, args []string, typ string,
	members func(db *RedisDB, key string) []string, write func(c *server.Peer, db *RedisDB, key string, page []string)) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}
	key := args[0]
	cursor, ok := parseCursor(args[1])
	if !ok {
		setDirty(c)
		c.WriteError(msgInvalidCursor)
		return
	}
	opts, msg := scanOptions(args[2:], true)

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		if db.exists(key) && db.t(key) != typ {
			c.WriteError(ErrWrongType.Error())
			return
		}
		if !db.exists(key) {
			c.WriteLen(2)
			c.WriteBulk("0")
			c.WriteLen(0)
			return
		}
		if msg != "" {
			c.WriteError(msg)
			return
		}
		page, next := m.scanKey(db, key, members(db, key), cursor, opts.count)
		if opts.withMatch {
			page, _ = matchKeys(page, opts.match)
		}
		c.WriteLen(2)
		c.WriteBulk(strconv.FormatUint(next, 10))
		write(c, db, key, page)
	})
}
