// scriptgen: BITFIELD and BITFIELD_RO, which Redis 7.0 serves and
// upstream does not, after bitops.c's bitfieldGeneric: every operation is
// read before any runs, a write makes room up to the farthest bit it
// reaches (even when OVERFLOW FAIL then writes nothing), and the overflow
// rules are checkSignedBitfieldOverflow's and
// checkUnsignedBitfieldOverflow's.

package miniredis

import (
	"math"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// The overflow behaviours of BITFIELD's OVERFLOW.
const (
	bfWrap = iota
	bfSat
	bfFail
)

// bitfieldOp is one GET, SET or INCRBY, read.
type bitfieldOp struct {
	op       string // "get", "set", "incrby"
	offset   uint64
	value    int64 // SET's value, INCRBY's increment
	overflow int
	bits     uint
	signed   bool
}

// BITFIELD
func (m *Miniredis) cmdBitfield(c *server.Peer, cmd string, args []string) {
	m.bitfield(c, cmd, args, false)
}

// BITFIELD_RO
func (m *Miniredis) cmdBitfieldRO(c *server.Peer, cmd string, args []string) {
	m.bitfield(c, cmd, args, true)
}

func (m *Miniredis) bitfield(c *server.Peer, cmd string, args []string, ro bool) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		ops, highest, msg := parseBitfield(args[1:], m.ConfigInt("proto-max-bulk-len"))
		if msg != "" {
			c.WriteError(msg)
			return
		}
		readonly := true
		for _, o := range ops {
			readonly = readonly && o.op == "get"
		}
		if !readonly && ro {
			c.WriteError(msgBitfieldRO) // before the key is looked up
			return
		}
		db := m.db(ctx.selectedDB)
		key := args[0]
		if db.exists(key) && db.t(key) != keyTypeString {
			c.WriteError(msgWrongType)
			return
		}
		v := []byte(db.stringKeys[key])
		if !readonly {
			// Room up to the farthest bit written, made before any write.
			if n := int(highest>>3) + 1; len(v) < n {
				v = append(v, make([]byte, n-len(v))...)
			}
		}
		c.WriteLen(len(ops))
		for _, o := range ops {
			if o.op == "get" {
				c.WriteInt(int(bitfieldGet(v, o)))
				continue
			}
			old := bitfieldGet(v, o)
			next, overflow := o.value, false
			if o.op == "incrby" {
				next, overflow = bitfieldAdd(old, o.value, o)
			} else {
				next, overflow = bitfieldAdd(o.value, 0, o)
			}
			if overflow && o.overflow == bfFail {
				c.WriteNull()
				continue
			}
			setBits(v, o.offset, o.bits, uint64(next))
			if o.op == "incrby" {
				c.WriteInt(int(next))
			} else {
				c.WriteInt(int(old))
			}
		}
		if !readonly {
			db.stringSet(key, string(v)) // keeps the TTL, as Redis's in-place write does
		}
	})
}

// parseBitfield reads the operations (args after the key) and the highest
// bit a write reaches, or returns Redis's error: an unknown word or one
// short of its arguments is a syntax error, then the type, the offset
// and a value, in that order, each with its text.
func parseBitfield(args []string, maxBulk int64) ([]bitfieldOp, uint64, string) {
	var ops []bitfieldOp
	var highest uint64
	overflow := bfWrap
	for j := 0; j < len(args); j++ {
		rest := len(args) - j - 1
		o := bitfieldOp{op: strings.ToLower(args[j]), overflow: overflow}
		switch {
		case o.op == "get" && rest >= 2, (o.op == "set" || o.op == "incrby") && rest >= 3:
		case o.op == "overflow" && rest >= 1:
			j++
			switch strings.ToLower(args[j]) {
			case "wrap":
				overflow = bfWrap
			case "sat":
				overflow = bfSat
			case "fail":
				overflow = bfFail
			default:
				return nil, 0, msgBitfieldOverflow
			}
			continue
		default:
			return nil, 0, msgSyntaxError
		}
		typ := args[j+1]
		o.signed = strings.HasPrefix(typ, "i")
		n, ok := int64(0), false
		if typ != "" && (typ[0] == 'i' || typ[0] == 'u') {
			n, ok = parseInt64(typ[1:])
		}
		if !ok || n < 1 || o.signed && n > 64 || !o.signed && n > 63 {
			return nil, 0, msgBitfieldType
		}
		o.bits = uint(n)
		off := args[j+2]
		hash := strings.HasPrefix(off, "#")
		at, ok := parseInt64(strings.TrimPrefix(off, "#"))
		if hash {
			at *= n // wraps as Redis's does, to be refused below
		}
		if !ok || at < 0 || at>>3 >= maxBulk {
			return nil, 0, msgBitOffset
		}
		o.offset = uint64(at)
		if o.op != "get" {
			highest = max(highest, o.offset+uint64(o.bits)-1)
			if o.value, ok = parseInt64(args[j+3]); !ok {
				return nil, 0, msgInvalidInt
			}
			j++
		}
		j += 2
		ops = append(ops, o)
	}
	return ops, highest, ""
}

// bitfieldGet reads o's integer from v, zeros beyond its end.
func bitfieldGet(v []byte, o bitfieldOp) int64 {
	var u uint64
	for i := uint64(0); i < uint64(o.bits); i++ {
		at := o.offset + i
		bit := uint64(0)
		if at>>3 < uint64(len(v)) {
			bit = uint64(v[at>>3]>>(7-at&7)) & 1
		}
		u = u<<1 | bit
	}
	if o.signed && o.bits < 64 && u&(1<<(o.bits-1)) != 0 {
		u |= math.MaxUint64 << o.bits // the sign, to every higher bit
	}
	return int64(u)
}

// setBits writes the low bits bits of u at offset, most significant first.
func setBits(v []byte, offset uint64, bits uint, u uint64) {
	for i := uint64(0); i < uint64(bits); i++ {
		at := offset + i
		mask := byte(1) << (7 - at&7)
		if u>>(uint64(bits)-1-i)&1 != 0 {
			v[at>>3] |= mask
		} else {
			v[at>>3] &^= mask
		}
	}
}

// bitfieldAdd is value plus incr in o's type, and whether that overflows:
// wrapped, saturated or left for FAIL as o's OVERFLOW says
// (checkSignedBitfieldOverflow, checkUnsignedBitfieldOverflow).
func bitfieldAdd(value, incr int64, o bitfieldOp) (int64, bool) {
	wrap := func() int64 {
		sum := uint64(value) + uint64(incr)
		if o.bits == 64 {
			return int64(sum)
		}
		mask := uint64(math.MaxUint64) << o.bits
		if o.signed && sum&(1<<(o.bits-1)) != 0 {
			return int64(sum | mask)
		}
		return int64(sum &^ mask)
	}
	over := func(limit int64) (int64, bool) {
		if o.overflow == bfSat {
			return limit, true
		}
		return wrap(), true
	}
	if !o.signed {
		u := uint64(value)
		hi := uint64(1)<<o.bits - 1
		maxIncr, minIncr := int64(hi-u), -int64(u)
		switch {
		case u > hi || incr > 0 && incr > maxIncr:
			return over(int64(hi))
		case incr < 0 && incr < minIncr:
			return over(0)
		}
		return int64(u + uint64(incr)), false
	}
	hi := int64(math.MaxInt64)
	if o.bits < 64 {
		hi = 1<<(o.bits-1) - 1
	}
	lo := -hi - 1
	maxIncr, minIncr := int64(uint64(hi)-uint64(value)), lo-value
	switch {
	case value > hi || o.bits != 64 && incr > maxIncr || value >= 0 && incr > 0 && incr > maxIncr:
		return over(hi)
	case value < lo || o.bits != 64 && incr < minIncr || value < 0 && incr < 0 && incr < minIncr:
		return over(lo)
	}
	return value + incr, false
}
