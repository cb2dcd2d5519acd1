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
	"getn":   tableGetN,
	"concat": tableConcat,
	"insert": tableInsert,
	"maxn":   tableMaxN,
	"remove": tableRemove,
	"sort":   tableSort,
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

func tableMaxN(L *LState) int {
	L.PushNumber(LNumber(L.CheckTable(1).MaxN()))
	return 1
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
