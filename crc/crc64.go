package crc

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// CRC64 returns the CRC-64/REDIS of the data whose CRC is crc followed by p,
// like Redis's crc64(crc, buf, len): CRC64(0, p) is the CRC of p, and
// CRC64(CRC64(0, a), b) == CRC64(0, a‖b).
func CRC64(crc uint64, p []byte) uint64 {
	if len(p) >= archMin && archAvailable {
		n := len(p) &^ 15
		crc = archUpdate(crc, p[:n])
		p = p[n:]
	}
	return updatePortable(crc, p)
}

// Combine64 returns the CRC-64/REDIS of A‖B given crcA = CRC64(0, A),
// crcB = CRC64(0, B) and lenB = len(B). It panics if lenB is negative.
func Combine64(crcA, crcB uint64, lenB int64) uint64 {
	if lenB < 0 {
		panic("crc: Combine64 with negative length")
	}
	return shift(crcA, uint64(lenB)) ^ crcB
}

// shift moves register c past n zero bytes: c·x^(8n) mod P.
func shift(c, n uint64) uint64 {
	if archAvailable {
		return archShift(c, n)
	}
	return shiftPortable(c, n)
}

// shiftPortable multiplies c by the cache entry of each non-zero base-256
// digit of n. The entries are multiplied in pairs first, as a tree, so that
// independent multiplies overlap instead of waiting on each other.
func shiftPortable(c, n uint64) uint64 {
	var f [8]uint64
	k := 0
	for i := 0; n > 0; i, n = i+1, n>>8 {
		if d := byte(n); d != 0 {
			f[k] = redisCombineClmul[i][d]
			k++
		}
	}
	for ; k > 1; k = (k + 1) / 2 {
		for j := 0; j < k/2; j++ {
			f[j] = mulx(f[2*j], f[2*j+1]) // both carry x^-1: so does the product
		}
		if k%2 == 1 {
			f[k/2] = f[k-1]
		}
	}
	if k == 1 {
		c = mulx(c, f[0])
	}
	return c
}

// streamMin is the length from which the portable path splits its input into
// two streams: below it the join costs more than the overlap saves (two
// streams win by 10-35% at 256 bytes already, on amd64 and under purego).
const streamMin = 256

// updatePortable runs two slicing-by-16 chains side by side over two equal
// segments. Slicing-by-16 is cheaper per byte than slicing-by-8, not only
// shorter in latency: only the first eight bytes of a step meet the register
// and need a shift and a mask each to become table indices; the other eight
// are loaded as bytes and index the table directly, one operation each
// instead of three. Its 32 KiB of tables still fit L1; slicing-by-24 (48 KiB)
// measured slower. Two chains keep enough table loads in flight; three
// measured slower, as the loop spills on amd64. The segment length has one
// non-zero base-256 digit, so the factor joining the chains is a single cache
// entry (the multi-stream technique of Josiah Carlson's "CRC64 in Redis is
// getting even faster", https://www.dr-josiah.com/2023/04/crc64-in-redis-is-getting-even-faster.html).
func updatePortable(crc uint64, p []byte) uint64 {
	for len(p) >= streamMin {
		half := uint64(len(p) / 2)
		i := (bits.Len64(half) - 1) / 8
		d := half >> (8 * i)
		if i == 0 {
			d &^= 15 // the chains step sixteen bytes at a time
		}
		seg := int(d << (8 * i))
		crc = streams2(crc, p[:2*seg], seg, redisCombineClmul[i][d])
		p = p[2*seg:]
	}
	if len(p) >= 16 {
		n := len(p) &^ 15
		crc = stream1(crc, p[:n])
		p = p[n:]
	}
	return redisUpdate(crc, p)
}

// streams2 returns the CRC of p (two segments of seg bytes each, seg a
// multiple of 16) continuing crc; f is x^(8·seg)·x^-1 mod P.
func streams2(crc uint64, p []byte, seg int, f uint64) uint64 {
	t := redisTableRef
	a, b := crc, uint64(0)
	// Indexing one base pointer, with the bound checked once here, keeps
	// the loop free of bounds checks and of a second pointer per chain,
	// which amd64 has no register left for.
	base := unsafe.Pointer(unsafe.SliceData(p[:2*seg]))
	for i := 0; i < seg; i += 16 {
		a = slice16(t, a, unsafe.Add(base, i))
		b = slice16(t, b, unsafe.Add(base, seg+i))
	}
	// The first register still has to move past the second segment.
	return mul(a, f) ^ b
}

// stream1 is one slicing-by-16 chain over p, a multiple of 16 bytes long.
func stream1(crc uint64, p []byte) uint64 {
	t := redisTableRef
	base := unsafe.Pointer(unsafe.SliceData(p))
	for i := 0; i+16 <= len(p); i += 16 {
		crc = slice16(t, crc, unsafe.Add(base, i))
	}
	return crc
}

// slice16 returns register c after the sixteen bytes at q. Only the first
// eight meet the register and need a shift and a mask each to become table
// indices; the other eight are loaded as bytes and index the table directly.
func slice16(t *[16][256]uint64, c uint64, q unsafe.Pointer) uint64 {
	b := (*[16]byte)(q)
	x := c ^ binary.LittleEndian.Uint64(b[:8])
	a := t[15][byte(x)] ^ t[7][b[8]]
	x >>= 8
	a ^= t[14][byte(x)] ^ t[6][b[9]]
	x >>= 8
	a ^= t[13][byte(x)] ^ t[5][b[10]]
	x >>= 8
	a ^= t[12][byte(x)] ^ t[4][b[11]]
	x >>= 8
	a ^= t[11][byte(x)] ^ t[3][b[12]]
	x >>= 8
	a ^= t[10][byte(x)] ^ t[2][b[13]]
	x >>= 8
	a ^= t[9][byte(x)] ^ t[1][b[14]]
	return a ^ t[8][x>>8] ^ t[0][b[15]]
}

// mul is mulx on the fastest multiplier the CPU has.
func mul(a, b uint64) uint64 {
	if archAvailable {
		return archMul(a, b)
	}
	return mulx(a, b)
}

// mulx returns a·b·x mod P for reflected registers a and b. A carry-less
// multiply of reflected operands yields the product times x; the cache holds
// its factors times x^-1, so mulx(c, cached) is c times the cached factor.
func mulx(a, b uint64) uint64 {
	hi, lo := clmul(a, b)
	// lo holds the powers x^64..x^127 of the product: feeding it as eight
	// zero bytes through the register reduces them modulo P.
	return hi ^ shift8(lo)
}

// shift8 moves register c past eight zero bytes.
func shift8(c uint64) uint64 {
	t := &redisTable
	return t[7][byte(c)] ^ t[6][byte(c>>8)] ^ t[5][byte(c>>16)] ^ t[4][byte(c>>24)] ^
		t[3][byte(c>>32)] ^ t[2][byte(c>>40)] ^ t[1][byte(c>>48)] ^ t[0][c>>56]
}

// clmul is a carry-less 64×64→128-bit multiply: Karatsuba over three
// 32×32-bit products.
func clmul(a, b uint64) (hi, lo uint64) {
	a0, a1 := uint32(a), uint32(a>>32)
	b0, b1 := uint32(b), uint32(b>>32)
	l := clmul32(a0, b0)
	h := clmul32(a1, b1)
	m := clmul32(a0^a1, b0^b1) ^ l ^ h
	return h ^ m>>32, l ^ m<<32
}

// clmul32 is a carry-less 32×32→64-bit multiply made of integer multiplies
// (the technique of BearSSL's ghash_ctmul). Each operand is split into four
// classes of bits four places apart; a product of two classes sums at most
// eight terms per bit, which fits the three zero bits above each, so no carry
// reaches the next bit of the class and the low bit of each field is the
// carry-less result.
func clmul32(x, y uint32) uint64 {
	const m0, m1, m2, m3 = 0x11111111, 0x22222222, 0x44444444, 0x88888888
	x0, x1, x2, x3 := uint64(x&m0), uint64(x&m1), uint64(x&m2), uint64(x&m3)
	y0, y1, y2, y3 := uint64(y&m0), uint64(y&m1), uint64(y&m2), uint64(y&m3)
	z0 := x0*y0 ^ x1*y3 ^ x2*y2 ^ x3*y1
	z1 := x0*y1 ^ x1*y0 ^ x2*y3 ^ x3*y2
	z2 := x0*y2 ^ x1*y1 ^ x2*y0 ^ x3*y3
	z3 := x0*y3 ^ x1*y2 ^ x2*y1 ^ x3*y0
	return z0&0x1111111111111111 | z1&0x2222222222222222 | z2&0x4444444444444444 | z3&0x8888888888888888
}
