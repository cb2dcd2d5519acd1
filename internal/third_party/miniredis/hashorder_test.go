package miniredis

import (
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// TestHashOrderSnapshot: the engine's journal puts a key back from a
// snapshot when a transactional script fails; a listpack hash comes back
// in its order, and a hash table stays one. (The orders themselves are
// held to redis-server by TestOrderLikeRedis in transactional/integration.)
func TestHashOrderSnapshot(t *testing.T) {
	s, c := runWithClient(t)
	mustDo(t, c, "HSET", "h", "z", "1", "a", "2", "m", "3", proto.Int(3))
	mustOK(t, c, "CONFIG", "SET", "hash-max-listpack-entries", "2")
	mustDo(t, c, "HSET", "t", "z", "1", "a", "2", "m", "3", proto.Int(3))
	mustOK(t, c, "CONFIG", "SET", "hash-max-listpack-entries", "128")

	s.Lock()
	db := s.DBLocked(0)
	snapH, snapT := db.Snapshot("h"), db.Snapshot("t")
	s.Unlock()
	mustDo(t, c, "HDEL", "h", "z", proto.Int(1))
	mustDo(t, c, "HSET", "h", "z", "4", proto.Int(1))
	mustDo(t, c, "HKEYS", "h", proto.Strings("a", "m", "z"))
	mustDo(t, c, "DEL", "t", proto.Int(1))
	s.Lock()
	db.RestoreSnapshot("h", snapH)
	db.RestoreSnapshot("t", snapT)
	s.Unlock()

	mustDo(t, c, "HKEYS", "h", proto.Strings("z", "a", "m"))
	mustDo(t, c, "OBJECT", "ENCODING", "h", proto.String("listpack"))
	mustDo(t, c, "HKEYS", "t", proto.Strings("a", "m", "z"))
	mustDo(t, c, "OBJECT", "ENCODING", "t", proto.String("hashtable"))
}
