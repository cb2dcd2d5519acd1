package miniredis

// scriptgen: BITCOUNT, BITPOS, BITFIELD, BITFIELD_RO and LCS against
// redis-server 7.0.15.

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestBitRangesLikeRedis sends the same random BITCOUNT and BITPOS lines,
// ranges in bits and bytes, negative and out of range, to redis-server and
// to miniredis, over strings of 0 to 4 bytes of few set bits and of few
// clear ones, and compares every reply.
func TestBitRangesLikeRedis(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	values := []string{"", "\x00", "\xff", "\x00\xff", "\xff\x00\xff", "\x80\x01", "\xfe\xff\x7f", "a", "foobar"}
	for range 20 {
		b := make([]byte, r.Intn(5))
		for i := range b {
			b[i] = byte(r.Intn(256))
			if r.Intn(3) == 0 {
				b[i] = 0xff ^ byte(1<<r.Intn(8))
			}
		}
		values = append(values, string(b))
	}
	index := func() string { return strconv.Itoa(r.Intn(50) - 25) }
	var lines [][]any
	for i := range 3000 {
		key := "k" + strconv.Itoa(i%len(values))
		line := []any{"bitcount", key}
		if r.Intn(2) == 0 {
			line = []any{"bitpos", key, strconv.Itoa(r.Intn(2))}
		}
		for n := r.Intn(4); n > 0; n-- {
			line = append(line, index())
		}
		if r.Intn(2) == 0 {
			line = append(line, []string{"BIT", "byte", "bit"}[r.Intn(3)])
		}
		lines = append(lines, line)
	}
	// Redis's order of checks: the bit, the key, the range, the unit.
	lines = append(lines,
		[]any{"bitcount", "nokey", "x", "y"}, []any{"bitcount", "nokey", "1"}, []any{"bitcount", "k1", "1"},
		[]any{"bitcount", "h", "x", "1"}, []any{"bitcount", "k1", "-1", "-2", "foo"}, []any{"bitcount", "k1", "0", "1", "foo"},
		[]any{"bitcount", "k1", "+1", "2"}, []any{"bitcount", "k1", "0", "1", "bit", "x"},
		[]any{"bitpos", "nokey", "2"}, []any{"bitpos", "nokey", "x"}, []any{"bitpos", "nokey", "1", "x", "y", "z"},
		[]any{"bitpos", "h", "1", "x"}, []any{"bitpos", "k1", "1", "x", "y", "foo"}, []any{"bitpos", "k1", "1", "0", "y", "foo"},
		[]any{"bitpos", "k1", "1", "0", "y", "bit"}, []any{"bitpos", "k1", "0", "0", "1", "bit", "x"}, []any{"bitpos", "k1", "01"},
	)
	compareLines(t, lines, func(c *redis.Client) {
		ctx := context.Background()
		for i, v := range values {
			c.Set(ctx, "k"+strconv.Itoa(i), v, 0)
		}
		c.HSet(ctx, "h", "f", "v")
	})
}

// TestBitfieldLikeRedis sends the same random BITFIELD lines (types of 1 to
// 64 bits, signed and not, offsets in bits and in #widths, SET, INCRBY and
// GET under each OVERFLOW) to redis-server and to miniredis, then the
// keys' values, and compares every reply.
func TestBitfieldLikeRedis(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	types := []string{"u1", "i1", "u2", "i2", "u7", "i8", "u8", "i16", "u31", "i32", "i63", "u63", "i64"}
	badTypes := []string{"u64", "i0", "x8", "I8", "i65", "u"}
	values := []string{"0", "1", "-1", "2", "-2", "127", "128", "-128", "-129", "255", "256", "65535", "2147483647", "-2147483648",
		"9223372036854775807", "-9223372036854775808", "4611686018427387904", "-4611686018427387905"}
	badValues := []string{"x", "+1", "01"}
	offsets := []string{"0", "1", "7", "8", "13", "64", "100", "#0", "#1", "#3"}
	badOffsets := []string{"-1", "#-1", "x", "#", "4294967296"}
	// pick draws from good, and one time in twenty from bad.
	pick := func(good, bad []string) string {
		if r.Intn(20) == 0 {
			return bad[r.Intn(len(bad))]
		}
		return good[r.Intn(len(good))]
	}
	var lines [][]any
	for i := range 2000 {
		cmd := "bitfield"
		if i%10 == 0 {
			cmd = "bitfield_ro"
		}
		line := []any{cmd, "k" + strconv.Itoa(r.Intn(3))}
		for n := 1 + r.Intn(4); n > 0; n-- {
			switch r.Intn(7) {
			case 0:
				line = append(line, "OVERFLOW", pick([]string{"WRAP", "sat", "FAIL"}, []string{"foo"}))
			case 1, 2:
				line = append(line, "GET", pick(types, badTypes), pick(offsets, badOffsets))
			case 3, 4:
				line = append(line, "SET", pick(types, badTypes), pick(offsets, badOffsets), pick(values, badValues))
			case 5:
				line = append(line, "INCRBY", pick(types, badTypes), pick(offsets, badOffsets), pick(values, badValues))
			default:
				if r.Intn(4) == 0 {
					line = append(line, []string{"GET", "SET", "foo"}[r.Intn(3)])
				}
			}
		}
		lines = append(lines, line)
		if i%50 == 0 {
			lines = append(lines, []any{"get", "k0"}, []any{"get", "k1"}, []any{"get", "k2"}, []any{"del", "k" + strconv.Itoa(r.Intn(3))})
		}
	}
	lines = append(lines, []any{"bitfield", "h", "GET", "u8", "0"}, []any{"bitfield_ro", "h", "SET", "u8", "0", "1"},
		[]any{"bitfield", "h", "foo"}, []any{"bitfield", "h"}, []any{"bitfield", "nosuch"}, []any{"bitfield", "nosuch", "GET", "u8", "0"},
		[]any{"exists", "nosuch"}, []any{"bitfield", "nosuch", "OVERFLOW", "FAIL", "INCRBY", "u2", "100", "7"}, []any{"get", "nosuch"})
	compareLines(t, lines, func(c *redis.Client) { c.HSet(context.Background(), "h", "f", "v") })
}

// TestLcsLikeRedis compares LCS's replies, in every form, over random
// strings of a small alphabet.
func TestLcsLikeRedis(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	word := func() string {
		b := make([]byte, r.Intn(12))
		for i := range b {
			b[i] = "abcd"[r.Intn(4)]
		}
		return string(b)
	}
	var lines [][]any
	for range 300 {
		lines = append(lines, []any{"mset", "a", word(), "b", word()})
		line := []any{"lcs", "a", "b"}
		for n := r.Intn(3); n > 0; n-- {
			line = append(line, [][]any{{"LEN"}, {"idx"}, {"WITHMATCHLEN"}, {"MINMATCHLEN", strconv.Itoa(r.Intn(4) - 1)}, {"MINMATCHLEN", "x"}, {"foo"}}[r.Intn(6)]...)
		}
		lines = append(lines, line)
	}
	lines = append(lines, []any{"lcs", "a", "nosuch"}, []any{"lcs", "h", "a", "foo"}, []any{"lcs", "a", "b", "LEN", "IDX"}, []any{"lcs", "a", "b", "MINMATCHLEN"})
	compareLines(t, lines, func(c *redis.Client) { c.HSet(context.Background(), "h", "f", "v") })
}

// compareLines sends lines to a fresh redis-server and a fresh miniredis,
// after setup on each, in RESP2 and then RESP3, and reports the first ten
// replies that differ.
func compareLines(t *testing.T, lines [][]any, setup func(*redis.Client)) {
	t.Helper()
	real, ours := engines(t)
	ctx := context.Background()
	var replies [2][]string
	for e, c := range []*redis.Client{real, ours} {
		setup(c)
		for _, line := range lines {
			v, err := c.Do(ctx, line...).Result()
			replies[e] = append(replies[e], fmt.Sprint(v, err))
		}
	}
	bad := 0
	for i, line := range lines {
		if replies[0][i] != replies[1][i] {
			if bad++; bad <= 10 {
				t.Errorf("%q: redis-server %s, ours %s", line, replies[0][i], replies[1][i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines differ", bad, len(lines))
	}
}
