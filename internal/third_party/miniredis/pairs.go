package miniredis

import "github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"

// scriptgen: Redis 7 answers a RESP3 connection's ZRANGE … WITHSCORES (and
// ZRANGEBYSCORE's, ZUNION's, ZINTER's, ZRANDMEMBER's, ZPOPMIN's and
// ZPOPMAX's with a count) with an array of [member, score] pairs, where
// RESP2 gets one flat array; upstream sent the flat array to both. The
// engine used to regroup the RESP it read back.

// pairsLen starts a reply of n pairs: n arrays of two when grouped, 2n
// elements otherwise.
func pairsLen(c *server.Peer, n int, grouped bool) {
	if grouped {
		c.WriteLen(n)
		return
	}
	c.WriteLen(2 * n)
}

// pair starts one pair of a grouped reply.
func pair(c *server.Peer, grouped bool) {
	if grouped {
		c.WriteLen(2)
	}
}
