package miniredis

// scriptgen: key expiry as Redis 7.0 has it, active and lazy.
//
// Redis deletes a key past its deadline in two ways: a periodic cycle
// (activeExpireCycle, ten times a second) samples keys with a TTL and
// deletes the expired ones, and every lookup of a key deletes it if it has
// expired (expireIfNeeded). DEBUG set-active-expire 0 stops the cycle: an
// expired key then stays in the keyspace, counted by DBSIZE and INFO, seen
// by DEBUG OBJECT and MEMORY USAGE, until a command looks it up.
//
// Here the cycle runs whenever the TTL clock moves (advanceTTLs), and
// deletes every key the move expired: TTLs are deadlines in a heap
// (ttlclock.go), so that costs the keys it deletes. Redis's cycle is a
// sample bounded in time, so when it gets to a key is left open; between
// two commands nothing can tell it from one that got to every key, since
// this engine sends no keyspace events, and a virtual clock moved on
// expires what it passed. With the cycle off, a move only moves the clock,
// and a command deletes the expired keys it names when it executes
// (withTx, blocking): the keys of its key specs, as lookupKey would meet
// them, at the clock of that moment, which does not move during a
// command, a MULTI's EXEC or a script (Redis 7 freezes it at the script's
// start). KEYS, SCAN and RANDOMKEY treat the keys they walk as Redis does.

import (
	"github.com/scriptgen/scriptgen/internal/commands"
)

// noLazyExpire lists the commands with keys whose lookups in Redis 7.0 do
// not expire them: WATCH notes whether a key has expired (multi.c), MEMORY
// USAGE and DEBUG find the key in the dict directly.
var noLazyExpire = map[string]bool{"WATCH": true, "MEMORY": true, "DEBUG": true}

// SetActiveExpire turns the active expiry cycle on or off, as DEBUG
// set-active-expire does; the caller holds the lock. Turned on, it runs at
// once for the keys that expired meanwhile.
func (m *Miniredis) SetActiveExpire(on bool) {
	m.noActiveExpire = !on
	if on {
		m.activeExpireCycle()
	}
}

// activeExpireCycle deletes every key past its deadline, in every
// database.
func (m *Miniredis) activeExpireCycle() {
	for _, db := range m.dbs {
		if db != nil {
			db.expireDueKeys()
		}
	}
}

// expired reports whether key has a deadline the TTL clock has passed
// (RedisExpiry), or reached (upstream's rule).
func (db *RedisDB) expired(key string) bool {
	at, ok := db.ttl[key]
	if !ok {
		return false
	}
	now := db.master.ttlNow
	return at < now || at == now && !db.master.redisExpiry
}

// expireIfNeeded deletes key if it has expired, and reports whether it
// did: Redis's expireIfNeeded, for a lookup of key.
func (db *RedisDB) expireIfNeeded(key string) bool {
	if !db.expired(key) {
		return false
	}
	db.deleteExpired(key)
	return true
}

// deleteExpired deletes key because it expired: the one place where a key
// goes for that reason, lazily or by the cycle, counted in INFO's
// expired_keys as deleteExpiredKeyAndPropagate counts it.
func (db *RedisDB) deleteExpired(key string) {
	db.expireKey(key)
	db.master.expiredKeys++
}

// watchedChanged reports whether key, WATCHed at version, fails EXEC, as
// Redis 7.0's multi.c has it: a write since, or an expiry since, unless
// the key had expired already when WATCH was made (stale), which its
// deletion for that reason does not change (touchWatchedKey).
func (db *RedisDB) watchedChanged(key string, version uint, stale bool) bool {
	v := db.keyVersion[key]
	if stale {
		_, exists := db.keys[key]
		return v > version && !(v == version+1 && !exists)
	}
	return v > version || db.expired(key)
}

// expireKeysOf deletes the expired keys that the command name names in
// args, in the database the connection has selected, where the command
// runs: at once, at EXEC for a queued command, at each try of a blocked
// one. With the active cycle on, none is left to find.
func (m *Miniredis) expireKeysOf(ctx *connCtx, name string, args []string) {
	if !m.noActiveExpire || noLazyExpire[name] {
		return
	}
	db := m.db(ctx.selectedDB)
	if len(db.ttl) == 0 {
		return
	}
	argv := append([]string{name}, args...)
	cmd := commands.Find(argv)
	if cmd == nil {
		return
	}
	idx, err := cmd.Keys(argv)
	if err != nil {
		return
	}
	for _, i := range idx {
		db.expireIfNeeded(argv[i])
	}
}
