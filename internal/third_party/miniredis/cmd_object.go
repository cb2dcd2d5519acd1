package miniredis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// commandsObject handles all object operations.
func commandsObject(m *Miniredis) {
	m.srv.Register("OBJECT", m.cmdObject)
}

// OBJECT
func (m *Miniredis) cmdObject(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}

	switch sub := strings.ToLower(args[0]); sub {
	case "idletime":
		m.cmdObjectIdletime(c, args[1:])
	case "encoding", "freq", "refcount":
		// scriptgen: upstream served IDLETIME only.
		m.cmdObjectKey(c, sub, args[1:])
	case "help":
		if len(args) != 1 {
			setDirty(c)
			c.WriteError(errWrongNumber("object|help"))
			return
		}
		withTx(m, c, func(c *server.Peer, ctx *connCtx) { writeHelp(c, "OBJECT", objectHelp) })
	default:
		setDirty(c)
		c.WriteError(fmt.Sprintf(msgFObjectUsage, args[0]))
	}
}

// OBJECT IDLETIME
func (m *Miniredis) cmdObjectIdletime(c *server.Peer, args []string) {
	if len(args) != 1 {
		setDirty(c)
		c.WriteError(errWrongNumber("object|idletime"))
		return
	}
	key := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		t, ok := db.lru[key]
		if !ok {
			c.WriteNull()
			return
		}

		c.WriteInt(int(db.master.effectiveNow().Sub(t).Seconds()))
	})
}

// scriptgen: OBJECT ENCODING, FREQ, REFCOUNT and HELP, as Redis 7.0.

var objectHelp = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

const msgObjectNoLFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."

func (m *Miniredis) cmdObjectKey(c *server.Peer, sub string, args []string) {
	if len(args) != 1 {
		setDirty(c)
		c.WriteError(errWrongNumber("object|" + sub))
		return
	}
	key := args[0]
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		if db.LiveType(key) == "" {
			c.WriteNull()
			return
		}
		switch sub {
		case "encoding":
			c.WriteBulk(m.encoding(db, key))
		case "freq":
			if !strings.Contains(m.ConfigString("maxmemory-policy"), "lfu") {
				c.WriteError(msgObjectNoLFU)
				return
			}
			c.WriteInt(0)
		case "refcount":
			// Redis shares the integers 0..9999 (OBJ_SHARED_INTEGERS), whose
			// count is OBJ_SHARED_REFCOUNT.
			if n, err := strconv.ParseInt(db.stringKeys[key], 10, 64); err == nil && db.t(key) == keyTypeString &&
				isRedisInteger(db.stringKeys[key]) && n >= 0 && n < 10000 {
				c.WriteInt(2147483647)
				return
			}
			c.WriteInt(1)
		}
	})
}

// encoding is the encoding Redis 7.0 would hold key's value in, from its
// thresholds: an integer string is "int", a string of up to 44 bytes
// "embstr"; a hash or sorted set is a "listpack" while within its
// *-max-listpack-entries and -value; a set of integers is an "intset"
// within set-max-intset-entries. Redis never converts back: a set or
// sorted set that grew past a threshold and shrank again reports the small
// encoding here; a hash is followed as it converts (hashorder.go).
func (m *Miniredis) encoding(db *RedisDB, key string) string {
	small := func(n int, entries string) bool { return int64(n) <= m.ConfigInt(entries) }
	short := func(s, value string) bool { return int64(len(s)) <= m.ConfigInt(value) }
	switch db.t(key) {
	case keyTypeString:
		s := db.stringKeys[key]
		switch {
		case len(s) <= 20 && isRedisInteger(s):
			return "int"
		case len(s) <= 44:
			return "embstr"
		}
		return "raw"
	case keyTypeList:
		return "quicklist"
	case keyTypeSet:
		set := db.setKeys[key]
		if !small(len(set), "set-max-intset-entries") {
			return "hashtable"
		}
		for member := range set {
			if !isRedisInteger(member) {
				return "hashtable"
			}
		}
		return "intset"
	case keyTypeHash:
		// scriptgen: a hash converts as Redis converts it (hashorder.go).
		if db.isListpackHash(key) {
			return "listpack"
		}
		return "hashtable"
	case keyTypeSortedSet:
		z := db.sortedsetKeys[key]
		if !small(len(z), "zset-max-listpack-entries") {
			return "skiplist"
		}
		for member := range z {
			if !short(member, "zset-max-listpack-value") {
				return "skiplist"
			}
		}
		return "listpack"
	case keyTypeStream:
		return "stream"
	}
	return "raw"
}
