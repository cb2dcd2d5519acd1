package miniredis

// scriptgen: BITCOUNT and BITPOS against redis-server 7.0.15.

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
	real, ours := engines(t)
	ctx := context.Background()
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
	var replies [2][]string
	for e, c := range []*redis.Client{real, ours} {
		for i, v := range values {
			c.Set(ctx, "k"+strconv.Itoa(i), v, 0)
		}
		c.HSet(ctx, "h", "f", "v")
		for _, line := range lines {
			v, err := c.Do(ctx, line...).Result()
			replies[e] = append(replies[e], fmt.Sprint(v, err))
		}
	}
	bad := 0
	for i, line := range lines {
		if replies[0][i] != replies[1][i] {
			if bad++; bad <= 10 {
				k, _ := strconv.Atoi(fmt.Sprint(line[1])[1:])
				t.Errorf("%v on %q: redis-server %s, ours %s", line, values[k%len(values)], replies[0][i], replies[1][i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines differ", bad, len(lines))
	}
}
