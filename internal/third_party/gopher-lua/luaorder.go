package lua

// scriptgen: the order in which Lua 5.1's next walks a table's hash part.
// Lua keeps keys in an array of nodes: a key's main position is its hash
// modulo the node count, a collision takes the last free node (moving the
// occupant out if it is not in its own main position), and a full table
// rehashes into the next power of two, re-inserting its nodes from the
// last. next visits the nodes in index order, so cjson.encode({a = 1,
// b = 2}) writes the keys in that order. This file emulates it for the
// common case: a table whose keys are all strings, none ever deleted
// (Lua's layout after a deletion depends on when its collector runs), no
// array part; others are walked in the order their keys came.

// fb2int is Lua's luaO_fb2int: a "floating point byte" (eeeeexxx) as the
// compiler writes table sizes into OP_NEWTABLE.
func fb2int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return ((x & 7) + 8) << (e - 1)
}

// ceilLog2 is the least l with 2^l >= x (x >= 1).
func ceilLog2(x int) int {
	l := 0
	for 1<<l < x {
		l++
	}
	return l
}

// luaStrHash is Lua 5.1's luaS_hash.
func luaStrHash(s string) uint32 {
	l := len(s)
	h := uint32(l)
	step := (l >> 5) + 1
	for l1 := l; l1 >= step; l1 -= step {
		h ^= (h << 5) + (h >> 2) + uint32(s[l1-1])
	}
	return h
}

type luaNode struct {
	key  string
	used bool
	next int // -1: none
}

// luaNodeOrder is the node order of Lua's table after inserting keys, in
// this order and all distinct, into a hash part of hint nodes (rounded up
// to a power of two; 0: none).
func luaNodeOrder(keys []string, hint int) []string {
	var nodes []luaNode
	lastfree, count := 0, 0
	setnodevector := func(size int) {
		if size == 0 {
			nodes, lastfree = nil, 0
			return
		}
		n := 1 << ceilLog2(size)
		nodes = make([]luaNode, n)
		for i := range nodes {
			nodes[i].next = -1
		}
		lastfree = n
	}
	getfreepos := func() int {
		for lastfree > 0 {
			lastfree--
			if !nodes[lastfree].used {
				return lastfree
			}
		}
		return -1
	}
	var insert func(k string)
	rehash := func(k string) {
		old := nodes
		setnodevector(count + 1)
		count = 0
		for i := len(old) - 1; i >= 0; i-- {
			if old[i].used {
				insert(old[i].key)
			}
		}
		insert(k)
	}
	insert = func(k string) {
		if len(nodes) == 0 {
			rehash(k)
			return
		}
		mask := uint32(len(nodes) - 1)
		mp := int(luaStrHash(k) & mask)
		if nodes[mp].used {
			n := getfreepos()
			if n < 0 {
				rehash(k)
				return
			}
			othern := int(luaStrHash(nodes[mp].key) & mask)
			if othern != mp {
				// The colliding node is out of its main position: move it
				// to the free one.
				for nodes[othern].next != mp {
					othern = nodes[othern].next
				}
				nodes[othern].next = n
				nodes[n] = nodes[mp]
				nodes[mp] = luaNode{next: -1}
			} else {
				// The new key goes to the free position.
				nodes[n].next = nodes[mp].next
				nodes[mp].next = n
				mp = n
			}
		}
		nodes[mp].key, nodes[mp].used = k, true
		count++
	}
	setnodevector(hint)
	for _, k := range keys {
		insert(k)
	}
	out := make([]string, 0, len(keys))
	for _, n := range nodes {
		if n.used {
			out = append(out, n.key)
		}
	}
	return out
}

// luaOrder is the order luaHashOrder computed, for how many keys.
type luaOrder struct {
	keys []LValue
	idx  map[LValue]int
	of   int
}

// luaHashOrder is the order in which Lua walks tb's hash part when
// luaNodeOrder emulates it, else nil.
func (tb *LTable) luaHashOrder() []LValue {
	if tb.dels > 0 || len(tb.dict) > 0 || len(tb.keys) == 0 {
		return nil
	}
	for _, v := range tb.array {
		if v != LNil {
			return nil
		}
	}
	if tb.order != nil && tb.order.of == len(tb.keys) {
		return tb.order.keys
	}
	names := make([]string, len(tb.keys))
	for i, k := range tb.keys {
		s, ok := k.(LString)
		if !ok {
			return nil
		}
		names[i] = string(s)
	}
	order := luaNodeOrder(names, int(tb.nodeHint))
	o := &luaOrder{keys: make([]LValue, len(order)), idx: make(map[LValue]int, len(order)), of: len(tb.keys)}
	for i, k := range order {
		o.keys[i] = LString(k)
		o.idx[LString(k)] = i
	}
	tb.order = o
	return o.keys
}
