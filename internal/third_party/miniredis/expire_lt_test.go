package miniredis

import (
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// TestExpireLTEqual: LT sets an expiry only when it is less than the
// current one; an equal one answers 0, as Redis's expireGenericCommand
// (when >= current_expire). With the clock set, the two are equal here.
func TestExpireLTEqual(t *testing.T) {
	s, c := runWithClient(t)
	s.SetTime(time.Unix(1700000000, 0))
	mustDo(t, c, "SET", "k", "v", "EX", "10", proto.Inline("OK"))
	mustDo(t, c, "EXPIRE", "k", "10", "LT", proto.Int(0))
	mustDo(t, c, "PEXPIRE", "k", "10000", "LT", proto.Int(0))
	mustDo(t, c, "PEXPIRE", "k", "9999", "LT", proto.Int(1))
	mustDo(t, c, "EXPIRE", "k", "10", "GT", proto.Int(1))
}
