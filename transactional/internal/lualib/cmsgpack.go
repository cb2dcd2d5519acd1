package lualib

import (
	"encoding/binary"
	"math"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
)

// cmsgpack is lua-cmsgpack 0.4.0 as bundled with Redis
// (deps/lua/src/lua_cmsgpack.c): the same choice of encodings (smallest
// integer form, float32 when exact, str8, arrays for tables whose keys are
// 1..n) and the same limits and errors.

const cmsgpackMaxNesting = 16

func openCmsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(cmsgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return cmsgpackUnpack(L, 0, 0, true) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		off := L.OptInt(2, 0)
		return cmsgpackUnpack(L, 1, off, false)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := L.CheckInt(2)
		off := L.OptInt(3, 0)
		return cmsgpackUnpack(L, limit, off, false)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func cmsgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		L.RaiseError("bad argument #0 to 'pack' (MessagePack pack needs input.)")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = mpEncode(L, b, L.Get(i), 0)
	}
	L.Push(lua.LString(b))
	return 1
}

func mpEncode(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	L.Step() // a table nested in itself makes a long packing
	switch v := v.(type) {
	case lua.LString:
		return mpEncodeBytes(b, string(v))
	case lua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(v)
		if !math.IsInf(f, 0) && !math.IsNaN(f) && float64(lua51.Integer(f)) == f {
			return mpEncodeInt(b, lua51.Integer(f))
		}
		if float64(float32(f)) == f || math.IsNaN(f) {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case *lua.LTable:
		if level == cmsgpackMaxNesting {
			return append(b, 0xc0)
		}
		if mpIsArray(v) {
			n := v.Len()
			b = mpHeader(b, n, 0x90, 15, 0xdc, 0xdd)
			for i := 1; i <= n; i++ {
				b = mpEncode(L, b, v.RawGetInt(i), level+1)
			}
			return b
		}
		n := 0
		v.ForEach(func(lua.LValue, lua.LValue) { n++ })
		b = mpHeader(b, n, 0x80, 15, 0xde, 0xdf)
		v.ForEach(func(k, val lua.LValue) {
			b = mpEncode(L, b, k, level+1)
			b = mpEncode(L, b, val, level+1)
		})
		return b
	}
	return append(b, 0xc0)
}

func mpIsArray(t *lua.LTable) bool {
	count, max := 0, 0
	ok := true
	t.ForEach(func(k, _ lua.LValue) {
		n, isNum := k.(lua.LNumber)
		if !ok || !isNum || n <= 0 || float64(n) != math.Floor(float64(n)) {
			ok = false
			return
		}
		if int(n) > max {
			max = int(n)
		}
		count++
	})
	return ok && max == count
}

func mpHeader(b []byte, n int, fix byte, fixMax int, op16, op32 byte) []byte {
	switch {
	case n <= fixMax:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, op16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, op32), uint32(n))
}

func mpEncodeBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

func mpEncodeInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

type mpErr int

const (
	mpOK mpErr = iota
	mpEOF
	mpBadFmt
)

type mpCursor struct {
	L   *lua.LState
	s   string
	pos int
	err mpErr
	// depth bounds recursion on hostile input (nested arrays of arrays).
	depth int
}

func (c *mpCursor) need(n int) bool {
	if len(c.s)-c.pos < n {
		c.err = mpEOF
		return false
	}
	return true
}

func cmsgpackUnpack(L *lua.LState, limit, offset int, all bool) int {
	s, ok := lua51.ToString(L.Get(1))
	if !ok {
		argError(L, 1, "unpack", "string expected, got "+argTypeName(L, 1))
	}
	if offset < 0 || limit < 0 {
		L.RaiseError("Invalid request to unpack with offset of %d and limit of %d.", offset, len(s))
	}
	if offset > len(s) {
		L.RaiseError("Start offset %d greater than input length %d.", offset, len(s))
	}
	if all {
		limit = math.MaxInt32
	}
	c := &mpCursor{L: L, s: s, pos: offset}
	var out []lua.LValue
	for cnt := 0; c.pos < len(s) && cnt < limit; cnt++ {
		v := c.decode()
		switch c.err {
		case mpEOF:
			L.RaiseError("Missing bytes in input.")
		case mpBadFmt:
			L.RaiseError("Bad data format in input.")
		}
		out = append(out, v)
	}
	if !all {
		next := c.pos
		if c.pos == len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range out {
		L.Push(v)
	}
	if all {
		return len(out)
	}
	return len(out) + 1
}

func (c *mpCursor) uint(n int) uint64 {
	if !c.need(n) {
		return 0
	}
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(c.s[c.pos+i])
	}
	c.pos += n
	return v
}

func (c *mpCursor) str(n int) lua.LValue {
	if !c.need(n) {
		return lua.LNil
	}
	s := c.s[c.pos : c.pos+n]
	c.pos += n
	return lua.LString(s)
}

func (c *mpCursor) array(n int) lua.LValue {
	t := c.L.CreateTable(min(n, 1024), 0)
	for i := 1; i <= n && c.err == mpOK; i++ {
		t.RawSetInt(i, c.decode())
	}
	return t
}

func (c *mpCursor) mapping(n int) lua.LValue {
	t := c.L.CreateTable(0, min(n, 1024))
	for i := 0; i < n && c.err == mpOK; i++ {
		k := c.decode()
		v := c.decode()
		if c.err == mpOK && k != lua.LNil {
			if f, ok := k.(lua.LNumber); ok && math.IsNaN(float64(f)) {
				continue
			}
			t.RawSet(k, v)
		}
	}
	return t
}

func (c *mpCursor) decode() lua.LValue {
	c.L.Step() // a kill reaches a long unpacking
	if !c.need(1) {
		return lua.LNil
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 1000 {
		c.err = mpBadFmt
		return lua.LNil
	}
	op := c.s[c.pos]
	c.pos++
	switch {
	case op <= 0x7f:
		return lua.LNumber(op)
	case op >= 0xe0:
		return lua.LNumber(int8(op))
	case op&0xe0 == 0xa0:
		return c.str(int(op & 0x1f))
	case op&0xf0 == 0x90:
		return c.array(int(op & 0x0f))
	case op&0xf0 == 0x80:
		return c.mapping(int(op & 0x0f))
	}
	switch op {
	case 0xc0:
		return lua.LNil
	case 0xc2:
		return lua.LFalse
	case 0xc3:
		return lua.LTrue
	case 0xcc:
		return lua.LNumber(c.uint(1))
	case 0xcd:
		return lua.LNumber(c.uint(2))
	case 0xce:
		return lua.LNumber(c.uint(4))
	case 0xcf:
		return lua.LNumber(c.uint(8))
	case 0xd0:
		return lua.LNumber(int8(c.uint(1)))
	case 0xd1:
		return lua.LNumber(int16(c.uint(2)))
	case 0xd2:
		return lua.LNumber(int32(c.uint(4)))
	case 0xd3:
		return lua.LNumber(int64(c.uint(8)))
	case 0xca:
		return lua.LNumber(math.Float32frombits(uint32(c.uint(4))))
	case 0xcb:
		return lua.LNumber(math.Float64frombits(c.uint(8)))
	case 0xd9, 0xc4:
		n := c.uint(1)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.str(int(n))
	case 0xda, 0xc5:
		n := c.uint(2)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.str(int(n))
	case 0xdb, 0xc6:
		n := c.uint(4)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.str(int(n))
	case 0xdc:
		n := c.uint(2)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.array(int(n))
	case 0xdd:
		n := c.uint(4)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.array(int(n))
	case 0xde:
		n := c.uint(2)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.mapping(int(n))
	case 0xdf:
		n := c.uint(4)
		if c.err != mpOK {
			return lua.LNil
		}
		return c.mapping(int(n))
	}
	c.err = mpBadFmt
	return lua.LNil
}
