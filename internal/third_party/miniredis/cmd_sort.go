// scriptgen: SORT and SORT_RO, which upstream does not serve, after
// sortCommandGeneric of Redis 7.0 (sort.c).

package miniredis

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

const msgSortScore = "ERR One or more scores can't be converted into double"

func commandsSort(m *Miniredis) {
	m.srv.Register("SORT", m.cmdSort)
	m.srv.Register("SORT_RO", m.cmdSort, server.ReadOnlyOption())
}

type sortOptions struct {
	by          string
	dontsort    bool
	gets        []string
	desc, alpha bool
	start       int
	count       int
	limited     bool
	store       string
	storing     bool
}

func parseSortOptions(ro bool, args []string) (sortOptions, string) {
	o := sortOptions{count: -1}
	for j := 1; j < len(args); j++ {
		left := len(args) - j - 1
		switch opt := strings.ToLower(args[j]); {
		case opt == "asc":
			o.desc = false
		case opt == "desc":
			o.desc = true
		case opt == "alpha":
			o.alpha = true
		case opt == "limit" && left >= 2:
			start, err1 := strconv.Atoi(args[j+1])
			count, err2 := strconv.Atoi(args[j+2])
			if err1 != nil || err2 != nil || !isRedisInteger(args[j+1]) || !isRedisInteger(args[j+2]) {
				return o, msgInvalidInt
			}
			o.start, o.count, o.limited = start, count, true
			j += 2
		case opt == "store" && left >= 1 && !ro:
			o.store, o.storing = args[j+1], true
			j++
		case opt == "by" && left >= 1:
			o.by = args[j+1]
			// A pattern without "*" means "do not sort".
			o.dontsort = !strings.Contains(o.by, "*")
			j++
		case opt == "get" && left >= 1:
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			return o, msgSyntaxError
		}
	}
	return o, ""
}

// SORT, SORT_RO
func (m *Miniredis) cmdSort(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	o, msg := parseSortOptions(strings.EqualFold(cmd, "sort_ro"), args)
	if msg != "" {
		setDirty(c)
		c.WriteError(msg)
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		key := args[0]
		var elems []string
		typ := db.LiveType(key)
		switch typ {
		case "":
		case keyTypeList:
			elems = append(elems, db.listKeys[key]...)
		case keyTypeSet:
			for e := range db.setKeys[key] {
				elems = append(elems, e)
			}
			sort.Strings(elems)   // Redis's order is its hash table's; ours is fixed.
			db.intsetOrder(elems) // scriptgen: an intset's is numeric
		case keyTypeSortedSet:
			elems = db.ssetMembers(key)
		default:
			c.WriteError(msgWrongType)
			return
		}
		// A set has no order to keep: from a script or into STORE, Redis
		// sorts it anyway, so that the outcome is deterministic.
		if o.dontsort && typ == keyTypeSet && (o.storing || ctx.nested) {
			o.dontsort, o.alpha, o.by = false, true, ""
		}
		if !o.dontsort {
			if msg := m.sortElems(db, elems, o); msg != "" {
				c.WriteError(msg)
				return
			}
		}
		elems = sortLimit(elems, o)

		var out []*string
		for _, e := range elems {
			if len(o.gets) == 0 {
				e := e
				out = append(out, &e)
				continue
			}
			for _, g := range o.gets {
				out = append(out, lookupByPattern(db, g, e))
			}
		}
		if !o.storing {
			c.WriteLen(len(out))
			for _, v := range out {
				if v == nil {
					c.WriteNull()
				} else {
					c.WriteBulk(*v)
				}
			}
			return
		}
		db.del(o.store, true)
		if len(out) > 0 {
			list := make([]string, len(out))
			for i, v := range out {
				if v != nil {
					list[i] = *v
				}
			}
			db.listPush(o.store, list...)
		}
		db.touch(o.store)
		c.WriteInt(len(out))
	})
}

// sortLimit applies LIMIT as sort.c bounds it.
func sortLimit(elems []string, o sortOptions) []string {
	if !o.limited {
		return elems
	}
	n := len(elems)
	start := max(o.start, 0)
	end := n - 1
	if o.count >= 0 {
		end = start + o.count - 1
	}
	if start >= n {
		return nil
	}
	if end >= n {
		end = n - 1
	}
	if end < start {
		return nil
	}
	return elems[start : end+1]
}

// sortElems sorts as sortCompare: by score (ties by the elements' bytes),
// or ALPHA by bytes; with BY, by the weights the pattern finds.
func (m *Miniredis) sortElems(db *RedisDB, elems []string, o sortOptions) string {
	type item struct {
		elem  string
		by    *string
		score float64
	}
	items := make([]item, len(elems))
	for i, e := range elems {
		it := item{elem: e}
		v := &it.elem
		if o.by != "" {
			v = lookupByPattern(db, o.by, e)
		}
		it.by = v
		if !o.alpha && v != nil {
			// strtod: leading space is skipped, "" reads as 0; anything
			// left over, an overflow or NaN is an error.
			s := strings.TrimLeft(*v, " \t\n\v\f\r")
			if s != "" {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsNaN(f) {
					return msgSortScore
				}
				it.score = f
			}
		}
		items[i] = it
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		cmp := 0
		if !o.alpha {
			switch {
			case a.score > b.score:
				cmp = 1
			case a.score < b.score:
				cmp = -1
			default:
				cmp = strings.Compare(a.elem, b.elem)
			}
		} else {
			switch {
			case a.by == nil && b.by == nil:
			case a.by == nil:
				cmp = -1
			case b.by == nil:
				cmp = 1
			default:
				cmp = strings.Compare(*a.by, *b.by)
			}
		}
		if o.desc {
			cmp = -cmp
		}
		return cmp < 0
	})
	for i := range items {
		elems[i] = items[i].elem
	}
	return ""
}

// lookupByPattern is lookupKeyByPattern: "#" is the element itself; the
// first "*" of the pattern is replaced by the element, and "key->field"
// reads a hash field. A pattern without "*", or a key of another type,
// gives nil.
func lookupByPattern(db *RedisDB, pattern, elem string) *string {
	if pattern == "#" {
		return &elem
	}
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return nil
	}
	field := ""
	hashed := false
	if arrow := strings.LastIndex(pattern, "->"); arrow > star && arrow+2 < len(pattern) {
		field, hashed = pattern[arrow+2:], true
		pattern = pattern[:arrow]
	}
	key := pattern[:star] + elem + pattern[star+1:]
	db.expireIfNeeded(key) // scriptgen: lookupKeyRead's, expire.go
	switch db.LiveType(key) {
	case keyTypeString:
		if hashed {
			return nil
		}
		v := db.stringGet(key)
		return &v
	case keyTypeHash:
		if !hashed {
			return nil
		}
		v, ok := db.hashKeys[key][field]
		if !ok {
			return nil
		}
		return &v
	}
	return nil
}
