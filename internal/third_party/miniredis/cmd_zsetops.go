// scriptgen: ZDIFF, ZDIFFSTORE and ZINTERCARD, which upstream does not
// serve (Redis's suite, type/zset, and issue 28).

package miniredis

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

func commandsZsetOps(m *Miniredis) {
	m.srv.Register("ZDIFF", m.cmdZdiff, server.ReadOnlyOption())
	m.srv.Register("ZDIFFSTORE", m.cmdZdiffstore)
	m.srv.Register("ZINTERCARD", m.cmdZintercard, server.ReadOnlyOption())
}

// zsetSources reads what Redis's zunionInterDiffGenericCommand reads before
// the options, in its order: numkeys (args[0]), then each source looked up,
// a set or a sorted set (a set's members score 1). A missing source is nil.
// It answers the error and returns ok false, or the sources and the
// arguments after them.
func zsetSources(c *server.Peer, db *RedisDB, cmd string, args []string) (sources []sortedSet, rest []string, ok bool) {
	if msg := badNumkeys(cmd, args); msg != "" {
		c.WriteError(msg)
		return nil, nil, false
	}
	n, _ := strconv.Atoi(args[0])
	for _, key := range args[1 : 1+n] {
		var src sortedSet
		switch db.t(key) {
		case "":
		case keyTypeSortedSet:
			src = db.sortedsetKeys[key]
		case keyTypeSet:
			src = sortedSet{}
			for member := range db.setKeys[key] {
				src[member] = 1
			}
		default:
			c.WriteError(msgWrongType)
			return nil, nil, false
		}
		sources = append(sources, src)
	}
	return sources, args[1+n:], true
}

// zdiff is the members of the first source in none of the others, with
// their scores there.
func zdiff(sources []sortedSet) sortedSet {
	out := sortedSet{}
outer:
	for member, score := range sources[0] {
		for _, other := range sources[1:] {
			if _, in := other[member]; in {
				continue outer
			}
		}
		out[member] = score
	}
	return out
}

// ZDIFF
func (m *Miniredis) cmdZdiff(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		sources, rest, ok := zsetSources(c, m.db(ctx.selectedDB), cmd, args)
		if !ok {
			return
		}
		withScores := false
		for _, opt := range rest {
			if !strings.EqualFold(opt, "WITHSCORES") {
				c.WriteError(msgSyntaxError)
				return
			}
			withScores = true
		}
		diff := zdiff(sources)
		if withScores {
			pairsLen(c, len(diff), c.Resp3)
		} else {
			c.WriteLen(len(diff))
		}
		for _, el := range diff.byScore(asc) {
			if withScores {
				pair(c, c.Resp3)
			}
			c.WriteBulk(el.member)
			if withScores {
				writeScore(c, el.score)
			}
		}
	})
}

// ZDIFFSTORE
func (m *Miniredis) cmdZdiffstore(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(3)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		sources, rest, ok := zsetSources(c, db, cmd, args[1:])
		if !ok {
			return
		}
		if len(rest) > 0 {
			c.WriteError(msgSyntaxError)
			return
		}
		diff := zdiff(sources)
		// Redis deletes the destination when the difference is empty.
		db.del(args[0], true)
		if len(diff) > 0 {
			db.ssetSet(args[0], diff)
		}
		c.WriteInt(len(diff))
	})
}

// ZINTERCARD
func (m *Miniredis) cmdZintercard(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		sources, rest, ok := zsetSources(c, m.db(ctx.selectedDB), cmd, args)
		if !ok {
			return
		}
		limit := 0
		for len(rest) > 0 {
			if len(rest) < 2 || !strings.EqualFold(rest[0], "LIMIT") {
				c.WriteError(msgSyntaxError)
				return
			}
			if !isRedisInteger(rest[1]) || rest[1][0] == '-' {
				c.WriteError(msgLimitIsNegative)
				return
			}
			n, err := strconv.ParseInt(rest[1], 10, 64)
			if err != nil {
				c.WriteError(msgLimitIsNegative)
				return
			}
			limit = int(min(n, int64(^uint(0)>>1)))
			rest = rest[2:]
		}
		c.WriteInt(zintercard(sources, limit))
	})
}

// zintercard counts the members in every source, up to limit (0: no
// limit), walking the smallest source as Redis does.
func zintercard(sources []sortedSet, limit int) int {
	smallest := sources[0]
	for _, s := range sources {
		if s == nil {
			return 0
		}
		if len(s) < len(smallest) {
			smallest = s
		}
	}
	count := 0
outer:
	for member := range smallest {
		for _, other := range sources {
			if _, in := other[member]; !in {
				continue outer
			}
		}
		count++
		if count == limit {
			break
		}
	}
	return count
}

// bySize is the order in which Redis's ZUNION and ZINTER fold their
// sources: smallest first (a missing key is empty), stably, as glibc's
// qsort (a merge sort) leaves equal ones. It decides which source's NaN
// weight becomes 0 in ZINTER, and the order of a sum's roundings.
func bySize(db *RedisDB, keys []string) []int {
	size := func(k string) int { return len(db.setKeys[k]) + len(db.sortedsetKeys[k]) }
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return size(keys[order[a]]) < size(keys[order[b]]) })
	return order
}

// zweighted is a score times its weight as Redis's ZUNION and ZINTER take
// it: an infinity times 0 is 0, not NaN, for every source of a union and
// the first of an intersection (clean); the others' NaN meets zaggregate.
// Upstream stored the NaN, and answered ZSCORE with "-nan" where Redis
// answers 0.
func zweighted(score, weight float64, clean bool) float64 {
	if v := score * weight; !clean || !math.IsNaN(v) {
		return v
	}
	return 0
}

// zaggregate folds score into old as Redis's zunionInterAggregate does
// (how is sum, min or max): a sum that is NaN (opposite infinities) is 0,
// and MIN and MAX keep old against a NaN, as C's comparisons do.
func zaggregate(old, score float64, how string) float64 {
	switch how {
	case "min":
		if score < old {
			return score
		}
		return old
	case "max":
		if score > old {
			return score
		}
		return old
	}
	if v := old + score; !math.IsNaN(v) {
		return v
	}
	return 0
}
