// scriptgen: a sorted set's scores in replies as Redis 7.0 writes them.

package miniredis

import (
	"math"
	"strconv"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// writeScore answers a score as Redis 7.0.15's addReplyDouble does
// (networking.c): "%.17g", with inf and -inf spelled so, a bulk string in
// RESP2 and a double in RESP3. Upstream wrote the shortest form that
// reads back the same, as Redis 7.2 does, so that 0.1 was "0.1" where
// 7.0.15 says "0.10000000000000001", and ZINCRBY's 2^63
// "9.223372036854776e+18" where it says "9.2233720368547758e+18".
// Both read back as the same double.
func writeScore(c *server.Peer, f float64) {
	// A listpack, which holds most sorted sets, stores -0 as 0: ZADD z -0
	// m, then ZSCORE z m, is "0" on redis-server 7.0.15.
	if f == 0 {
		f = 0
	}
	writeDouble(c, f)
}

// writeDouble is writeScore of a score just computed, as ZINCRBY answers
// it: -0 stays "-0".
func writeDouble(c *server.Peer, f float64) {
	s := formatScore(f)
	if c.Resp3 {
		c.WriteRaw("," + s + "\r\n")
		return
	}
	c.WriteBulk(s)
}

// formatScore is C's "%.17g" of f (Go's 'g' with 17 digits is the same
// rule: exponent form below 1e-4 and from 1e17, no trailing zeros), and
// Redis's "inf" and "-inf".
func formatScore(f float64) string {
	if math.IsInf(f, 0) {
		if f > 0 {
			return "inf"
		}
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}
