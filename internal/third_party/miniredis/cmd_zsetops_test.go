package miniredis

import (
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// The replies below are redis-server 7.0.15's (transactional/integration's
// types/… cases compare them with a running one).

func zsetOpsSetup(t *testing.T, c *proto.Client) {
	t.Helper()
	mustDo(t, c, "ZADD", "a", "1", "x", "2", "y", "3", "z", proto.Int(3))
	mustDo(t, c, "ZADD", "b", "1", "y", proto.Int(1))
	mustDo(t, c, "SADD", "s", "z", proto.Int(1))
	mustDo(t, c, "SET", "str", "v", proto.Inline("OK"))
}

func TestZdiff(t *testing.T) {
	_, c := runWithClient(t)
	zsetOpsSetup(t, c)
	mustDo(t, c, "ZDIFF", "2", "a", "b", "WITHSCORES", proto.Strings("x", "1", "z", "3"))
	mustDo(t, c, "ZDIFF", "3", "a", "b", "s", proto.Strings("x"))
	mustDo(t, c, "ZDIFF", "1", "none", proto.Strings())
	mustDo(t, c, "ZDIFF", "2", "a", "b", "WITHSCORES", "x", proto.Error(msgSyntaxError))
	mustDo(t, c, "ZDIFF", "0", "a", proto.Error("ERR at least 1 input key is needed for 'zdiff' command"))
	mustDo(t, c, "ZDIFF", "3", "a", "b", proto.Error(msgSyntaxError))
	mustDo(t, c, "ZDIFF", "2", "a", "str", proto.Error(msgWrongType))

	mustDo(t, c, "ZDIFFSTORE", "d", "2", "a", "b", proto.Int(2))
	mustDo(t, c, "ZRANGE", "d", "0", "-1", "WITHSCORES", proto.Strings("x", "1", "z", "3"))
	mustDo(t, c, "ZDIFFSTORE", "d", "2", "a", "a", proto.Int(0))
	mustDo(t, c, "EXISTS", "d", proto.Int(0))
	mustDo(t, c, "ZDIFFSTORE", "d", "2", "a", "b", "WITHSCORES", proto.Error(msgSyntaxError))
	mustDo(t, c, "ZDIFFSTORE", "d", "2", "str", "b", proto.Error(msgWrongType))
}

func TestZintercard(t *testing.T) {
	_, c := runWithClient(t)
	zsetOpsSetup(t, c)
	mustDo(t, c, "ZINTERCARD", "2", "a", "b", proto.Int(1))
	mustDo(t, c, "ZINTERCARD", "2", "a", "s", proto.Int(1))
	mustDo(t, c, "ZINTERCARD", "2", "a", "none", proto.Int(0))
	mustDo(t, c, "ZINTERCARD", "1", "a", "LIMIT", "2", proto.Int(2))
	mustDo(t, c, "ZINTERCARD", "1", "a", "limit", "0", proto.Int(3))
	mustDo(t, c, "ZINTERCARD", "1", "a", "LIMIT", "-1", proto.Error("ERR LIMIT can't be negative"))
	mustDo(t, c, "ZINTERCARD", "1", "a", "LIMIT", "x", proto.Error("ERR LIMIT can't be negative"))
	mustDo(t, c, "ZINTERCARD", "1", "a", "LIMIT", proto.Error(msgSyntaxError))
	mustDo(t, c, "ZINTERCARD", "2", "a", "str", "LIMIT", "x", proto.Error(msgWrongType))
	mustDo(t, c, "ZINTERCARD", "0", "a", proto.Error("ERR at least 1 input key is needed for 'zintercard' command"))
}

// TestZaddIncrGtLt: GT and LT compare the incremented score, and a score
// they keep answers nil (Redis's suite, type/zset, "ZADD INCR LT/GT
// replies with nill if score not updated").
func TestZaddIncrGtLt(t *testing.T) {
	_, c := runWithClient(t)
	zsetOpsSetup(t, c)
	mustNil(t, c, "ZADD", "a", "LT", "INCR", "1", "x")
	mustNil(t, c, "ZADD", "a", "GT", "INCR", "-1", "x")
	mustDo(t, c, "ZADD", "a", "GT", "INCR", "1", "x", proto.String("2"))
	mustDo(t, c, "ZADD", "a", "LT", "INCR", "1", "new", proto.String("1"))
	mustDo(t, c, "ZADD", "inf", "+inf", "m", proto.Int(1))
	mustNil(t, c, "ZADD", "inf", "LT", "INCR", "1", "m")
	mustNil(t, c, "ZADD", "inf", "GT", "INCR", "1", "m")
}

// TestZunionZinterNoNaN: sums of opposite infinities and infinities
// weighted 0 are 0, as in Redis (its suite, type/zset, "ZUNIONSTORE with
// +inf/-inf scores" and "… should not create NaN in scores").
func TestZunionZinterNoNaN(t *testing.T) {
	_, c := runWithClient(t)
	mustDo(t, c, "ZADD", "pinf", "+inf", "m", proto.Int(1))
	mustDo(t, c, "ZADD", "ninf", "-inf", "m", proto.Int(1))
	mustDo(t, c, "ZUNIONSTORE", "u", "2", "pinf", "ninf", proto.Int(1))
	mustDo(t, c, "ZSCORE", "u", "m", proto.String("0"))
	mustDo(t, c, "ZUNIONSTORE", "u", "1", "ninf", "WEIGHTS", "0", proto.Int(1))
	mustDo(t, c, "ZSCORE", "u", "m", proto.String("0"))
	mustDo(t, c, "ZINTERSTORE", "u", "2", "pinf", "ninf", proto.Int(1))
	mustDo(t, c, "ZSCORE", "u", "m", proto.String("0"))
	mustDo(t, c, "ZINTER", "2", "pinf", "ninf", "WEIGHTS", "1", "0", "WITHSCORES", proto.Strings("m", "0"))
}
