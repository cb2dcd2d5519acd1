package lualib

import (
	"math"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// bit is LuaBitOp 1.0 as bundled with Redis (deps/lua/src/lua_bit.c):
// 32-bit operations whose results are signed 32-bit numbers.
func openBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return bitPush(L, bitArg(L, 1, "tobit")) },
		"bnot":    func(L *lua.LState) int { return bitPush(L, ^bitArg(L, 1, "bnot")) },
		"band":    bitFold("band", func(a, b uint32) uint32 { return a & b }),
		"bor":     bitFold("bor", func(a, b uint32) uint32 { return a | b }),
		"bxor":    bitFold("bxor", func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  bitShift("lshift", func(b uint32, n uint) uint32 { return b << n }),
		"rshift":  bitShift("rshift", func(b uint32, n uint) uint32 { return b >> n }),
		"arshift": bitShift("arshift", func(b uint32, n uint) uint32 { return uint32(int32(b) >> n) }),
		"rol":     bitShift("rol", func(b uint32, n uint) uint32 { return b<<n | b>>((32-n)&31) }),
		"ror":     bitShift("ror", func(b uint32, n uint) uint32 { return b>>n | b<<((32-n)&31) }),
		"bswap": func(L *lua.LState) int {
			b := bitArg(L, 1, "bswap")
			return bitPush(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
		},
		"tohex": bitTohex,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// bitArg is barg: the number rounded to an integer (by the 2^52+2^51 trick,
// i.e. round half to even) and its low 32 bits. A string converts as
// lua_tonumber reads it (strtod: "1e500" is inf, whose low bits are 0).
func bitArg(L *lua.LState, n int, fname string) uint32 {
	var f float64
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		f = float64(v)
	case lua.LString:
		num, ok := lua.StrToNumber(string(v))
		if !ok {
			argError(L, n, fname, "number expected, got string")
		}
		f = num
	default:
		argError(L, n, fname, "number expected, got "+argTypeName(L, n))
	}
	sum := f + 6755399441055744.0
	if math.IsNaN(sum) {
		// x86's NaNs (0/0, strtod's "nan") carry no payload in their low
		// bits; Go's math.NaN() does.
		return 0
	}
	return uint32(math.Float64bits(sum))
}

func bitPush(L *lua.LState, b uint32) int {
	L.PushNumber(lua.LNumber(int32(b)))
	return 1
}

func bitFold(name string, op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		// From the last argument down, as bit_band and friends read them,
		// so that the first bad one reported is the last.
		b := bitArg(L, 1, name)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, bitArg(L, i, name))
		}
		return bitPush(L, b)
	}
}

func bitShift(name string, op func(b uint32, n uint) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1, name)
		n := uint(bitArg(L, 2, name) & 31)
		return bitPush(L, op(b, n))
	}
}

// bitTohex is bit_tohex: a count below 0 asks for upper-case digits, and
// one whose negation overflows (-2^31) gives all 8, as gcc compiles it.
func bitTohex(L *lua.LState) int {
	b := bitArg(L, 1, "tohex")
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2, "tohex"))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 || n < 0 {
		n = 8
	}
	var buf [8]byte
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf[:n]))
	return 1
}
