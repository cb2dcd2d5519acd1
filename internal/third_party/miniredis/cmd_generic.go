// Commands from https://redis.io/commands#generic

package miniredis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

const (
	// expiretimeReplyNoExpiration is return value for EXPIRETIME and PEXPIRETIME if the key exists but has no associated expiration time
	expiretimeReplyNoExpiration = -1
	// expiretimeReplyMissingKey is return value for EXPIRETIME and PEXPIRETIME if the key does not exist
	expiretimeReplyMissingKey = -2
)

func inSeconds(t time.Time) int {
	return int(t.Unix())
}

func inMilliSeconds(t time.Time) int {
	return int(t.UnixMilli())
}

// commandsGeneric handles EXPIRE, TTL, PERSIST, &c. (scriptgen: COPY, DUMP
// and RESTORE are in cmd_keys.go, in Redis's own terms.)
func commandsGeneric(m *Miniredis) {
	m.srv.Register("DEL", m.cmdDel)
	m.srv.Register("EXISTS", m.cmdExists, server.ReadOnlyOption())
	m.srv.Register("EXPIRE", makeCmdExpire(m, false, time.Second))
	m.srv.Register("EXPIREAT", makeCmdExpire(m, true, time.Second))
	m.srv.Register("EXPIRETIME", m.makeCmdExpireTime(inSeconds), server.ReadOnlyOption())
	m.srv.Register("PEXPIRETIME", m.makeCmdExpireTime(inMilliSeconds), server.ReadOnlyOption())
	m.srv.Register("KEYS", m.cmdKeys, server.ReadOnlyOption())
	// MIGRATE
	m.srv.Register("MOVE", m.cmdMove)
	// OBJECT
	m.srv.Register("PERSIST", m.cmdPersist)
	m.srv.Register("PEXPIRE", makeCmdExpire(m, false, time.Millisecond))
	m.srv.Register("PEXPIREAT", makeCmdExpire(m, true, time.Millisecond))
	m.srv.Register("PTTL", m.cmdPTTL, server.ReadOnlyOption())
	m.srv.Register("RANDOMKEY", m.cmdRandomkey, server.ReadOnlyOption())
	m.srv.Register("RENAME", m.cmdRename)
	m.srv.Register("RENAMENX", m.cmdRenamenx)
	m.srv.Register("TOUCH", m.cmdTouch, server.ReadOnlyOption())
	m.srv.Register("TTL", m.cmdTTL, server.ReadOnlyOption())
	m.srv.Register("TYPE", m.cmdType, server.ReadOnlyOption())
	m.srv.Register("SCAN", m.cmdScan, server.ReadOnlyOption())
	// SORT
	m.srv.Register("UNLINK", m.cmdDel)
	m.srv.Register("WAIT", m.cmdWait)
}

type expireOpts struct {
	key   string
	value int
	nx    bool
	xx    bool
	gt    bool
	lt    bool
}

// scriptgen: the options come back as a value: the command's closure holds
// them, with no allocation of their own.
func expireParse(cmd string, args []string) (expireOpts, error) {
	var opts expireOpts

	opts.key = args[0]
	if err := optIntSimple(args[1], &opts.value); err != nil {
		return expireOpts{}, err
	}
	args = args[2:]
	for len(args) > 0 {
		switch strings.ToLower(args[0]) {
		case "nx":
			opts.nx = true
		case "xx":
			opts.xx = true
		case "gt":
			opts.gt = true
		case "lt":
			opts.lt = true
		default:
			return expireOpts{}, fmt.Errorf("ERR Unsupported option %s", args[0])
		}
		args = args[1:]
	}
	if opts.gt && opts.lt {
		return expireOpts{}, errors.New("ERR GT and LT options at the same time are not compatible")
	}
	if opts.nx && (opts.xx || opts.gt || opts.lt) {
		return expireOpts{}, errors.New("ERR NX and XX, GT or LT options at the same time are not compatible")
	}
	return opts, nil
}

// generic expire command for EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT
// d is the time unit. If unix is set it'll be seen as a unixtimestamp and
// converted to a duration.
func makeCmdExpire(m *Miniredis, unix bool, d time.Duration) func(*server.Peer, string, []string) {
	return func(c *server.Peer, cmd string, args []string) {
		if !m.isValidCMD(c, cmd, args, atLeast(2)) {
			return
		}

		opts, err := expireParse(cmd, args)
		if err != nil {
			setDirty(c)
			c.WriteError(err.Error())
			return
		}

		withTx(m, c, func(c *server.Peer, ctx *connCtx) {
			db := m.db(ctx.selectedDB)

			// Key must be present.
			if _, ok := db.keys[opts.key]; !ok {
				c.WriteInt(0)
				return
			}

			oldTTL, ok := db.ttlLeft(opts.key)

			var newTTL time.Duration
			if unix {
				newTTL = m.at(opts.value, d)
			} else {
				newTTL = time.Duration(opts.value) * d
			}

			// > NX -- Set expiry only when the key has no expiry
			if opts.nx && ok {
				c.WriteInt(0)
				return
			}
			// > XX -- Set expiry only when the key has an existing expiry
			if opts.xx && !ok {
				c.WriteInt(0)
				return
			}
			// > GT -- Set expiry only when the new expiry is greater than current one
			// (no exp == infinity)
			if opts.gt && (!ok || newTTL <= oldTTL) {
				c.WriteInt(0)
				return
			}
			// > LT -- Set expiry only when the new expiry is less than current one
			// (scriptgen: an equal one is kept, as in Redis; upstream set it)
			if opts.lt && ok && newTTL >= oldTTL {
				c.WriteInt(0)
				return
			}
			db.setTTL(opts.key, newTTL)
			db.incr(opts.key)
			db.checkTTL(opts.key)
			c.WriteInt(1)
		})
	}
}

// makeCmdExpireTime creates server command function that returns the absolute Unix timestamp (since January 1, 1970)
// at which the given key will expire, in unit selected by time result strategy (e.g. seconds, milliseconds).
// For more information see redis documentation for [expiretime] and [pexpiretime].
//
// [expiretime]: https://redis.io/commands/expiretime/
// [pexpiretime]: https://redis.io/commands/pexpiretime/
func (m *Miniredis) makeCmdExpireTime(timeResultStrategy func(time.Time) int) server.Cmd {
	return func(c *server.Peer, cmd string, args []string) {
		if !m.isValidCMD(c, cmd, args, exactly(1)) {
			return
		}

		key := args[0]
		withTx(m, c, func(c *server.Peer, ctx *connCtx) {
			db := m.db(ctx.selectedDB)

			if _, ok := db.keys[key]; !ok {
				c.WriteInt(expiretimeReplyMissingKey)
				return
			}

			ttl, ok := db.ttlLeft(key)
			if !ok {
				c.WriteInt(expiretimeReplyNoExpiration)
				return
			}

			c.WriteInt(timeResultStrategy(m.effectiveNow().Add(ttl)))
		})
	}
}

// TOUCH
func (m *Miniredis) cmdTouch(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		count := 0
		for _, key := range args {
			if db.exists(key) {
				count++
			}
		}
		c.WriteInt(count)
	})
}

// TTL
func (m *Miniredis) cmdTTL(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	key := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		if _, ok := db.keys[key]; !ok {
			// No such key
			c.WriteInt(-2)
			return
		}

		v, ok := db.ttlLeft(key)
		if !ok {
			// no expire value
			c.WriteInt(-1)
			return
		}
		c.WriteInt(int(v.Seconds()))
	})
}

// PTTL
func (m *Miniredis) cmdPTTL(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	key := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		if _, ok := db.keys[key]; !ok {
			// no such key
			c.WriteInt(-2)
			return
		}

		v, ok := db.ttlLeft(key)
		if !ok {
			// no expire value
			c.WriteInt(-1)
			return
		}
		c.WriteInt(int(v.Nanoseconds() / 1000000))
	})
}

// PERSIST
func (m *Miniredis) cmdPersist(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	key := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		if _, ok := db.keys[key]; !ok {
			// no such key
			c.WriteInt(0)
			return
		}

		if _, ok := db.ttl[key]; !ok {
			// no expire value
			c.WriteInt(0)
			return
		}
		delete(db.ttl, key)
		db.incr(key)
		c.WriteInt(1)
	})
}

// DEL and UNLINK
func (m *Miniredis) cmdDel(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		count := 0
		for _, key := range args {
			if db.exists(key) {
				count++
			}
			db.del(key, true) // delete expire
		}
		c.WriteInt(count)
	})
}

// TYPE
func (m *Miniredis) cmdType(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	key := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		t, ok := db.keys[key]
		if !ok {
			c.WriteInline("none")
			return
		}

		c.WriteInline(t)
	})
}

// EXISTS
func (m *Miniredis) cmdExists(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		found := 0
		for _, k := range args {
			if db.exists(k) {
				found++
			}
		}
		c.WriteInt(found)
	})
}

// MOVE
func (m *Miniredis) cmdMove(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(2)) {
		return
	}

	var opts struct {
		key      string
		targetDB int
	}

	opts.key = args[0]
	var msg string
	opts.targetDB, msg = dbIndex(args[1])

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		// scriptgen: Redis's checks, at execution as in Redis: upstream
		// took an unreadable index for 0 and any index past 15.
		if msg != "" {
			c.WriteError(msg)
			return
		}
		if !validDB(opts.targetDB) {
			c.WriteError(msgDBIndexOutOfRange)
			return
		}
		if ctx.selectedDB == opts.targetDB {
			c.WriteError("ERR source and destination objects are the same")
			return
		}
		db := m.db(ctx.selectedDB)
		targetDB := m.db(opts.targetDB)
		// scriptgen: Redis looks the key up in the target too
		// (lookupKeyWrite), which deletes it there if it has expired.
		if m.noActiveExpire {
			targetDB.expireIfNeeded(opts.key)
		}

		if !db.move(opts.key, targetDB) {
			c.WriteInt(0)
			return
		}
		c.WriteInt(1)
	})
}

// KEYS
func (m *Miniredis) cmdKeys(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	key := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		keys, _ := matchKeys(db.allKeys(), key)
		// scriptgen: Redis 7.0's KEYS leaves out an expired key without
		// deleting it (keyIsExpired).
		live := keys[:0]
		for _, k := range keys {
			if !db.expired(k) {
				live = append(live, k)
			}
		}
		keys = live
		c.WriteLen(len(keys))
		for _, s := range keys {
			c.WriteBulk(s)
		}
	})
}

// RANDOMKEY
func (m *Miniredis) cmdRandomkey(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(0)) {
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		// scriptgen: an expired key drawn is deleted and another drawn,
		// as Redis's dbRandomKey does; each draw deletes one or answers.
		for len(db.keys) > 0 {
			if k := m.randomKey(db); !db.expireIfNeeded(k) {
				c.WriteBulk(k)
				return
			}
		}
		c.WriteNull()
	})
}

// randomKey is one of db's keys, drawn at random; db has one.
func (m *Miniredis) randomKey(db *RedisDB) string {
	nr := m.randIntn(len(db.keys))
	for k := range db.keys {
		if nr == 0 {
			return k
		}
		nr--
	}
	return ""
}

// RENAME
func (m *Miniredis) cmdRename(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(2)) {
		return
	}

	opts := struct {
		from string
		to   string
	}{
		from: args[0],
		to:   args[1],
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		if !db.exists(opts.from) {
			c.WriteError(msgKeyNotFound)
			return
		}

		db.rename(opts.from, opts.to)
		c.WriteOK()
	})
}

// RENAMENX
func (m *Miniredis) cmdRenamenx(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(2)) {
		return
	}

	opts := struct {
		from string
		to   string
	}{
		from: args[0],
		to:   args[1],
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)

		if !db.exists(opts.from) {
			c.WriteError(msgKeyNotFound)
			return
		}

		if db.exists(opts.to) {
			c.WriteInt(0)
			return
		}

		db.rename(opts.from, opts.to)
		c.WriteInt(1)
	})
}

type scanOpts struct {
	cursor    uint64
	count     int
	withMatch bool
	match     string
	withType  bool
	_type     string
}

// scanParse reads SCAN's cursor and options (scriptgen: as Redis reads
// them, scan.go).
func scanParse(cmd string, args []string) (*scanOpts, error) {
	cursor, ok := parseCursor(args[0])
	if !ok {
		return nil, errors.New(msgInvalidCursor)
	}
	opts, msg := scanOptions(args[1:], false)
	if msg != "" {
		return nil, errors.New(msg)
	}
	opts.cursor = cursor
	return &opts, nil
}

// SCAN
func (m *Miniredis) cmdScan(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}

	opts, err := scanParse(cmd, args)
	if err != nil {
		setDirty(c)
		c.WriteError(err.Error())
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		// scriptgen: the keyspace is a dict in Redis, so it always pages;
		// TYPE and MATCH filter the page once it is taken, as Redis does,
		// so a page can be empty while the cursor is not 0.
		page, next := scanPage(db.allKeys(), opts.cursor, opts.count)
		if opts.withMatch {
			page, _ = matchKeys(page, opts.match)
		}
		// scriptgen: a key that passed MATCH and has expired is deleted
		// and left out, as Redis's scan does (expireIfNeeded).
		keys := page[:0]
		for _, k := range page {
			if db.expireIfNeeded(k) || opts.withType && db.keys[k] != opts._type {
				continue
			}
			keys = append(keys, k)
		}
		c.WriteLen(2)
		c.WriteBulk(strconv.FormatUint(next, 10))
		c.WriteLen(len(keys))
		for _, k := range keys {
			c.WriteBulk(k)
		}
	})
}

// WAIT
func (m *Miniredis) cmdWait(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(2)) {
		return
	}
	nReplicas, err := strconv.Atoi(args[0])
	if err != nil || nReplicas < 0 {
		c.WriteError(msgInvalidInt)
		return
	}
	timeout, err := strconv.Atoi(args[1])
	if err != nil {
		c.WriteError(msgInvalidInt)
		return
	}
	if timeout < 0 {
		c.WriteError(msgTimeoutNegative)
		return
	}
	// WAIT always returns 0 when called on a standalone instance
	c.WriteInt(0)
}

// dbIndex reads the database index of MOVE and COPY as Redis's
// getIntFromObjectOrReply does: string2ll's integer, then an int's range,
// each with its own text, or "" (scriptgen: upstream read any int64 and
// gave both the first text; found by the grammar differential).
func dbIndex(s string) (int, string) {
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case !isRedisInteger(s) || err != nil:
		return 0, msgInvalidInt
	case n < math.MinInt32 || n > math.MaxInt32:
		return 0, msgInt32Range
	}
	return int(n), ""
}
