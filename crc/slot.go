package crc

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unsafe"
)

// Slots is the number of hash slots in a Redis Cluster.
const Slots = 16384

// CRC16 returns the CRC-16/XMODEM of p, the hash Redis Cluster uses for keys.
func CRC16(p []byte) uint16 {
	return crc16(p)
}

// Slot returns the Redis Cluster hash slot of key, as CLUSTER KEYSLOT does:
// if the key holds a '{' followed later by a '}' with at least one byte
// between them, only the bytes between the first '{' and the first '}' after
// it are hashed. The empty key is slot 0.
func Slot(key string) uint16 {
	if n := len(key); n >= 8 && n <= 16 {
		return slotShort(unsafe.Slice(unsafe.StringData(key), n))
	}
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	// Viewing the string's bytes in place keeps Slot free of allocations;
	// crc16 only reads them.
	return crc16(unsafe.Slice(unsafe.StringData(key), len(key))) & (Slots - 1)
}

// slotShort is Slot for keys of 8 to 16 bytes, most keys: two overlapping
// words hold the whole key, and SWAR tests on them find the braces for less
// than two calls to the vectorised search cost.
func slotShort(p []byte) uint16 {
	n := len(p)
	// Byte i of w1 is byte n-8+i of p.
	w0, w1 := binary.LittleEndian.Uint64(p), binary.LittleEndian.Uint64(p[n-8:])
	var s int
	if o := matches(w0, '{'); o != 0 {
		s = bits.TrailingZeros64(o) / 8
	} else if o := matches(w1, '{'); o != 0 {
		s = n - 8 + bits.TrailingZeros64(o)/8
	} else {
		return crc16Short(p) & (Slots - 1)
	}
	// The first '}' after s: in w0 only bytes above s count, in w1 only
	// bytes above s's place in it.
	e := -1
	if c := matches(w0, '}') &^ (1<<(8*s+8) - 1); s < 8 && c != 0 {
		e = bits.TrailingZeros64(c) / 8
	} else if c := matches(w1, '}') &^ (1<<max(0, 8*(s-n+8)+8) - 1); c != 0 {
		e = n - 8 + bits.TrailingZeros64(c)/8
	}
	if e > s+1 {
		p = p[s+1 : e]
	}
	return crc16Short(p) & (Slots - 1)
}

// matches returns the top bit of each byte of w that equals c, and no other
// bit. v has a zero byte where w has c; (v&0x7f…+0x7f…)|v has a byte's top
// bit clear exactly for zero bytes of v, with no borrow or carry crossing
// bytes (unlike the shorter v-0x01… trick, which can flag the byte after a
// match).
func matches(w uint64, c byte) uint64 {
	const lows = 0x7f7f7f7f7f7f7f7f
	v := w ^ uint64(c)*0x0101010101010101
	return ^((v&lows + lows) | v | lows)
}

// crc16 is CRC-16/XMODEM with one table lookup per byte and no dependency
// between the lookups. XMODEM starts from a zero register, which zero bytes
// leave at zero, so a byte's contribution depends only on its distance d from
// the end of the input: xmodemTable[d][b]. Up to sixteen bytes (most keys and
// hash tags) that is the whole CRC; longer inputs continue in steps of
// sixteen.
func crc16(p []byte) uint16 {
	if len(p) > 16 {
		return crc16Long(p)
	}
	return crc16Short(p)
}

// crc16Short is crc16 for at most sixteen bytes. It calls nothing, so it
// runs without a stack frame or the check for stack growth.
func crc16Short(p []byte) uint16 {
	n := len(p)
	if n == 0 {
		return 0 // and no pointer to the byte before p is ever formed
	}
	t := xmodemTableRef
	// at(d) is the byte d places before the end. The switch below reads
	// only d < n, so reading without bounds checks is safe, and it drops a
	// compare and branch per byte that the compiler cannot prove away.
	last := unsafe.Add(unsafe.Pointer(unsafe.SliceData(p)), n-1)
	at := func(d int) byte { return *(*byte)(unsafe.Add(last, -d)) }
	var c uint16
	switch n {
	case 16:
		c ^= t[15][at(15)]
		fallthrough
	case 15:
		c ^= t[14][at(14)]
		fallthrough
	case 14:
		c ^= t[13][at(13)]
		fallthrough
	case 13:
		c ^= t[12][at(12)]
		fallthrough
	case 12:
		c ^= t[11][at(11)]
		fallthrough
	case 11:
		c ^= t[10][at(10)]
		fallthrough
	case 10:
		c ^= t[9][at(9)]
		fallthrough
	case 9:
		c ^= t[8][at(8)]
		fallthrough
	case 8:
		c ^= t[7][at(7)]
		fallthrough
	case 7:
		c ^= t[6][at(6)]
		fallthrough
	case 6:
		c ^= t[5][at(5)]
		fallthrough
	case 5:
		c ^= t[4][at(4)]
		fallthrough
	case 4:
		c ^= t[3][at(3)]
		fallthrough
	case 3:
		c ^= t[2][at(2)]
		fallthrough
	case 2:
		c ^= t[1][at(1)]
		fallthrough
	case 1:
		c ^= t[0][at(0)]
	}
	return c
}

// step16 feeds the sixteen bytes hi‖lo (big-endian) through register c. The
// xor tree is balanced by hand: the compiler keeps the grouping, and four
// levels of xor wait less than a chain of fifteen.
func step16(c uint16, hi, lo uint64) uint16 {
	t := xmodemTableRef
	hi ^= uint64(c) << 48
	return (((t[15][hi>>56] ^ t[14][byte(hi>>48)]) ^ (t[13][byte(hi>>40)] ^ t[12][byte(hi>>32)])) ^
		((t[11][byte(hi>>24)] ^ t[10][byte(hi>>16)]) ^ (t[9][byte(hi>>8)] ^ t[8][byte(hi)]))) ^
		(((t[7][lo>>56] ^ t[6][byte(lo>>48)]) ^ (t[5][byte(lo>>40)] ^ t[4][byte(lo>>32)])) ^
			((t[3][byte(lo>>24)] ^ t[2][byte(lo>>16)]) ^ (t[1][byte(lo>>8)] ^ t[0][byte(lo)])))
}

func crc16Long(p []byte) uint16 {
	var c uint16
	if r := len(p) % 16; r != 0 {
		c = crc16Short(p[:r])
		p = p[r:]
	}
	for ; len(p) >= 16; p = p[16:] {
		c = step16(c, binary.BigEndian.Uint64(p), binary.BigEndian.Uint64(p[8:]))
	}
	return c
}
