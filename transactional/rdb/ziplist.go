package rdb

import "encoding/binary"

// parseZiplist decodes a ziplist, the small-aggregate encoding before
// Redis 7 (RDB types 10, 12, 13 and the nodes of quicklist type 14).
func parseZiplist(b []byte) ([]lpEntry, error) {
	if len(b) < 11 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != 0xFF {
		return nil, ErrBadData
	}
	var out []lpEntry
	p := 10
	for p < len(b)-1 {
		if b[p] == 0xFE { // previous entry length: 0xFE and four bytes
			p += 5
		} else {
			p++
		}
		if p >= len(b)-1 {
			return nil, ErrBadData
		}
		e, n, err := zlDecode(b[p : len(b)-1])
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		p += n
	}
	return out, nil
}

func zlDecode(b []byte) (lpEntry, int, error) {
	need := func(n int) bool { return len(b) >= n }
	c := b[0]
	switch c >> 6 {
	case 0:
		n := int(c & 0x3F)
		if !need(1 + n) {
			return lpEntry{}, 0, ErrBadData
		}
		return lpEntry{s: string(b[1 : 1+n])}, 1 + n, nil
	case 1:
		if !need(2) {
			return lpEntry{}, 0, ErrBadData
		}
		n := int(c&0x3F)<<8 | int(b[1])
		if !need(2 + n) {
			return lpEntry{}, 0, ErrBadData
		}
		return lpEntry{s: string(b[2 : 2+n])}, 2 + n, nil
	case 2:
		if !need(5) {
			return lpEntry{}, 0, ErrBadData
		}
		n := int(binary.BigEndian.Uint32(b[1:]))
		if n < 0 || len(b)-5 < n {
			return lpEntry{}, 0, ErrBadData
		}
		return lpEntry{s: string(b[5 : 5+n])}, 5 + n, nil
	}
	integer := func(size int, v int64) (lpEntry, int, error) {
		if !need(1 + size) {
			return lpEntry{}, 0, ErrBadData
		}
		return lpEntry{v: v, isInt: true}, 1 + size, nil
	}
	switch {
	case c == 0xC0 && need(3):
		return integer(2, int64(int16(binary.LittleEndian.Uint16(b[1:]))))
	case c == 0xD0 && need(5):
		return integer(4, int64(int32(binary.LittleEndian.Uint32(b[1:]))))
	case c == 0xE0 && need(9):
		return integer(8, int64(binary.LittleEndian.Uint64(b[1:])))
	case c == 0xF0 && need(4):
		u := uint32(b[1]) | uint32(b[2])<<8 | uint32(b[3])<<16
		return integer(3, int64(int32(u<<8)>>8))
	case c == 0xFE && need(2):
		return integer(1, int64(int8(b[1])))
	case c >= 0xF1 && c <= 0xFD:
		return integer(0, int64(c&0x0F)-1)
	}
	return lpEntry{}, 0, ErrBadData
}
