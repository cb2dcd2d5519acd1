package lua51

import (
	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// ToNumber is Lua 5.1's tonumber as Redis builds it: base 10 goes
// through C's strtod (luaO_str2d), which reads exponents ("1e15"), hex
// ("0x1A"), "inf" and "nan", and surrounding blanks; gopher-lua's own
// rejects the first and the last two, so scripts that parse ARGV would see
// nil where Redis sees a number. Other bases go through strtoul.
func ToNumber(L *lua.LState) int {
	v := L.CheckAny(1)
	base := L.OptCInt(2, 10)
	if base == 10 {
		L.Push(toNumber10(L, v))
		return 1
	}
	// luaL_checkstring before the base's range, as luaB_tonumber.
	s, ok := ToString(v)
	if !ok {
		L.TypeError(1, lua.LTString)
	}
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if n, ok := lua.StrToUnsigned(s, base); ok {
		L.PushNumber(lua.LNumber(n))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// toNumber10 is tonumber(v) in base 10: a number as it is, a string as
// strtod reads it, anything else nil.
func toNumber10(L *lua.LState, v lua.LValue) lua.LValue {
	switch v := v.(type) {
	case lua.LNumber:
		return v
	case lua.LString:
		if f, ok := lua.StrToNumber(string(v)); ok {
			return L.Number(lua.LNumber(f))
		}
	}
	return lua.LNil
}

// FastToNumber is tonumber with one argument, ToNumber's short cut
// (lua.LFunction.Fast): the same result, without a call frame.
func FastToNumber(L *lua.LState, args []lua.LValue) (lua.LValue, bool) {
	if len(args) != 1 || args[0] == nil {
		return nil, false
	}
	return toNumber10(L, args[0]), true
}
