package crc

import (
	"encoding/binary"
	"math/bits"
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
// several streams: below it the joins cost more than the overlap saves.
const streamMin = 512

// updatePortable runs three slicing-by-8 chains side by side over three
// equal segments: one chain leaves the CPU waiting on its table loads, three
// keep them in flight and still fit amd64's sixteen general registers (seed
// 000 found three best for Redis too). The segment length has one non-zero
// base-256 digit, so the factor joining the chains is a single cache entry.
func updatePortable(crc uint64, p []byte) uint64 {
	for len(p) >= streamMin {
		third := uint64(len(p) / 3)
		i := (bits.Len64(third) - 1) / 8
		d := third >> (8 * i)
		if i == 0 {
			d &^= 7 // the chains step eight bytes at a time
		}
		seg := int(d << (8 * i))
		crc = streams3(crc, p[:3*seg], seg, redisCombineClmul[i][d])
		p = p[3*seg:]
	}
	return redisUpdate(crc, p)
}

// streams3 returns the CRC of p (three segments of seg bytes each) continuing
// crc; f is x^(8·seg)·x^-1 mod P.
func streams3(crc uint64, p []byte, seg int, f uint64) uint64 {
	t := redisTableRef
	a, b, c := crc, uint64(0), uint64(0)
	pa, pb, pc := p[:seg], p[seg:2*seg], p[2*seg:3*seg]
	for len(pa) >= 8 && len(pb) >= 8 && len(pc) >= 8 {
		x := a ^ binary.LittleEndian.Uint64(pa)
		y := b ^ binary.LittleEndian.Uint64(pb)
		z := c ^ binary.LittleEndian.Uint64(pc)
		a = t[7][byte(x)] ^ t[6][byte(x>>8)] ^ t[5][byte(x>>16)] ^ t[4][byte(x>>24)] ^
			t[3][byte(x>>32)] ^ t[2][byte(x>>40)] ^ t[1][byte(x>>48)] ^ t[0][x>>56]
		b = t[7][byte(y)] ^ t[6][byte(y>>8)] ^ t[5][byte(y>>16)] ^ t[4][byte(y>>24)] ^
			t[3][byte(y>>32)] ^ t[2][byte(y>>40)] ^ t[1][byte(y>>48)] ^ t[0][y>>56]
		c = t[7][byte(z)] ^ t[6][byte(z>>8)] ^ t[5][byte(z>>16)] ^ t[4][byte(z>>24)] ^
			t[3][byte(z>>32)] ^ t[2][byte(z>>40)] ^ t[1][byte(z>>48)] ^ t[0][z>>56]
		pa, pb, pc = pa[8:], pb[8:], pc[8:]
	}
	// Each register still has to move past the segments after its own.
	return mul(mul(a, f)^b, f) ^ c
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
