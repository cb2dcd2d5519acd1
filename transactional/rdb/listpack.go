package rdb

import (
	"encoding/binary"
	"strconv"
)

// listpack builds a listpack (Redis's listpack.c) entry by entry.
type listpack struct {
	buf   []byte // header placeholder, then the entries
	count int
}

func newListpack() *listpack { return &listpack{buf: make([]byte, 6, 64)} }

// size is the listpack's total size once finished: header, entries, end byte.
func (lp *listpack) size() int { return len(lp.buf) + 1 }

// appendString adds s, integer-encoded when Redis would (lpEncodeGetType:
// a canonical integer of at most 20 characters).
func (lp *listpack) appendString(s string) {
	if len(s) <= 20 {
		if v, ok := canonicalInt(s); ok {
			lp.appendInt(v)
			return
		}
	}
	start := len(lp.buf)
	n := len(s)
	switch {
	case n < 64:
		lp.buf = append(lp.buf, 0x80|byte(n))
	case n < 4096:
		lp.buf = append(lp.buf, 0xE0|byte(n>>8), byte(n))
	default:
		lp.buf = append(lp.buf, 0xF0)
		lp.buf = binary.LittleEndian.AppendUint32(lp.buf, uint32(n))
	}
	lp.buf = append(lp.buf, s...)
	lp.backlen(len(lp.buf) - start)
}

func (lp *listpack) appendInt(v int64) {
	start := len(lp.buf)
	switch {
	case v >= 0 && v <= 127:
		lp.buf = append(lp.buf, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint16(v) & 0x1FFF
		lp.buf = append(lp.buf, 0xC0|byte(u>>8), byte(u))
	case v >= -32768 && v <= 32767:
		lp.buf = append(lp.buf, 0xF1)
		lp.buf = binary.LittleEndian.AppendUint16(lp.buf, uint16(v))
	case v >= -(1<<23) && v < 1<<23:
		u := uint32(v)
		lp.buf = append(lp.buf, 0xF2, byte(u), byte(u>>8), byte(u>>16))
	case v >= -(1<<31) && v < 1<<31:
		lp.buf = append(lp.buf, 0xF3)
		lp.buf = binary.LittleEndian.AppendUint32(lp.buf, uint32(v))
	default:
		lp.buf = append(lp.buf, 0xF4)
		lp.buf = binary.LittleEndian.AppendUint64(lp.buf, uint64(v))
	}
	lp.backlen(len(lp.buf) - start)
}

// backlen appends lpEncodeBacklen(l): the entry's length, readable from
// its end, seven bits per byte.
func (lp *listpack) backlen(l int) {
	switch {
	case l <= 127:
		lp.buf = append(lp.buf, byte(l))
	case l < 16383:
		lp.buf = append(lp.buf, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		lp.buf = append(lp.buf, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		lp.buf = append(lp.buf, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	default:
		lp.buf = append(lp.buf, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	lp.count++
}

// bytes finishes the listpack: end byte and header.
func (lp *listpack) bytes() []byte {
	b := append(lp.buf, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	n := lp.count
	if n > 65535 {
		n = 65535 // "unknown": readers count
	}
	binary.LittleEndian.PutUint16(b[4:], uint16(n))
	return b
}

// lpEntry is one decoded listpack or ziplist element.
type lpEntry struct {
	s     string
	v     int64
	isInt bool
}

func (e lpEntry) String() string {
	if e.isInt {
		return strconv.FormatInt(e.v, 10)
	}
	return e.s
}

// parseListpack decodes a whole listpack, checking every length against
// the buffer.
func parseListpack(b []byte) ([]lpEntry, error) {
	if len(b) < 7 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xFF {
		return nil, ErrBadData
	}
	declared := int(binary.LittleEndian.Uint16(b[4:]))
	var out []lpEntry
	p := 6
	for p < len(b)-1 {
		e, n, err := lpDecode(b[p : len(b)-1])
		if err != nil {
			return nil, err
		}
		bl := backlenSize(n)
		if p+n+bl > len(b)-1 {
			return nil, ErrBadData
		}
		out = append(out, e)
		p += n + bl
	}
	if declared != 65535 && declared != len(out) {
		return nil, ErrBadData
	}
	return out, nil
}

func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// lpDecode decodes the entry at the start of b and returns it with the size
// of its encoding and data (without the backlen).
func lpDecode(b []byte) (lpEntry, int, error) {
	need := func(n int) error {
		if len(b) < n {
			return ErrBadData
		}
		return nil
	}
	c := b[0]
	switch {
	case c&0x80 == 0:
		return lpEntry{v: int64(c & 0x7F), isInt: true}, 1, nil
	case c&0xC0 == 0x80:
		n := int(c & 0x3F)
		if err := need(1 + n); err != nil {
			return lpEntry{}, 0, err
		}
		return lpEntry{s: string(b[1 : 1+n])}, 1 + n, nil
	case c&0xE0 == 0xC0:
		if err := need(2); err != nil {
			return lpEntry{}, 0, err
		}
		u := uint16(c&0x1F)<<8 | uint16(b[1])
		v := int64(u)
		if u >= 1<<12 {
			v -= 1 << 13
		}
		return lpEntry{v: v, isInt: true}, 2, nil
	case c&0xF0 == 0xE0:
		if err := need(2); err != nil {
			return lpEntry{}, 0, err
		}
		n := int(c&0x0F)<<8 | int(b[1])
		if err := need(2 + n); err != nil {
			return lpEntry{}, 0, err
		}
		return lpEntry{s: string(b[2 : 2+n])}, 2 + n, nil
	}
	switch c {
	case 0xF0:
		if err := need(5); err != nil {
			return lpEntry{}, 0, err
		}
		n := int(binary.LittleEndian.Uint32(b[1:]))
		if n < 0 || len(b)-5 < n {
			return lpEntry{}, 0, ErrBadData
		}
		return lpEntry{s: string(b[5 : 5+n])}, 5 + n, nil
	case 0xF1:
		if err := need(3); err != nil {
			return lpEntry{}, 0, err
		}
		return lpEntry{v: int64(int16(binary.LittleEndian.Uint16(b[1:]))), isInt: true}, 3, nil
	case 0xF2:
		if err := need(4); err != nil {
			return lpEntry{}, 0, err
		}
		u := uint32(b[1]) | uint32(b[2])<<8 | uint32(b[3])<<16
		return lpEntry{v: int64(int32(u<<8) >> 8), isInt: true}, 4, nil
	case 0xF3:
		if err := need(5); err != nil {
			return lpEntry{}, 0, err
		}
		return lpEntry{v: int64(int32(binary.LittleEndian.Uint32(b[1:]))), isInt: true}, 5, nil
	case 0xF4:
		if err := need(9); err != nil {
			return lpEntry{}, 0, err
		}
		return lpEntry{v: int64(binary.LittleEndian.Uint64(b[1:])), isInt: true}, 9, nil
	}
	return lpEntry{}, 0, ErrBadData
}

// canonicalInt is Redis's string2ll: an int64 written the way Redis would
// write it back (no sign on zero, no leading zeros, no spaces).
func canonicalInt(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	if s == "0" {
		return 0, true
	}
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
