// scriptgen: BITCOUNT and BITPOS after Redis 7.0's bitops.c, replacing
// upstream's, which served neither the BIT|BYTE unit of Redis 7.0 nor
// Redis's order of checks (upstream read the range before it looked the
// key up). strict.go's checks in front of them are gone with them.

package miniredis

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// bitRange is a range of a string's bytes, start to end inclusive, with
// the bits outside a BIT range masked at its two edges: first holds the
// bits of the first byte before the range, last those of the last byte
// after it (bitcountCommand's first_byte_neg_mask and last_byte_neg_mask).
type bitRange struct {
	start, end  int64
	first, last byte
}

// newBitRange clamps start and end, counted in bits when bit is set and in
// bytes otherwise, negative from the end, to a string of n bytes, as
// Redis 7.0's BITCOUNT and BITPOS do. The range is empty when start > end.
func newBitRange(start, end, n int64, bit bool) bitRange {
	total := n
	if bit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	r := bitRange{start: start, end: end}
	if bit && start <= end {
		r.first = ^byte(1<<(8-(start&7)) - 1)
		r.last = byte(1<<(7-(end&7)) - 1)
		r.start, r.end = start>>3, end>>3
	}
	return r
}

// bitUnit reads BITCOUNT's and BITPOS's unit: BIT, BYTE, or false for
// anything else (a syntax error).
func bitUnit(s string) (bit, ok bool) {
	switch {
	case strings.EqualFold(s, "bit"):
		return true, true
	case strings.EqualFold(s, "byte"):
		return false, true
	}
	return false, false
}

// parseInt64 reads an integer argument as Redis's string2ll does.
func parseInt64(s string) (int64, bool) {
	if !isRedisInteger(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// bitString is the string at key and true, or false: for a missing key
// with "", for another type after answering WRONGTYPE, with that text.
func bitString(c *server.Peer, db *RedisDB, key string) (string, bool) {
	switch {
	case !db.exists(key):
		return "", false
	case db.t(key) != keyTypeString:
		c.WriteError(msgWrongType)
		return msgWrongType, false
	}
	return db.stringKeys[key], true
}

// BITCOUNT key [start end [BYTE|BIT]]: the key is looked up first (0 when
// missing, WRONGTYPE), then the range is read; two negative indexes in
// the wrong order are 0 before the unit is read.
func (m *Miniredis) cmdBitcount(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		v, found := bitString(c, m.db(ctx.selectedDB), args[0])
		if !found {
			if v == "" {
				c.WriteInt(0)
			}
			return
		}
		r := bitRange{start: 0, end: int64(len(v)) - 1}
		switch len(args) {
		case 1:
		case 3, 4:
			start, ok1 := parseInt64(args[1])
			end, ok2 := parseInt64(args[2])
			if !ok1 || !ok2 {
				c.WriteError(msgInvalidInt)
				return
			}
			if start < 0 && end < 0 && start > end {
				c.WriteInt(0)
				return
			}
			bit := false
			if len(args) == 4 {
				var ok bool
				if bit, ok = bitUnit(args[3]); !ok {
					c.WriteError(msgSyntaxError)
					return
				}
			}
			r = newBitRange(start, end, int64(len(v)), bit)
		default:
			c.WriteError(msgSyntaxError)
			return
		}
		if r.start > r.end {
			c.WriteInt(0)
			return
		}
		n := 0
		for i := r.start; i <= r.end; i++ {
			n += bits.OnesCount8(v[i])
		}
		// The edge bits outside a BIT range were counted: take them off.
		n -= bits.OnesCount8(v[r.start]&r.first) + bits.OnesCount8(v[r.end]&r.last)
		c.WriteInt(n)
	})
}

// BITPOS key bit [start [end [BYTE|BIT]]]: the bit is read first, then
// the key looked up (a missing key is all zeros: 0 for a 0, -1 for a 1),
// then start, the unit and end, in that order.
func (m *Miniredis) cmdBitpos(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		bit, ok := parseInt64(args[1])
		switch {
		case !ok:
			c.WriteError(msgInvalidInt)
			return
		case bit != 0 && bit != 1:
			c.WriteError(msgBitArgument)
			return
		}
		v, found := bitString(c, m.db(ctx.selectedDB), args[0])
		if !found {
			if v == "" {
				c.WriteInt(int(-bit))
			}
			return
		}
		r := bitRange{start: 0, end: int64(len(v)) - 1}
		endGiven := false
		switch len(args) {
		case 2:
		case 3, 4, 5:
			start, ok := parseInt64(args[2])
			if !ok {
				c.WriteError(msgInvalidInt)
				return
			}
			unitBit := false
			if len(args) == 5 {
				if unitBit, ok = bitUnit(args[4]); !ok {
					c.WriteError(msgSyntaxError)
					return
				}
			}
			end := int64(len(v)) - 1
			if unitBit {
				end = int64(len(v))<<3 + 7
			}
			if len(args) >= 4 {
				if end, ok = parseInt64(args[3]); !ok {
					c.WriteError(msgInvalidInt)
					return
				}
				endGiven = true
			}
			r = newBitRange(start, end, int64(len(v)), unitBit)
		default:
			c.WriteError(msgSyntaxError)
			return
		}
		if r.start > r.end {
			c.WriteInt(-1)
			return
		}
		c.WriteInt(int(bitposIn(v, r, bit == 1, endGiven)))
	})
}

// bitposIn is bitposCommand's search of r in v for the first bit set to
// one (or zero): its position in v, or -1. Looking for a zero without an
// end, the string reads as if zeros followed it.
func bitposIn(v string, r bitRange, one, endGiven bool) int64 {
	// The bytes with their edge bits outside the range set to what is not
	// looked for, so they are never found.
	masked := []byte(v[r.start : r.end+1])
	edge := func(i int, mask byte) {
		if one {
			masked[i] &^= mask
		} else {
			masked[i] |= mask
		}
	}
	edge(0, r.first)
	edge(len(masked)-1, r.last)
	pos := firstBit(masked, one)
	if pos == -1 {
		return -1
	}
	if endGiven && !one && pos == int64(len(masked))<<3 {
		return -1 // no zero within an explicit range
	}
	return pos + r.start<<3
}

// firstBit is redisBitpos: the position of the first bit set to one (or
// zero) in b; not found, -1 for a one and the bit after b for a zero.
func firstBit(b []byte, one bool) int64 {
	for i, c := range b {
		if !one {
			c = ^c
		}
		if c != 0 {
			return int64(i)<<3 + int64(bits.LeadingZeros8(c))
		}
	}
	if one {
		return -1
	}
	return int64(len(b)) << 3
}
