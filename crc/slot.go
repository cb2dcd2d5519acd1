package crc

import (
	"bytes"
	"encoding/binary"
	"math/bits"
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
//
// Keys of 8 to 32 bytes, most keys, take a path without calls: the first
// '{' and the first '}' are found with SWAR tests on two or four words
// loaded at fixed offsets, so neither search waits on the other, and the
// CRC's table lookups are written out here rather than called.
func Slot(key string) uint16 {
	// Viewing the string's bytes in place keeps Slot free of allocations;
	// nothing below writes to them.
	p := unsafe.Slice(unsafe.StringData(key), len(key))
	n := len(p)
	// s and e are the first '{' and the first '}', n where there is none.
	// Each word is searched only if the words before it hold no match, so a
	// word that overlaps the one before it (the last sixteen bytes are read
	// as two words ending at the key's end) cannot report a byte of the
	// overlap.
	s, e := n, n
	switch {
	case n >= 8 && n <= 16:
		w0, w1 := load64(p, 0), load64(p, n-8)
		h0, h1 := highs&^w0, highs&^w1
		if f := firstByte(w0, h0, '{'); f != 0 {
			s = bits.TrailingZeros64(f) >> 3
		} else if f := firstByte(w1, h1, '{'); f != 0 {
			s = n - 8 + bits.TrailingZeros64(f)>>3
		}
		if f := firstByte(w0, h0, '}'); f != 0 {
			e = bits.TrailingZeros64(f) >> 3
		} else if f := firstByte(w1, h1, '}'); f != 0 {
			e = n - 8 + bits.TrailingZeros64(f)>>3
		}
	case n > 16 && n <= 32:
		w0, w1, w2, w3 := load64(p, 0), load64(p, 8), load64(p, n-16), load64(p, n-8)
		h0, h1, h2, h3 := highs&^w0, highs&^w1, highs&^w2, highs&^w3
		if f := firstByte(w0, h0, '{'); f != 0 {
			s = bits.TrailingZeros64(f) >> 3
		} else if f := firstByte(w1, h1, '{'); f != 0 {
			s = 8 + bits.TrailingZeros64(f)>>3
		} else if f := firstByte(w2, h2, '{'); f != 0 {
			s = n - 16 + bits.TrailingZeros64(f)>>3
		} else if f := firstByte(w3, h3, '{'); f != 0 {
			s = n - 8 + bits.TrailingZeros64(f)>>3
		}
		if f := firstByte(w0, h0, '}'); f != 0 {
			e = bits.TrailingZeros64(f) >> 3
		} else if f := firstByte(w1, h1, '}'); f != 0 {
			e = 8 + bits.TrailingZeros64(f)>>3
		} else if f := firstByte(w2, h2, '}'); f != 0 {
			e = n - 16 + bits.TrailingZeros64(f)>>3
		} else if f := firstByte(w3, h3, '}'); f != 0 {
			e = n - 8 + bits.TrailingZeros64(f)>>3
		}
	default:
		// Longer keys amortise the calls to the vectorised search; keys
		// under eight bytes have too few bytes for a word.
		return slotSearch(p)
	}
	// The hashed bytes are the n before end: the whole key, or the tag.
	end := n
	if e > s+1 {
		if e < n {
			end, n = e, e-s-1
		}
	} else if e < s && s < n {
		// A '}' before the first '{' (rare): the tag ends at a later '}'.
		return slotSearch(p)
	}
	if n > 16 {
		return crc16Long(p[end-n:end]) & (Slots - 1)
	}
	// crc16Short, written out: calling it measured about 10% slower.
	t := xmodemTableRef
	// at(d) is the byte d places before the end. The switch below reads
	// only d < n, so reading without bounds checks is safe, and it drops a
	// compare and branch per byte that the compiler cannot prove away.
	last := unsafe.Add(unsafe.Pointer(unsafe.SliceData(p)), end-1)
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
	return c & (Slots - 1)
}

// slotSearch is Slot by two calls to the vectorised byte search.
func slotSearch(p []byte) uint16 {
	if s := bytes.IndexByte(p, '{'); s >= 0 {
		if e := bytes.IndexByte(p[s+1:], '}'); e > 0 {
			p = p[s+1 : s+1+e]
		}
	}
	return crc16(p) & (Slots - 1)
}

// load64 returns the eight bytes of p from o on, little-endian on every
// platform, since byte positions are read off bit positions. Callers keep
// o+8 <= len(p); skipping the bounds check saves a compare per word that the
// compiler cannot prove away.
func load64(p []byte, o int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(p)), o))[:])
}

// highs has the top bit of every byte set.
const highs = 0x8080808080808080

// firstByte flags the first byte of w equal to c, given h = highs&^w: the
// returned word's lowest set bit is the top bit of that byte, and it is zero
// if there is none. It is the classic zero-byte test on w^c, whose borrow
// may raise false flags, but only above a true one. Since c < 0x80, the
// test's ^(w^c)&highs is h, which the tests for '{' and '}' share.
func firstByte(w, h uint64, c byte) uint64 {
	const ones = 0x0101010101010101
	return (w ^ uint64(c)*ones - ones) & h
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
