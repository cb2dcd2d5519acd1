package miniredis

import (
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// TestLazyExpiry runs the clock the engine's way (ClockTTL, RedisExpiry,
// SetTime): with the active cycle off, a move of the clock keeps expired
// keys, counted by DBSIZE, until a command names them, and a queued
// command names them at EXEC; turned back on, the cycle takes the rest.
// (The same against redis-server on the wall clock: TestExpireLikeRedis
// in transactional/integration.)
func TestLazyExpiry(t *testing.T) {
	s, c := runWithClient(t)
	s.ClockTTL(true)
	s.RedisExpiry(true)
	t0 := time.Unix(1700000000, 0)
	s.SetTime(t0)
	mustOK(t, c, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	for _, k := range []string{"a", "b", "c", "d"} {
		mustOK(t, c, "SET", k, "v", "PX", "10")
	}
	mustOK(t, c, "SET", "keep", "v")
	tx, err := proto.Dial(s.Addr())
	ok(t, err)
	defer tx.Close()
	mustOK(t, tx, "MULTI")
	mustDo(t, tx, "GET", "d", proto.Inline("QUEUED"))
	s.SetTime(t0.Add(10 * time.Millisecond))
	mustDo(t, c, "DBSIZE", proto.Int(5))
	mustDo(t, c, "PTTL", "a", proto.Int(0)) // at its deadline, still there
	s.SetTime(t0.Add(11 * time.Millisecond))
	mustDo(t, c, "DBSIZE", proto.Int(5))
	mustDo(t, c, "KEYS", "*", proto.Strings("keep"))
	mustDo(t, c, "DBSIZE", proto.Int(5))
	mustDo(t, tx, "EXEC", proto.Array(proto.Nil))
	mustDo(t, c, "DBSIZE", proto.Int(4))
	mustDo(t, c, "GET", "a", proto.Nil)
	mustDo(t, c, "DBSIZE", proto.Int(3))
	equals(t, true, s.Exists("b")) // the direct API looks nothing up
	mustOK(t, c, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	mustDo(t, c, "DBSIZE", proto.Int(1))

	mustOK(t, c, "SET", "e", "v", "PX", "10")
	s.SetTime(t0.Add(30 * time.Millisecond))
	mustDo(t, c, "DBSIZE", proto.Int(1))
}
