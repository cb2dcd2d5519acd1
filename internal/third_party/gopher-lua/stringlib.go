package lua

import (
	"strings"
)

const emptyLString LString = LString("")

func OpenString(L *LState) int {
	var mod *LTable
	//_, ok := L.G.builtinMts[int(LTString)]
	//if !ok {
	mod = L.RegisterModule(StringLibName, strFuncs).(*LTable)
	gmatch := L.NewFunction(strGmatch)
	mod.RawSetString("gmatch", gmatch)
	mod.RawSetString("gfind", gmatch)
	// scriptgen: the strings' metatable is a table of its own, as Lua's
	// ({__index = string}); upstream made it the library itself.
	mt := L.NewTable()
	mt.RawSetString("__index", mod)
	L.G.builtinMts[int(LTString)] = mt
	//}
	L.Push(mod)
	return 1
}

var strFuncs = map[string]LGFunction{
	"byte":    strByte,
	"char":    strChar,
	"dump":    strDump,
	"find":    strFind,
	"format":  strFormat,
	"gsub":    strGsub,
	"len":     strLen,
	"lower":   strLower,
	"match":   strMatch,
	"rep":     strRep,
	"reverse": strReverse,
	"sub":     strSub,
	"upper":   strUpper,
}

func strDump(L *LState) int {
	L.RaiseError("GopherLua does not support the string.dump")
	return 0
}

func strLen(L *LState) int {
	str := L.CheckString(1)
	L.PushNumber(LNumber(len(str)))
	return 1
}

// strLower and strUpper map ASCII letters only, as C's tolower and
// toupper in the "C" locale (scriptgen: upstream's strings.ToLower turned
// bytes that are not UTF-8 into U+FFFD).
func strLower(L *LState) int {
	b := []byte(L.CheckString(1))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	L.Push(LString(b))
	return 1
}

func strRep(L *LState) int {
	str := L.CheckString(1)
	n := L.CheckInt(2)
	if n < 0 {
		L.Push(emptyLString)
	} else {
		L.Push(LString(strings.Repeat(str, n)))
	}
	return 1
}

func strReverse(L *LState) int {
	str := L.CheckString(1)
	bts := []byte(str)
	out := make([]byte, len(bts))
	for i, j := 0, len(bts)-1; j >= 0; i, j = i+1, j-1 {
		out[i] = bts[j]
	}
	L.Push(LString(string(out)))
	return 1
}

func strUpper(L *LState) int {
	b := []byte(L.CheckString(1))
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	L.Push(LString(b))
	return 1
}

//
