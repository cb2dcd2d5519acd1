package lua

// scriptgen: the sizes NewTable asks for. A table that grows from nothing
// grows as Go's append and maps do: upstream gave the first array entry or
// string key of any table room for 32 (some 1.5 KB), which a script making
// small tables (cjson.decode's, {} filled by assignment) paid each time.
const defaultArrayCap = 32
const defaultHashCap = 32

type lValueArraySorter struct {
	L        *LState
	Fn       *LFunction
	Values   []LValue
	readonly bool // scriptgen: the first swap raises, as Lua's first write
}

func (lv lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv lValueArraySorter) Swap(i, j int) {
	if lv.readonly {
		lv.L.Error(LString(ErrReadonlyTable), 0)
	}
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv lValueArraySorter) Less(i, j int) bool {
	lv.L.Step() // scriptgen: a kill reaches a long sort
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	// scriptgen: Lua compares inside sort, a C function, so its error
	// carries no position.
	if a, b := lv.Values[i], lv.Values[j]; a.Type() != b.Type() {
		lv.L.Error(LString("attempt to compare "+a.Type().String()+" with "+b.Type().String()), 0)
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	tb := &LTable{}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	if hcap > smallStrKeys {
		tb.strdict = make(map[string]int, hcap)
	}
	if hcap != 0 {
		tb.keys = make([]LValue, 0, hcap)
		tb.vals = make([]LValue, 0, hcap)
	}
	return tb
}

// Reset empties tb as newLTable would have made it, keeping the room of
// its array part (scriptgen): for a table Go code hands to script after
// script, once no reference to it can be left (see transactional's boxes).
func (tb *LTable) Reset() {
	clear(tb.array)
	*tb = LTable{Metatable: LNil, array: tb.array[:0], readonly: tb.readonly}
}

// smallStrKeys is how many string keys a table holds before it keeps
// them in a map (strdict) too (scriptgen).
const smallStrKeys = 8

// strIndex is where string key's slot is in keys and vals, and whether
// the table has one (scriptgen).
func (tb *LTable) strIndex(key string) (int, bool) {
	if tb.strdict != nil {
		i, ok := tb.strdict[key]
		return i, ok
	}
	if tb.nstr == 0 {
		return 0, false
	}
	for i, k := range tb.keys {
		if s, ok := k.(LString); ok && string(s) == key {
			return i, true
		}
	}
	return 0, false
}

// Len returns length of this LTable without using __len.
func (tb *LTable) Len() int {
	if tb.array == nil {
		return 0
	}
	var prev LValue = LNil
	for i := len(tb.array) - 1; i >= 0; i-- {
		v := tb.array[i]
		if prev == LNil && v != LNil {
			return i + 1
		}
		prev = v
	}
	return 0
}

// Append appends a given LValue to this LTable.
func (tb *LTable) Append(value LValue) {
	if value == LNil {
		return
	}
	if len(tb.array) == 0 || tb.array[len(tb.array)-1] != LNil {
		tb.array = append(tb.array, value)
	} else {
		i := len(tb.array) - 2
		for ; i >= 0; i-- {
			if tb.array[i] != LNil {
				break
			}
		}
		tb.array[i+1] = value
	}
}

// Insert inserts a given LValue at position `i` in this table.
func (tb *LTable) Insert(i int, value LValue) {
	if i > len(tb.array) {
		tb.RawSetInt(i, value)
		return
	}
	if i <= 0 {
		tb.RawSet(LNumber(i), value)
		return
	}
	i -= 1
	tb.array = append(tb.array, LNil)
	copy(tb.array[i+1:], tb.array[i:])
	tb.array[i] = value
}

// MaxN returns a maximum number key that nil value does not exist before it.
func (tb *LTable) MaxN() int {
	if tb.array == nil {
		return 0
	}
	for i := len(tb.array) - 1; i >= 0; i-- {
		if tb.array[i] != LNil {
			return i + 1
		}
	}
	return 0
}

// Remove removes from this table the element at a given position.
func (tb *LTable) Remove(pos int) LValue {
	if tb.array == nil {
		return LNil
	}
	larray := len(tb.array)
	if larray == 0 {
		return LNil
	}
	i := pos - 1
	oldval := LNil
	switch {
	case i >= larray:
		// nothing to do
	case i == larray-1 || i < 0:
		oldval = tb.array[larray-1]
		tb.array = tb.array[:larray-1]
	default:
		oldval = tb.array[i]
		copy(tb.array[i:], tb.array[i+1:])
		tb.array[larray-1] = nil
		tb.array = tb.array[:larray-1]
	}
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			index := int(v) - 1
			alen := len(tb.array)
			switch {
			case index == alen:
				tb.array = append(tb.array, value)
			case index > alen:
				for i := 0; i < (index - alen); i++ {
					tb.array = append(tb.array, LNil)
				}
				tb.array = append(tb.array, value)
			case index < alen:
				tb.array[index] = value
			}
			return
		}
	case LString:
		tb.RawSetString(string(v), value)
		return
	}

	tb.RawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	if key < 1 || key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	index := key - 1
	alen := len(tb.array)
	switch {
	case index == alen:
		tb.array = append(tb.array, value)
	case index > alen:
		for i := 0; i < (index - alen); i++ {
			tb.array = append(tb.array, LNil)
		}
		tb.array = append(tb.array, value)
	case index < alen:
		tb.array[index] = value
	}
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
func (tb *LTable) RawSetString(key string, value LValue) {
	if i, ok := tb.strIndex(key); ok {
		if value == LNil && tb.vals[i] != LNil {
			tb.dels++ // scriptgen: Lua's layout no longer followed
		}
		tb.vals[i] = value
		return
	}
	if value == LNil {
		return
	}
	if tb.strdict == nil && tb.nstr >= smallStrKeys {
		tb.strdict = make(map[string]int, 2*smallStrKeys)
		for i, k := range tb.keys {
			if s, ok := k.(LString); ok {
				tb.strdict[string(s)] = i
			}
		}
	}
	if tb.strdict != nil {
		tb.strdict[key] = len(tb.keys)
	}
	tb.nstr++
	tb.keys = append(tb.keys, LString(key))
	tb.vals = append(tb.vals, value)
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	if s, ok := key.(LString); ok {
		tb.RawSetString(string(s), value)
		return
	}
	if tb.dict == nil {
		tb.dict = make(map[LValue]LValue, tb.nstr)
	}
	if tb.k2i == nil {
		tb.k2i = map[LValue]int{}
	}

	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		if _, ok := tb.dict[key]; ok {
			tb.dels++ // scriptgen: Lua's layout no longer followed
		}
		delete(tb.dict, key)
	} else {
		tb.dict[key] = value
		if _, ok := tb.k2i[key]; !ok {
			tb.k2i[key] = len(tb.keys)
			tb.keys = append(tb.keys, key)
			tb.vals = append(tb.vals, LNil)
		}
	}
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				return LNil
			}
			index := int(v) - 1
			if index >= len(tb.array) {
				return LNil
			}
			return tb.array[index]
		}
	case LString:
		if i, ok := tb.strIndex(string(v)); ok {
			return tb.vals[i]
		}
		return LNil
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	if tb.array == nil {
		return LNil
	}
	index := int(key) - 1
	if index >= len(tb.array) || index < 0 {
		return LNil
	}
	return tb.array[index]
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if s, sok := key.(LString); sok {
		if i, ok := tb.strIndex(string(s)); ok {
			return tb.vals[i]
		}
		return LNil
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if i, ok := tb.strIndex(key); ok {
		return tb.vals[i]
	}
	return LNil
}

// keyIndex is key's place in tb.keys, and whether the table has held it.
func (tb *LTable) keyIndex(key LValue) (int, bool) {
	if s, ok := key.(LString); ok {
		return tb.strIndex(string(s))
	}
	i, ok := tb.k2i[key]
	return i, ok
}

// ForEach iterates over this table of elements, yielding each in turn to a given function.
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	if tb.array != nil {
		for i, v := range tb.array {
			if v != LNil {
				cb(LNumber(i+1), v)
			}
		}
	}
	// scriptgen: the hash part in Lua's order where it is emulated, else in
	// the order keys came (upstream walked Go maps, in random order: two
	// runs of cjson.encode could differ).
	keys := tb.luaHashOrder()
	if keys == nil {
		keys = tb.keys
	}
	for _, k := range keys {
		if v := tb.RawGetH(k); v != LNil {
			cb(k, v)
		}
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ).
// NextKeyValid reports whether next may be given key: nil, an index of
// the array part, or a key the table has held (scriptgen: Lua raises
// "invalid key to 'next'" for others; upstream's Next went on from its
// first key).
func (tb *LTable) NextKeyValid(key LValue) bool {
	if key == LNil {
		return true
	}
	if kv, ok := key.(LNumber); ok && isInteger(kv) && kv >= 1 && int(kv) <= len(tb.array) {
		return true
	}
	_, ok := tb.keyIndex(key)
	return ok
}

func (tb *LTable) Next(key LValue) (LValue, LValue) {
	if order := tb.luaHashOrder(); order != nil { // scriptgen
		i := 0
		if key != LNil {
			j, ok := tb.order.idx[key]
			if !ok {
				return LNil, LNil
			}
			i = j + 1
		}
		for ; i < len(order); i++ {
			if v := tb.RawGetH(order[i]); v != LNil {
				return order[i], v
			}
		}
		return LNil, LNil
	}
	init := false
	if key == LNil {
		key = LNumber(0)
		init = true
	}

	if init || key != LNumber(0) {
		if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && kv < LNumber(MaxArrayIndex) {
			index := int(kv)
			if tb.array != nil {
				for ; index < len(tb.array); index++ {
					if v := tb.array[index]; v != LNil {
						return LNumber(index + 1), v
					}
				}
			}
			if tb.array == nil || index == len(tb.array) {
				if (tb.dict == nil || len(tb.dict) == 0) && tb.nstr == 0 {
					return LNil, LNil
				}
				key = tb.keys[0]
				if v := tb.RawGetH(key); v != LNil {
					return key, v
				}
			}
		}
	}

	start, _ := tb.keyIndex(key)
	for i := start + 1; i < len(tb.keys); i++ {
		key := tb.keys[i]
		if v := tb.RawGetH(key); v != LNil {
			return key, v
		}
	}
	return LNil, LNil
}
