// scriptgen: DEBUG, which upstream does not serve: the subcommands Redis's
// test suite calls (debug.c of Redis 7.0), RELOAD as a round trip of every
// key through the DUMP payload codec (transactional/rdb) and, through
// ReloadHooks, of what the engine keeps beside the keyspace.

package miniredis

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// admin holds DEBUG's switches and what DEBUG RELOAD saved.
type admin struct {
	disableDenyScripts bool
	saved              []savedKey // the last "RDB" DEBUG RELOAD saved
	savedExtra         any        // ReloadHooks.Save's part of it
	hooks              ReloadHooks
	users              map[string]*aclUser // ACL SETUSER's users, default aside (cmd_acl.go)
}

type savedKey struct {
	db      int
	key     string
	payload []byte
	at      time.Time
	expires bool
}

// ReloadHooks carry what the engine keeps beside the keyspace (function
// libraries) through DEBUG RELOAD: Save snapshots it with the keyspace,
// Load puts the snapshot back (flush: the engine's part was emptied first;
// merge: an entry that exists is replaced instead of failing the load).
// Both run under the Miniredis lock.
type ReloadHooks struct {
	Save  func() any
	Flush func()
	Load  func(saved any, merge bool) error
}

// SetReloadHooks installs the engine's part of DEBUG RELOAD.
func (m *Miniredis) SetReloadHooks(h ReloadHooks) {
	m.Lock()
	defer m.Unlock()
	m.admin.hooks = h
}

// DisableDenyScripts says whether DEBUG set-disable-deny-scripts lets
// scripts call commands flagged noscript; the caller holds the lock.
func (m *Miniredis) DisableDenyScripts() bool { return m.admin.disableDenyScripts }

func commandsDebug(m *Miniredis) {
	m.srv.Register("DEBUG", m.cmdDebug)
}

const msgDebugProtocol = "ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false"

// DEBUG
func (m *Miniredis) cmdDebug(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	sub := strings.ToLower(args[0])
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		switch {
		case sub == "set-disable-deny-scripts" && len(args) == 2:
			m.admin.disableDenyScripts = atoi(args[1]) != 0
			c.WriteOK()
		case sub == "set-active-expire" && len(args) == 2:
			m.SetActiveExpire(atoi(args[1]) != 0)
			c.WriteOK()
		case (sub == "set-skip-checksum-validation" || sub == "pause-cron" ||
			sub == "quicklist-packed-threshold") && len(args) == 2,
			(sub == "change-repl-id" || sub == "loadaof") && len(args) == 1:
			// Switches of parts the engine does not have: Redis's answer.
			c.WriteOK()
		case sub == "sleep" && len(args) == 2:
			// Redis sleeps with the whole server stopped; so do we, holding
			// the lock.
			d, _ := strconv.ParseFloat(args[1], 64)
			time.Sleep(time.Duration(d * float64(time.Second)))
			c.WriteOK()
		case sub == "object" && len(args) == 2:
			m.debugObject(c, ctx, args[1])
		case sub == "protocol" && len(args) == 2:
			debugProtocol(c, strings.ToLower(args[1]))
		case sub == "digest-value":
			db := m.db(ctx.selectedDB)
			c.WriteLen(len(args) - 1)
			for _, k := range args[1:] {
				c.WriteInline(digest(db, []string{k}))
			}
		case sub == "digest" && len(args) == 1:
			db := m.db(ctx.selectedDB)
			c.WriteInline(digest(db, db.allKeys()))
		case sub == "reload":
			m.debugReload(c, args[1:])
		default:
			c.WriteError(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try DEBUG HELP.", args[0]))
		}
	})
}

// atoi is C's atoi: the leading integer, 0 when there is none.
func atoi(s string) int {
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || end == 0 && s[end] == '-') {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

func (m *Miniredis) debugObject(c *server.Peer, ctx *connCtx, key string) {
	db := m.db(ctx.selectedDB)
	// scriptgen: Redis finds the key in the dict, expired or not (debug.c).
	typ, ok := db.keys[key]
	if !ok {
		c.WriteError(msgKeyNotFound)
		return
	}
	v, _ := db.rdbValue(key, typ)
	c.WriteInline(fmt.Sprintf("Value at:0x7f0000000000 refcount:1 encoding:%s serializedlength:%d lru:0 lru_seconds_idle:0",
		m.encoding(db, key), len(rdb.Dump(v))))
}

// debugProtocol writes debug.c's sample of each reply type, in RESP2 the
// way Redis downgrades it.
func debugProtocol(c *server.Peer, name string) {
	resp3 := c.Resp3
	switch name {
	case "string":
		c.WriteBulk("Hello World")
	case "integer":
		c.WriteInt(12345)
	case "double":
		c.WriteFloat(3.141)
	case "bignum":
		if resp3 {
			c.WriteRaw("(1234567999999999999999999999999999999\r\n")
		} else {
			c.WriteBulk("1234567999999999999999999999999999999")
		}
	case "null":
		c.WriteNull()
	case "array", "set":
		if name == "set" {
			c.WriteSetLen(3)
		} else {
			c.WriteLen(3)
		}
		for j := 0; j < 3; j++ {
			c.WriteInt(j)
		}
	case "map":
		c.WriteMapLen(3)
		for j := 0; j < 3; j++ {
			c.WriteInt(j)
			writeBool(c, j == 1)
		}
	case "attrib":
		if resp3 {
			// One write: a script's reader takes the attribute and the
			// reply it annotates together.
			c.WriteRaw("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n" +
				"$39\r\nSome real reply following the attribute\r\n")
			return
		}
		c.WriteBulk("Some real reply following the attribute")
	case "push":
		if !resp3 {
			c.WriteError("ERR RESP2 is not supported by this command")
			return
		}
		c.WritePushLen(2)
		c.WriteBulk("server-cpu-usage")
		c.WriteInt(42)
		c.WriteBulk("Some real reply following the push reply")
	case "true", "false":
		writeBool(c, name == "true")
	case "verbatim":
		if resp3 {
			c.WriteRaw("=29\r\ntxt:This is a verbatim\nstring\r\n")
		} else {
			c.WriteBulk("This is a verbatim\nstring")
		}
	default:
		c.WriteError(msgDebugProtocol)
	}
}

func writeBool(c *server.Peer, b bool) {
	switch {
	case c.Resp3 && b:
		c.WriteRaw("#t\r\n")
	case c.Resp3:
		c.WriteRaw("#f\r\n")
	case b:
		c.WriteInt(1)
	default:
		c.WriteInt(0)
	}
}

// debugReload is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save (unless
// NOSAVE), empty (unless NOFLUSH), load; a key that exists fails the load
// unless MERGE, as rdbLoad does.
func (m *Miniredis) debugReload(c *server.Peer, opts []string) {
	flush, save, merge := true, true, false
	for _, o := range opts {
		switch strings.ToLower(o) {
		case "merge":
			merge = true
		case "noflush":
			flush = false
		case "nosave":
			save = false
		default:
			c.WriteError("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	h := m.admin.hooks
	if save {
		m.admin.saved = m.saveKeys()
		m.admin.savedExtra = nil
		if h.Save != nil {
			m.admin.savedExtra = h.Save()
		}
	}
	if flush {
		for _, db := range m.dbs {
			if db != nil {
				db.flush()
			}
		}
		if h.Flush != nil {
			h.Flush()
		}
	}
	if err := m.loadKeys(m.admin.saved, merge); err != nil {
		c.WriteError("ERR Error trying to load the RDB dump")
		return
	}
	if h.Load != nil {
		if err := h.Load(m.admin.savedExtra, merge); err != nil {
			c.WriteError("ERR Error trying to load the RDB dump")
			return
		}
	}
	c.WriteOK()
}

func (m *Miniredis) saveKeys() []savedKey {
	var out []savedKey
	for id, db := range m.dbs {
		if db == nil {
			continue
		}
		for _, k := range db.allKeys() {
			v, err := db.toRDB(k)
			if err != nil || v == nil {
				continue
			}
			s := db.Snapshot(k)
			out = append(out, savedKey{db: id, key: k, payload: rdb.Dump(v), at: s.at, expires: s.expires})
		}
	}
	return out
}

func (m *Miniredis) loadKeys(saved []savedKey, merge bool) error {
	for _, sk := range saved {
		db := m.DBLocked(sk.db)
		if !merge && db.LiveType(sk.key) != "" {
			return fmt.Errorf("duplicate key %q", sk.key)
		}
	}
	for _, sk := range saved {
		v, err := rdb.Restore(sk.payload)
		if err != nil {
			return err
		}
		s, err := m.fromRDB(v)
		if err != nil {
			return err
		}
		s.at, s.expires = sk.at, sk.expires
		m.DBLocked(sk.db).RestoreSnapshot(sk.key, s)
	}
	return nil
}

// digest stands for DEBUG DIGEST's: a hash of the keys' names and values
// (their DUMP payloads, a sorted set's members in order), the same for
// the same content, and Redis's forty zeros when no key exists. Tests
// compare digests with each other; the bytes are not Redis's.
func digest(db *RedisDB, keys []string) string {
	h := sha1.New()
	n := 0
	for _, k := range keys {
		v, err := db.toRDB(k)
		if err != nil || v == nil {
			continue
		}
		if z, ok := v.(rdb.ZSet); ok {
			sort.Slice(z, func(i, j int) bool { return z[i].Name < z[j].Name })
		}
		if h, ok := v.(rdb.Hash); ok {
			// Redis's digest of a hash is the same in any order.
			sort.Slice(h, func(i, j int) bool { return h[i].Name < h[j].Name })
		}
		if len(keys) > 1 {
			h.Write([]byte(k))
		}
		h.Write(rdb.Dump(v))
		n++
	}
	if n == 0 {
		return strings.Repeat("0", 40)
	}
	return hex.EncodeToString(h.Sum(nil))
}
