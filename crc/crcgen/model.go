package crcgen

import (
	"fmt"
	"math/bits"
)

// Params describes a CRC in the Rocksoft/reveng model. Poly is always given in
// normal (MSB-first) form, as catalogues publish it; Reflect sets both refin
// and refout, because CRCs with refin != refout are too rare to carry.
type Params struct {
	Name    string // identifier prefix in the generated code, e.g. "redis64"
	Pkg     string // package clause of the generated file
	Width   int    // 1..64
	Poly    uint64
	Reflect bool
	Init    uint64
	XorOut  uint64
	// Slices is how many bytes one table step consumes, 8 (the default
	// when 0) or 16; 16 doubles the tables and halves the steps, which
	// pays for short inputs hashed in one step, like Redis Cluster keys.
	Slices int
}

func (p Params) validate() error {
	if p.Width < 1 || p.Width > 64 {
		return fmt.Errorf("width %d out of range 1..64", p.Width)
	}
	m := mask(p.Width)
	switch {
	case p.Poly&1 == 0:
		// Without the x^0 term x has no inverse modulo P, and the combine
		// operator and error location both rely on that inverse.
		return fmt.Errorf("poly %#x: the x^0 coefficient must be 1", p.Poly)
	case p.Poly&^m != 0:
		return fmt.Errorf("poly %#x does not fit in %d bits", p.Poly, p.Width)
	case p.Init&^m != 0:
		return fmt.Errorf("init %#x does not fit in %d bits", p.Init, p.Width)
	case p.XorOut&^m != 0:
		return fmt.Errorf("xorout %#x does not fit in %d bits", p.XorOut, p.Width)
	}
	if p.Slices != 0 && p.Slices != 8 && p.Slices != 16 {
		return fmt.Errorf("slices %d: must be 8 or 16", p.Slices)
	}
	if !isIdent(p.Name) {
		return fmt.Errorf("name %q is not a Go identifier", p.Name)
	}
	if !isIdent(p.Pkg) {
		return fmt.Errorf("package %q is not a Go identifier", p.Pkg)
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" || s == "_" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func mask(w int) uint64 {
	if w == 64 {
		return ^uint64(0)
	}
	return 1<<uint(w) - 1
}

// model holds a CRC register in the form its table-driven update uses:
// reflected registers are right-aligned (bit W-1 is x^0), normal registers are
// left-aligned in 64 bits (bit 63 is x^(W-1)), so both shift a whole byte out
// of one end and the same code serves every width.
type model struct {
	p     Params
	poly  uint64 // in register form, without the x^W term
	table [256]uint64
}

func newModel(p Params) *model {
	m := &model{p: p}
	if p.Reflect {
		m.poly = bits.Reverse64(p.Poly) >> uint(64-p.Width)
	} else {
		m.poly = p.Poly << uint(64-p.Width)
	}
	for v := range m.table {
		c := m.byteIn(uint64(v))
		for range 8 {
			c = m.mulx(c)
		}
		m.table[v] = c
	}
	return m
}

// byteIn places a data byte where the register's next-out byte sits.
func (m *model) byteIn(v uint64) uint64 {
	if m.p.Reflect {
		return v
	}
	return v << 56
}

// mulx multiplies the register by x modulo P.
func (m *model) mulx(c uint64) uint64 {
	if m.p.Reflect {
		if c&1 != 0 {
			return c>>1 ^ m.poly
		}
		return c >> 1
	}
	if c>>63 != 0 {
		return c<<1 ^ m.poly
	}
	return c << 1
}

// term returns x^k (k < W) in register form.
func (m *model) term(k int) uint64 {
	if m.p.Reflect {
		return 1 << uint(m.p.Width-1-k)
	}
	return 1 << uint(64-m.p.Width+k)
}

func (m *model) one() uint64 { return m.term(0) }

// mul returns a·b mod P. Bit-serial: the generator runs it a few thousand
// times, so clarity wins over speed here.
func (m *model) mul(a, b uint64) uint64 {
	var p uint64
	for k := 0; k < m.p.Width; k++ {
		if a&m.term(k) != 0 {
			p ^= b
		}
		b = m.mulx(b)
	}
	return p
}

// xpow returns x^n mod P.
func (m *model) xpow(n uint64) uint64 {
	r, sq := m.one(), m.mulx(m.one())
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			r = m.mul(r, sq)
		}
		sq = m.mul(sq, sq)
	}
	return r
}

// shiftByte feeds one zero byte through the register.
func (m *model) shiftByte(c uint64) uint64 {
	if m.p.Reflect {
		return m.table[c&0xff] ^ c>>8
	}
	return m.table[c>>56] ^ c<<8
}

// update runs the bytewise algorithm over p starting from register c.
func (m *model) update(c uint64, p []byte) uint64 {
	for _, b := range p {
		c = m.shiftByte(c ^ m.byteIn(uint64(b)))
	}
	return c
}

// fromRegister turns a register into the checksum value a user sees.
func (m *model) fromRegister(c uint64) uint64 {
	if !m.p.Reflect {
		c >>= uint(64 - m.p.Width)
	}
	return c ^ m.p.XorOut
}

func (m *model) toRegister(crc uint64) uint64 {
	c := crc ^ m.p.XorOut
	if !m.p.Reflect {
		c <<= uint(64 - m.p.Width)
	}
	return c
}

// check is the catalogue check value: the CRC of "123456789".
func (m *model) check() uint64 {
	return m.fromRegister(m.update(m.toRegister(m.p.Init^m.p.XorOut), []byte("123456789")))
}

// typeBits is the width of the Go unsigned type that holds the register.
func (m *model) typeBits() int {
	switch {
	case m.p.Width <= 8:
		return 8
	case m.p.Width <= 16:
		return 16
	case m.p.Width <= 32:
		return 32
	}
	return 64
}

// emit converts a register value to the generated code's register form,
// which keeps normal CRCs left-aligned in their (possibly narrower) type.
func (m *model) emit(c uint64) uint64 {
	if m.p.Reflect {
		return c
	}
	return c >> uint(64-m.typeBits())
}

// slices returns Params.Slices with its default applied.
func (m *model) slices() int {
	if m.p.Slices == 0 {
		return 8
	}
	return m.p.Slices
}

// slicing returns the slicing tables: s[k][v] is the register after byte v
// followed by k zero bytes, so n lookups advance n bytes.
func (m *model) slicing() [][256]uint64 {
	s := make([][256]uint64, m.slices())
	s[0] = m.table
	for k := 1; k < len(s); k++ {
		for v := range 256 {
			s[k][v] = m.shiftByte(s[k-1][v])
		}
	}
	return s
}

// combineDigits is how many base-256 digits of a byte count the combine
// cache covers: eight cover every int64 length.
const combineDigits = 8

// combineCache returns c[i][d] = x^(8·d·256^i) mod P: the operator that
// shifts a register past d·256^i zero bytes is a multiplication by it, so a
// length needs one factor per non-zero base-256 digit.
func (m *model) combineCache() [combineDigits][256]uint64 {
	var c [combineDigits][256]uint64
	base := m.xpow(8)
	for i := range c {
		c[i][0] = m.one()
		for d := 1; d < 256; d++ {
			c[i][d] = m.mul(c[i][d-1], base)
		}
		base = m.mul(c[i][255], base)
	}
	return c
}

// xinv returns x^-1 mod P, which exists because P has an x^0 term: it is
// the register that mulx maps to 1, found by undoing mulx's conditional xor.
func (m *model) xinv() uint64 {
	if m.p.Reflect {
		return (m.one()^m.poly)<<1 | 1
	}
	return (m.one()^m.poly)>>1 | 1<<63
}

// clmulConsts are the constants for carry-less-multiply code over a
// reflected 64-bit CRC. A carry-less multiply of two reflected operands A and
// B, read as a 128-bit reflected register, is A·B·x: every constant below
// carries one factor x^-1 to cancel that x.
type clmulConsts struct {
	// Fold[2j-2], Fold[2j-1] are x^(128j+63) and x^(128j-1) mod P for
	// j = 1..foldSpans: they move the high and low halves of a 128-bit
	// accumulator 128j bits further on. Then come the Barrett constants
	// floor(x^128/P) - x^64 and P - x^64, both reflected.
	Fold []uint64
	// Cache is the combine cache times x^-1.
	Cache [][]string
}

// foldSpans covers folding distances up to 32 blocks of 16 bytes, enough for
// eight 512-bit accumulators.
const foldSpans = 32

func (m *model) clmulConstants() *clmulConsts {
	c := &clmulConsts{}
	for j := uint64(1); j <= foldSpans; j++ {
		c.Fold = append(c.Fold, m.xpow(128*j+63), m.xpow(128*j-1))
	}
	c.Fold = append(c.Fold, bits.Reverse64(barrettMu(m.p.Poly)), m.poly)
	xinv := m.xinv()
	cache := m.combineCache()
	for i := range cache {
		var row [256]uint64
		for d := range row {
			row[d] = m.mul(cache[i][d], xinv)
		}
		c.Cache = append(c.Cache, m.rows(row[:]))
	}
	return c
}

// barrettMu returns floor(x^128 / P) - x^64 for P = x^64 + poly (normal
// form), by long division over GF(2).
func barrettMu(poly uint64) uint64 {
	// Subtracting P·x^64 from x^128 leaves poly·x^64; r then holds the 64
	// remainder coefficients just below the degree d being decided.
	r, q := poly, uint64(0)
	for d := 127; d >= 64; d-- {
		top := r >> 63
		r <<= 1
		if top == 1 {
			q |= 1 << uint(d-64)
			r ^= poly
		}
	}
	return q
}
