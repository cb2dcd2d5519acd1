package integration

import (
	"strings"
	"testing"
)

// The order a small hash and a set of integers answer in. Redis 7.0 holds
// a hash of at most hash-max-listpack-entries fields, none longer than
// hash-max-listpack-value, as a listpack, which answers in the order the
// fields were added (HDEL keeping the rest's), through DUMP, RESTORE, COPY
// and DEBUG RELOAD too; past a threshold it converts to a hash table for
// good, whose order is its dict's: the cases compare only the encoding
// then. An intset answers in numeric order (Redis's suite, type/hash "Hash
// ziplist of various encodings").
var orderCases = []tcase{
	{name: "order/hash-listpack", cmds: [][]string{
		cmd("HSET", "h", "z", "1", "a", "2", "m", "3"), cmd("HSET", "h", "b", "4"),
		cmd("HGETALL", "h"), cmd("HKEYS", "h"), cmd("HVALS", "h"),
		cmd("HDEL", "h", "a"), cmd("HGETALL", "h"),
		cmd("HSET", "h", "a", "5", "z", "9"), cmd("HGETALL", "h"),
		cmd("HSETNX", "h", "c", "6"), cmd("HSETNX", "h", "m", "7"), cmd("HINCRBY", "h", "n", "1"),
		cmd("HINCRBYFLOAT", "h", "0", "1.5"), cmd("HMSET", "h", "y", "1", "b", "2"),
		cmd("HGETALL", "h"), cmd("HSCAN", "h", "0"), cmd("HSCAN", "h", "0", "MATCH", "[a-m]"),
		cmd("HRANDFIELD", "h", "100", "WITHVALUES"), cmd("HRANDFIELD", "h", "9"),
		cmd("OBJECT", "ENCODING", "h"),
		ev("return redis.call('HGETALL', KEYS[1])", 1, "h"),
	}},
	{name: "order/hash-moves", setup: [][]string{{"HSET", "h", "z", "1", "a", "2", "7", "x", "m", "-3"}}, cmds: [][]string{
		cmd("DUMP", "h"),
		ev("redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('HGETALL', KEYS[2])", 2, "h", "r"),
		cmd("COPY", "h", "c"), cmd("HGETALL", "c"), cmd("RENAME", "c", "d"), cmd("HKEYS", "d"),
		cmd("MOVE", "d", "1"), cmd("SELECT", "1"), cmd("HKEYS", "d"), cmd("SELECT", "0"),
		cmd("DEBUG", "RELOAD"), cmd("HGETALL", "h"), cmd("HGETALL", "r"),
	}},
	{name: "order/hash-conversions", cmds: [][]string{
		cmd("CONFIG", "SET", "hash-max-listpack-entries", "3"),
		cmd("HSET", "e", "c", "1", "b", "2", "a", "3"), cmd("OBJECT", "ENCODING", "e"), cmd("HKEYS", "e"),
		cmd("HSET", "e", "d", "4"), cmd("OBJECT", "ENCODING", "e"),
		cmd("HDEL", "e", "a", "b"), cmd("OBJECT", "ENCODING", "e"),
		cmd("HSET", "v", "b", "1"), cmd("HSET", "v", "a", strings.Repeat("x", 65)), cmd("OBJECT", "ENCODING", "v"),
		cmd("HDEL", "v", "a"), cmd("OBJECT", "ENCODING", "v"), cmd("HSETNX", "n", strings.Repeat("f", 65), "1"),
		cmd("OBJECT", "ENCODING", "n"),
		cmd("CONFIG", "SET", "hash-max-listpack-entries", "128", "hash-max-listpack-value", "100"),
		cmd("HSET", "w", "b", strings.Repeat("x", 90), "a", "1"), cmd("OBJECT", "ENCODING", "w"), cmd("HKEYS", "w"),
		cmd("HSET", "big", "z", "1", "y", "2", "x", "3", "w", "4"),
		cmd("CONFIG", "SET", "hash-max-listpack-entries", "2"),
		ev("redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('OBJECT', 'ENCODING', KEYS[2])", 2, "big", "big2"),
		ev("redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1])) return redis.call('HKEYS', KEYS[2])", 2, "w", "w2"),
		cmd("CONFIG", "SET", "hash-max-listpack-entries", "128", "hash-max-listpack-value", "64"),
	}},
	{name: "order/intset", cmds: [][]string{
		cmd("SADD", "s", "10", "9", "-1", "100", "3"), cmd("SMEMBERS", "s"), cmd("SSCAN", "s", "0"),
		cmd("SORT", "s", "BY", "nosort"), cmd("SINTER", "s"), cmd("SUNION", "s", "nokey"), cmd("SDIFF", "s", "nokey"),
		cmd("OBJECT", "ENCODING", "s"),
		cmd("ZADD", "z", "2", "b", "1", "c", "2", "a"), cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
	}},
}

func TestOrderLikeRedis(t *testing.T) {
	real, tcp, do := differentialTargets(t, "enable-debug-command yes")
	compareCases(t, orderCases, real, []target{tcp, do})
}
