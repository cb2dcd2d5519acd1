package integration

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
)

// Key expiry on the wall clock, as `scriptgen serve` keeps it: with DEBUG
// set-active-expire 0 an expired key stays, counted by DBSIZE, until a
// command looks it up (Redis's suite: expire "Redis should lazy expire
// keys", scripting "Script delete the expired key"). A step
// {"SLEEP", ms} is the test's own pause; a DEBUG OBJECT or MEMORY USAGE
// reply is compared by its kind only (address, LRU and sizes are the
// server's).
var expireCases = []tcase{
	{name: "lazy/dbsize-mget", cmds: [][]string{
		cmd("CONFIG", "RESETSTAT"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("PSETEX", "key1{t}", "50", "a"), cmd("PSETEX", "key2{t}", "50", "a"), cmd("PSETEX", "key3{t}", "50", "a"),
		cmd("SET", "keep", "v"), cmd("DBSIZE"),
		cmd("SLEEP", "120"),
		cmd("DBSIZE"), cmd("KEYS", "*"), cmd("DBSIZE"), cmd("INFO", "keyspace"),
		cmd("INFO", "stats"), cmd("MGET", "key1{t}", "key2{t}", "key3{t}"), cmd("DBSIZE"), cmd("INFO", "stats"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
	}},
	{name: "lazy/debug-object-script", cmds: [][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "key", "value", "PX", "1"), cmd("SLEEP", "20"),
		cmd("DEBUG", "OBJECT", "key"), cmd("MEMORY", "USAGE", "key"), cmd("DBSIZE"),
		ev("return redis.call('EXISTS', 'key')", 0), cmd("EXISTS", "key"), cmd("DBSIZE"),
		cmd("DEBUG", "OBJECT", "key"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
	}},
	{name: "lazy/scan-randomkey", cmds: [][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("PSETEX", "a", "20", "1"), cmd("PSETEX", "b", "20", "1"), cmd("HSET", "h", "f", "v"),
		cmd("PEXPIRE", "h", "20"), cmd("SET", "keep", "v"),
		cmd("SLEEP", "60"), cmd("DBSIZE"),
		cmd("SCAN", "0", "MATCH", "[ab]", "COUNT", "100"), cmd("DBSIZE"),
		cmd("SCAN", "0", "TYPE", "string", "COUNT", "100"), cmd("DBSIZE"),
		cmd("DEL", "keep"), cmd("PSETEX", "c", "1", "1"), cmd("PSETEX", "d", "1", "1"), cmd("SLEEP", "20"),
		cmd("DBSIZE"), cmd("RANDOMKEY"), cmd("DBSIZE"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
	}},
	{name: "lazy/writes", cmds: [][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "foo", "bar", "PX", "20"), cmd("SET", "del", "x", "PX", "20"), cmd("RPUSH", "l", "a"),
		cmd("PEXPIRE", "l", "20"), cmd("SET", "n", "5", "PX", "20"),
		cmd("SELECT", "1"), cmd("SET", "mv", "old", "PX", "20"), cmd("SELECT", "0"), cmd("SET", "mv", "new"),
		cmd("SLEEP", "60"),
		cmd("EXPIRE", "foo", "10"), cmd("EXISTS", "foo"), cmd("DEL", "del"), cmd("RPUSH", "l", "b"),
		cmd("LRANGE", "l", "0", "-1"), cmd("INCR", "n"), cmd("TTL", "n"), cmd("MOVE", "mv", "1"),
		cmd("SELECT", "1"), cmd("GET", "mv"), cmd("SELECT", "0"), cmd("DBSIZE"),
		cmd("RPUSH", "ids", "1", "2"), cmd("SET", "w_1", "5", "PX", "20"), cmd("SET", "w_2", "3"),
		cmd("SLEEP", "60"), cmd("DBSIZE"), cmd("SORT", "ids", "BY", "w_*", "GET", "w_*"), cmd("DBSIZE"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
	}},
	{name: "lazy/copy-db", cmds: [][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"), cmd("CONFIG", "RESETSTAT"),
		cmd("SELECT", "1"), cmd("SET", "cp", "old", "PX", "20"), cmd("SET", "kept", "old", "PX", "20"),
		cmd("SELECT", "0"), cmd("SET", "cp", "new"), cmd("SLEEP", "60"),
		cmd("COPY", "cp", "cp", "DB", "1"), cmd("COPY", "nokey", "kept", "DB", "1"), cmd("INFO", "stats"),
		cmd("SELECT", "1"), cmd("DBSIZE"), cmd("GET", "cp"), cmd("SELECT", "0"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
	}},
	{name: "lazy/multi", cmds: [][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "x", "1", "PX", "20"), cmd("MULTI"), cmd("DBSIZE"), cmd("GET", "x"), cmd("DBSIZE"),
		cmd("SLEEP", "60"), cmd("EXEC"), cmd("DBSIZE"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
	}},
	// WATCH as multi.c has it: a key that expires after WATCH fails EXEC,
	// one that had expired already does not, even when a lookup deletes
	// it, unless it is written.
	{name: "lazy/watch", cmds: [][]string{
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"),
		cmd("SET", "key", "1", "PX", "30"), cmd("WATCH", "key"), cmd("SLEEP", "60"),
		cmd("MULTI"), cmd("INCR", "key"), cmd("EXEC"), cmd("DBSIZE"),
		cmd("SET", "x", "foo", "PX", "1"), cmd("SLEEP", "10"),
		cmd("WATCH", "x"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("WATCH", "x"), cmd("EXISTS", "x"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("SET", "y", "foo", "PX", "1"), cmd("SLEEP", "10"),
		cmd("WATCH", "y"), cmd("SET", "y", "bar"), cmd("MULTI"), cmd("PING"), cmd("EXEC"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
		cmd("SET", "z", "1", "PX", "30"), cmd("WATCH", "z"), cmd("SLEEP", "60"),
		cmd("MULTI"), cmd("PING"), cmd("EXEC"),
	}},
	// Redis 7 freezes the clock at a script's start: a key that expires
	// while the script runs is still there for it.
	{name: "script/frozen-clock", cmds: [][]string{
		cmd("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"),
		cmd("SET", "k", "v", "PX", "100"),
		ev("redis.call('DEBUG', 'SLEEP', '0.2') return {redis.call('GET', KEYS[1]), redis.call('EXISTS', KEYS[1])}", 1, "k"),
		cmd("GET", "k"), cmd("DBSIZE"),
		cmd("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"),
	}},
	// The active cycle: Redis runs it ten times a second, so 300 ms after
	// their expiry keys are gone without a lookup, and turning it back on
	// takes the ones it kept.
	{name: "active/cycle", cmds: [][]string{
		cmd("CONFIG", "RESETSTAT"), cmd("PSETEX", "a", "20", "1"), cmd("SLEEP", "300"), cmd("DBSIZE"), cmd("INFO", "stats"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "0"), cmd("PSETEX", "b", "20", "1"), cmd("SLEEP", "100"), cmd("DBSIZE"),
		cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"), cmd("SLEEP", "300"), cmd("DBSIZE"), cmd("INFO", "stats"),
	}},
}

func TestExpireLikeRedis(t *testing.T) {
	srv := redistest.Start(t, "enable-debug-command yes")
	e := transactional.New(transactional.WithRealTime(), transactional.WithTimeLimit(2*time.Second))
	t.Cleanup(e.Close)
	addr, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	real, serve := tcpTarget(t, "redis", srv.Addr), tcpTarget(t, "serve", addr.String())
	for _, c := range expireCases {
		t.Run(c.name, func(t *testing.T) {
			want, got := runTimed(t, real, c), runTimed(t, serve, c)
			for i, args := range c.cmds {
				w, g := want[i], got[i]
				if len(args) == 3 && (args[0] == "DEBUG" || args[0] == "MEMORY") {
					w, g = w[:1], g[:1]
				}
				if len(args) == 2 && args[0] == "INFO" {
					w, g = infoField(w, args[1]), infoField(g, args[1])
					if w == nil {
						t.Errorf("INFO %s on redis: no field compared in %s", args[1], clip(want[i]))
					}
				}
				if !bytes.Equal(w, g) {
					t.Errorf("reply to %q\n redis: %s\n serve: %s", abbreviate(args), clip(want[i]), clip(got[i]))
				}
			}
		})
	}
}

// runTimed runs c's commands on tg, pausing at its SLEEP steps.
func runTimed(t *testing.T, tg target, c tcase) [][]byte {
	tg.reset(t)
	do := tg.open(t, false)
	var replies [][]byte
	for _, args := range c.cmds {
		if args[0] == "SLEEP" {
			ms, _ := strconv.Atoi(args[1])
			time.Sleep(time.Duration(ms) * time.Millisecond)
			replies = append(replies, nil)
			continue
		}
		replies = append(replies, do(args...))
	}
	return replies
}

// infoField is what the cases compare of an INFO section: keyspace's db0
// counts (avg_ttl after them is a server's estimate), stats' expired_keys.
func infoField(info []byte, section string) []byte {
	start, end := "db0:", ",avg_ttl"
	if section == "stats" {
		start, end = "expired_keys:", "\r\n"
	}
	i := bytes.Index(info, []byte(start))
	if i < 0 {
		return nil
	}
	line := info[i:]
	if j := bytes.Index(line, []byte(end)); j >= 0 {
		line = line[:j]
	}
	return line
}
