package lua

import (
	"sort"
	"strings"
)

func OpenTable(L *LState) int {
	tabmod := L.RegisterModule(TabLibName, tableFuncs)
	L.Push(tabmod)
	return 1
}

var tableFuncs = map[string]LGFunction{
	"getn": tableGetN,
	// scriptgen: Lua 5.1's LUA_COMPAT functions, which Redis keeps
	"foreach":  tableForeach,
	"foreachi": tableForeachi,
	"setn":     tableSetN,
	"concat":   tableConcat,
	"insert":   tableInsert,
	"maxn":     tableMaxN,
	"remove":   tableRemove,
	"sort":     tableSort,
}

func tableSort(L *LState) int {
	tbl := L.CheckTable(1)
	sorter := lValueArraySorter{L, nil, tbl.array, tbl.readonly}
	if L.GetTop() != 1 {
		sorter.Fn = L.CheckFunction(2)
	}
	sort.Sort(sorter)
	return 0
}

func tableGetN(L *LState) int {
	L.PushNumber(LNumber(L.CheckTable(1).Len()))
	return 1
}

// tableMaxN is Lua 5.1's maxn: the largest number among all the keys,
// not only the array part's (scriptgen).
func tableMaxN(L *LState) int {
	max := LNumber(0)
	L.CheckTable(1).ForEach(func(k, _ LValue) {
		if n, ok := k.(LNumber); ok && n > max {
			max = n
		}
	})
	L.PushNumber(max)
	return 1
}

// tableForeachi is Lua 5.1's foreachi: f(i, t[i]) for i in 1 … #t until
// f returns something other than nil, which it returns.
func tableForeachi(L *LState) int {
	tbl := L.CheckTable(1)
	fn := L.CheckFunction(2)
	for i, n := 1, tbl.Len(); i <= n; i++ {
		L.Push(fn)
		L.Push(LNumber(i))
		L.Push(tbl.RawGetInt(i))
		L.Call(2, 1)
		if L.Get(-1) != LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableForeach is Lua 5.1's foreach: foreachi over every key, in next's
// order.
func tableForeach(L *LState) int {
	tbl := L.CheckTable(1)
	fn := L.CheckFunction(2)
	for k, v := tbl.Next(LNil); k != LNil; k, v = tbl.Next(k) {
		L.Push(fn)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if L.Get(-1) != LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

func tableSetN(L *LState) int {
	L.CheckTable(1)
	L.RaiseError("'setn' is obsolete")
	return 0
}

// readonlyWrite raises Redis 7's error for a table function's write to a
// read-only table: without a position, as a C function's (scriptgen).
func readonlyWrite(L *LState, tbl *LTable) {
	if tbl.readonly {
		L.Error(LString(ErrReadonlyTable), 0)
	}
}

// tableRemove is Lua 5.1's tremove (scriptgen: upstream returned nil for a
// position outside 1 … #t, where Lua returns nothing).
func tableRemove(L *LState) int {
	tbl := L.CheckTable(1)
	e := tbl.Len()
	pos := L.OptCInt(2, e)
	if pos < 1 || pos > e {
		return 0
	}
	readonlyWrite(L, tbl)
	L.Push(tbl.Remove(pos))
	return 1
}

// tableConcat is Lua 5.1's tconcat (scriptgen: upstream clamped the range
// to the table, and returned a lone element as it was, a number unconverted).
func tableConcat(L *LState) int {
	sep := ""
	if L.Get(2) != LNil {
		sep = L.CheckString(2) // luaL_optlstring: a number converts (scriptgen)
	}
	tbl := L.CheckTable(1)
	i := L.OptCInt(3, 1)
	last := L.OptCInt(4, tbl.Len())
	var b strings.Builder
	for ; i <= last; i++ {
		L.Step() // scriptgen: a kill reaches a long concatenation
		v := tbl.RawGetInt(i)
		if !LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i)
		}
		b.WriteString(LVAsString(v))
		if i != last {
			b.WriteString(sep)
		}
	}
	L.Push(LString(b.String()))
	return 1
}

// tableInsert is Lua 5.1's tinsert as to its arguments (scriptgen:
// upstream took any count above one, with its own error text, and a
// position as a 64-bit integer where Lua's is a C int).
func tableInsert(L *LState) int {
	tbl := L.CheckTable(1)
	switch L.GetTop() {
	case 2:
		readonlyWrite(L, tbl)
		tbl.Append(L.Get(2))
	case 3:
		pos := L.CheckCInt(2)
		readonlyWrite(L, tbl)
		tbl.Insert(pos, L.Get(3))
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	return 0
}

//
