package lualib

import (
	"math"
	"strconv"
	"strings"

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
// i.e. round half to even) and its low 32 bits.
func bitArg(L *lua.LState, n int, fname string) uint32 {
	v := L.Get(n)
	var f float64
	switch v := v.(type) {
	case lua.LNumber:
		f = float64(v)
	case lua.LString:
		num, err := parseLuaNumber(string(v))
		if err != nil {
			argError(L, n, fname, "number expected, got string")
		}
		f = num
	default:
		argError(L, n, fname, "number expected, got "+luaTypeName(v))
	}
	bits := math.Float64bits(f + 6755399441055744.0)
	return uint32(bits)
}

func bitPush(L *lua.LState, b uint32) int {
	L.PushNumber(lua.LNumber(int32(b)))
	return 1
}

func bitFold(name string, op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1, name)
		for i := 2; i <= L.GetTop(); i++ {
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

func bitTohex(L *lua.LState) int {
	b := bitArg(L, 1, "tohex")
	n := int32(8)
	if L.Get(2) != lua.LNil {
		n = int32(bitArg(L, 2, "tohex"))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 {
		n = 8
	}
	buf := make([]byte, n)
	for i := int(n) - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}

// parseLuaNumber is lua_str2number: decimal or hex, surrounding spaces.
func parseLuaNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		n, err := strconv.ParseUint(h, 16, 64)
		return float64(n), err
	}
	return strconv.ParseFloat(s, 64)
}
