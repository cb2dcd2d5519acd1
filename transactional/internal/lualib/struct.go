package lualib

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
)

// struct is Roberto Ierusalimschy's struct library as bundled with Redis
// (deps/lua/src/lua_struct.c), for an LP64 little-endian machine: short 2,
// int 4, long and size_t 8 bytes.

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

type structHeader struct {
	big   bool
	align int
}

func openStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// structFormat is the format argument as C reads it: up to its first NUL.
func structFormat(L *lua.LState) string {
	f := L.CheckString(1)
	if i := strings.IndexByte(f, 0); i >= 0 {
		return f[:i]
	}
	return f
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func structGetNum(L *lua.LState, fmtStr string, i *int, def int) int {
	if *i >= len(fmtStr) || !isDigit(fmtStr[*i]) {
		return def
	}
	a := 0
	for *i < len(fmtStr) && isDigit(fmtStr[*i]) {
		if a > (math.MaxInt32/10) || a*10 > math.MaxInt32-int(fmtStr[*i]-'0') {
			L.RaiseError("integral size overflow")
		}
		a = a*10 + int(fmtStr[*i]-'0')
		*i++
	}
	return a
}

func structOptSize(L *lua.LState, opt byte, fmtStr string, i *int) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return structGetNum(L, fmtStr, i, 1)
	case 'i', 'I':
		sz := structGetNum(L, fmtStr, i, 4)
		if sz > structMaxIntSize {
			L.RaiseError("integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

func structToAlign(length int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (length & (size - 1))) & (size - 1)
}

func structControl(L *lua.LState, fname string, opt byte, fmtStr string, i *int, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.big = true
	case '<':
		h.big = false
	case '!':
		a := structGetNum(L, fmtStr, i, structMaxAlign)
		if a&(a-1) != 0 {
			L.RaiseError("alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		argError(L, 1, fname, "invalid format option '"+string([]byte{opt})+"'")
	}
}

func structPutInt(b []byte, v uint64, big bool, size int, negative bool) []byte {
	out := make([]byte, size)
	for j := 0; j < size; j++ {
		var byt byte
		if j < 8 {
			byt = byte(v >> (8 * j))
		} else if negative {
			byt = 0xff
		}
		if big {
			out[size-1-j] = byt
		} else {
			out[j] = byt
		}
	}
	return append(b, out...)
}

func structPack(L *lua.LState) int {
	fmtStr := structFormat(L)
	h := structHeader{align: 1}
	arg := 2
	var b []byte
	total := 0
	for i := 0; i < len(fmtStr); {
		opt := fmtStr[i]
		i++
		size := structOptSize(L, opt, fmtStr, &i)
		pad := structToAlign(total, &h, opt, size)
		total += pad
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := float64(structCheckNumber(L, arg, "pack"))
			arg++
			var v uint64
			if n < 0 {
				v = uint64(lua51.Integer(n))
			} else if n >= 18446744073709551616.0 {
				v = 0x8000000000000000
			} else {
				v = uint64(n)
			}
			b = structPutInt(b, v, h.big, size, n < 0)
		case 'x':
			b = append(b, 0)
		case 'f':
			f := float32(structCheckNumber(L, arg, "pack"))
			arg++
			b = structPutInt(b, uint64(math.Float32bits(f)), h.big, 4, false)
		case 'd':
			d := float64(structCheckNumber(L, arg, "pack"))
			arg++
			b = structPutInt(b, math.Float64bits(d), h.big, 8, false)
		case 'c', 's':
			s, ok := lua51.ToString(L.Get(arg))
			if !ok {
				argError(L, arg, "pack", "string expected, got "+packTypeName(L.Get(arg)))
			}
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
				size++
			}
		default:
			structControl(L, "pack", opt, fmtStr, &i, &h)
		}
		total += size
	}
	L.Push(lua.LString(b))
	return 1
}

func structCheckNumber(L *lua.LState, n int, fname string) lua.LNumber {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return v
	case lua.LString:
		if f, ok := lua.StrToNumber(string(v)); ok {
			return lua.LNumber(f)
		}
	}
	argError(L, n, fname, "number expected, got "+packTypeName(L.Get(n)))
	return 0
}

// packTypeName names the type of an argument of struct.pack as Redis's
// does: a missing one is "nil" there (its buffer occupies the stack past the
// arguments), where unpack says "no value".
func packTypeName(v lua.LValue) string {
	if v == lua.LNil {
		return "nil"
	}
	return v.Type().String()
}

func structGetInt(buf []byte, big, signed bool, size int) float64 {
	var l uint64
	if big {
		for j := 0; j < size; j++ {
			l = l<<8 | uint64(buf[j])
		}
	} else {
		for j := size - 1; j >= 0; j-- {
			l = l<<8 | uint64(buf[j])
		}
	}
	if !signed {
		return float64(l)
	}
	if size*8-1 < 64 {
		mask := ^uint64(0) << (size*8 - 1)
		if l&mask != 0 {
			l |= mask
		}
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	fmtStr := structFormat(L)
	data, ok := lua51.ToString(L.Get(2))
	if !ok {
		argError(L, 2, "unpack", "string expected, got "+argTypeName(L, 2))
	}
	ld := len(data)
	pos := L.OptInt(3, 1) - 1
	if pos < 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	h := structHeader{align: 1}
	var out []lua.LValue
	for i := 0; i < len(fmtStr); {
		opt := fmtStr[i]
		i++
		size := structOptSize(L, opt, fmtStr, &i)
		pos += structToAlign(pos, &h, opt, size)
		if !(size <= ld && pos <= ld-size) {
			argError(L, 2, "unpack", "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a' && opt <= 'z'
			out = append(out, lua.LNumber(structGetInt([]byte(data[pos:pos+size]), h.big, signed, size)))
		case 'x':
		case 'f':
			bits := uint32(structGetInt([]byte(data[pos:pos+4]), h.big, false, 4))
			out = append(out, lua.LNumber(math.Float32frombits(bits)))
		case 'd':
			var bits uint64
			if h.big {
				bits = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				bits = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			}
			out = append(out, lua.LNumber(math.Float64frombits(bits)))
		case 'c':
			if size == 0 {
				if len(out) == 0 {
					L.RaiseError("format 'c0' needs a previous size")
				}
				prev, isNum := out[len(out)-1].(lua.LNumber)
				if !isNum {
					L.RaiseError("format 'c0' needs a previous size")
				}
				size = int(prev)
				out = out[:len(out)-1]
				if !(size <= ld && pos <= ld-size) {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				L.RaiseError("unfinished string in data")
			}
			size = e + 1
			out = append(out, lua.LString(data[pos:pos+e]))
		default:
			structControl(L, "unpack", opt, fmtStr, &i, &h)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(out) + 1
}

func structSize(L *lua.LState) int {
	fmtStr := structFormat(L)
	h := structHeader{align: 1}
	pos := 0
	for i := 0; i < len(fmtStr); {
		opt := fmtStr[i]
		i++
		size := structOptSize(L, opt, fmtStr, &i)
		pos += structToAlign(pos, &h, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			structControl(L, "size", opt, fmtStr, &i, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
