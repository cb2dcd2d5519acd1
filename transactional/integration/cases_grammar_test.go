package integration

// What TestGrammarCommands found, each fixed in the miniredis copy (see
// its README, "Found by the grammar differential"): the order in which
// Redis reads options, counts and ranges, and the texts it answers.
func init() {
	cases = append(cases,
		tcase{name: "grammar/zrange-options-first", setup: [][]string{{"ZADD", "z", "1", "a", "2", "b", "3", "c"}}, cmds: [][]string{
			cmd("ZRANGE", "z", "x", "y", "LIMIT", "0", "1"), cmd("ZRANGE", "z", "0", "1", "LIMIT", "0", "-1"), cmd("ZRANGE", "z", "x", "1", "foo"),
			cmd("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"), cmd("ZRANGE", "z", "0", "2", "BYLEX", "BYSCORE"), cmd("ZRANGE", "z", "0", "2", "BYSCORE", "BYSCORE"), cmd("ZRANGE", "z", "0", "1", "LIMIT", "01", "1", "BYSCORE"),
			cmd("ZRANGE", "z", "0", "1", "LIMIT", "0"), cmd("ZREVRANGE", "WITHSCORES", "z", "10", "3"), cmd("ZREVRANGE", "z", "0", "1", "BYSCORE"),
			cmd("ZREVRANGE", "z", "0", "1", "LIMIT", "0", "1"), cmd("ZRANGEBYSCORE", "z", "LIMIT", "-2.5", "x", "LIMIT", "1", "1"),
			cmd("ZRANGEBYSCORE", "z", "0", "1", "REV"), cmd("ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"), cmd("ZREVRANGEBYSCORE", "z", "x", "1", "foo"),
			cmd("ZRANGESTORE", "d", "z", "0", "-1"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"), cmd("ZRANGESTORE", "d", "z", "(1", "3", "BYSCORE", "LIMIT", "0", "1"),
			cmd("ZRANGESTORE", "d", "z", "0", "1", "WITHSCORES"), cmd("ZRANGESTORE", "d", "z", "1.5", "1.5", "LIMIT", "0", "-1"),
			cmd("ZRANGESTORE", "d", "z", "[a", "[b", "BYLEX", "REV"), cmd("ZRANGESTORE", "d", "z", "[b", "[a", "BYLEX", "REV"), cmd("ZRANGE", "d", "0", "-1"),
			cmd("ZRANGESTORE", "d", "z", "5", "6"), cmd("EXISTS", "d"),
		}},
		tcase{name: "grammar/numkeys", setup: [][]string{{"ZADD", "z", "1", "a"}, {"RPUSH", "l", "x"}}, cmds: [][]string{
			cmd("ZUNIONSTORE", "d", "+1", "z"), cmd("ZUNIONSTORE", "d", "01", "z"), cmd("ZINTERSTORE", "d", "-0", "z"), cmd("ZUNIONSTORE", "d", "0", "z"),
			cmd("ZUNIONSTORE", "d", "9223372036854775807", "z", "z"), cmd("ZUNIONSTORE", "d", "2147483648", "z"), cmd("ZUNION", "5", "z"),
			cmd("ZUNION", "-1", "z"), cmd("ZINTER", "x", "z"), cmd("PING"),
			cmd("LMPOP", "01", "l", "left"), cmd("LMPOP", "0", "l", "left"), cmd("LMPOP", "x", "l", "left"), cmd("LMPOP", "2", "l", "left"),
			cmd("ZMPOP", "-1", "z", "min"), cmd("ZMPOP", "+1", "z", "min"), cmd("BZMPOP", "0", "0", "z", "min"),
			cmd("MSET", "a", "1", "b"), cmd("MSETNX", "a", "1", "b"),
			cmd("ZINTERSTORE", "c", "9223372036854775807"), cmd("ZUNIONSTORE", "c", "9223372036854775807", "z"), cmd("SINTERCARD", "+1", "z"),
			cmd("SINTERCARD", "1", "z", "LIMIT", "x"), cmd("SINTERCARD", "1", "z", "LIMIT", "-1"), cmd("ZRANGE", "z", "0", "1", "REV", "REV"),
			cmd("LMPOP", "1", "l", "left", "count", "+1"), cmd("ZMPOP", "1", "z", "min", "COUNT", "01"), cmd("LMPOP", "1", "l", "left", "count", "x", "y"),
			cmd("SINTERCARD", "3", "a", "b", "LIMIT", "x"), cmd("LMPOP", "2", "l", "RIGHT", "COUNT", "COUNT", "-1"), cmd("LMPOP"), cmd("SINTERCARD"), cmd("LMPOP", "1"),
			cmd("SINTERCARD", "1", "z", "LIMIT", "z", "z", "LIMIT", "1"), cmd("ZMPOP", "1", "z", "min", "COUNT", "count", "0"), cmd("ZMPOP", "1", "z", "min", "COUNT", "1", "COUNT", "x"),
			cmd("SINTERCARD", "1", "z", "LIMIT", "1", "LIMIT"), cmd("LMPOP", "1", "l", "left", "FOO"),
			cmd("LPOS", "l", "x", "COUNT", "9223372036854775807"), cmd("LPOS", "l", "x", "COUNT", "0", "MAXLEN", "9223372036854775807"), cmd("PING"),
		}},
		tcase{name: "grammar/getex-past-deadline", setup: [][]string{{"SET", "c", "1"}, {"SET", "d", "1"}, {"HSET", "h", "f", "v"}}, cmds: [][]string{
			cmd("GETEX", "c", "EXAT", "1"), cmd("EXISTS", "c"), cmd("INCR", "c"), cmd("TTL", "c"), cmd("GETEX", "d", "PXAT", "1"), cmd("GETEX", "h", "EXAT", "1"), cmd("TTL", "h"),
		}},
		// SET and GETEX read their options' syntax before anything else,
		// then SET the expiry's value, GETEX the key; in MULTI every error
		// is EXEC's, not the queue's.
		tcase{name: "grammar/string-options", setup: [][]string{{"SET", "s", "1"}, {"HSET", "h", "f", "v"}}, cmds: [][]string{
			cmd("SET", "a", "b", "EX", "x", "PX", "5"), cmd("SET", "a", "b", "EX", "10", "EX", "20"), cmd("TTL", "a"), cmd("SET", "a", "b", "KEEPTTL", "EX", "1"),
			cmd("SET", "a", "b", "EX", "1", "KEEPTTL"), cmd("SET", "a", "b", "NX", "XX"), cmd("SET", "a", "b", "XX", "NX"), cmd("SET", "a", "b", "NX", "NX", "GET"),
			cmd("SET", "h", "b", "GET", "EX", "x"), cmd("SET", "h", "b", "GET", "EX", "0"), cmd("SET", "h", "b", "GET", "PX", "9223372036854775807"),
			cmd("SET", "a", "b", "EX", "9223372036854775"), cmd("SET", "a", "b", "PERSIST"), cmd("SET", "a", "b", "ex"), cmd("SET", "a", "b", "EXAT", "1", "GET"),
			cmd("GETEX", "nosuch", "EX", "x"), cmd("GETEX", "h", "EX", "x"), cmd("GETEX", "nosuch", "EX", "1", "PX", "1"), cmd("GETEX", "h", "PERSIST", "EX", "1"),
			cmd("GETEX", "s", "EX", "1", "EX", "x"), cmd("GETEX", "s", "PERSIST", "PERSIST"), cmd("GETEX", "s", "NX"), cmd("GETEX", "s", "EX", "-1"), cmd("GETEX", "s", "KEEPTTL"),
			cmd("GETEX", "s", "PX", "100000", "PX", "200000"), cmd("TTL", "s"),
			cmd("MULTI"), cmd("SET", "m", "b", "EX", "0"), cmd("SET", "m", "b", "EX", "1", "PX", "1"), cmd("GETEX", "m", "FOO"), cmd("SET", "m", "c"), cmd("EXEC"),
		}},
		// BITCOUNT and BITPOS with Redis 7.0's BIT and BYTE units, and
		// Redis's order: BITPOS's bit, then the key, then the range.
		tcase{name: "grammar/bit-units", setup: [][]string{{"SET", "s", "\xff\xf0\x00"}, {"SET", "t", "foobar"}, {"HSET", "h", "f", "v"}}, cmds: [][]string{
			cmd("BITCOUNT", "t", "1", "1", "BYTE"), cmd("BITCOUNT", "t", "5", "30", "BIT"), cmd("BITCOUNT", "t", "-5", "-1", "bit"), cmd("BITCOUNT", "t", "0", "1", "FOO"),
			cmd("BITCOUNT", "t", "-1", "-2", "FOO"), cmd("BITCOUNT", "nosuch", "x", "y"), cmd("BITCOUNT", "h", "x", "y"), cmd("BITCOUNT", "t", "1"), cmd("BITCOUNT", "nosuch", "1"),
			cmd("BITPOS", "t", "1", "2", "-1", "BYTE"), cmd("BITPOS", "t", "1", "7", "15", "BIT"), cmd("BITPOS", "t", "0", "1", "-1", "bit"), cmd("BITPOS", "nosuch", "1", "x", "y", "z"),
			cmd("BITPOS", "nosuch", "2"), cmd("BITPOS", "h", "1", "x"), cmd("BITPOS", "t", "1", "0", "x", "FOO"), cmd("BITPOS", "t", "0", "0", "1", "BIT", "x"),
			cmd("BITPOS", "t", "0", "0", "-1", "BIT"), cmd("BITPOS", "t", "0", "0"), cmd("BITPOS", "t", "0", "0", "", "BIT"),
		}},
		// COPY's DB is an int to Redis, RESTORE's numbers string2ll's.
		tcase{name: "grammar/copy-restore-integers", setup: [][]string{{"SET", "a", "1"}}, cmds: [][]string{
			cmd("COPY", "a", "b", "DB", "2147483648"), cmd("COPY", "a", "b", "DB", "-2147483649"), cmd("COPY", "a", "b", "DB", "+1"),
			cmd("COPY", "a", "b", "DB", "01"), cmd("COPY", "a", "b", "DB", "2147483647"), cmd("COPY", "a", "b", "DB", "0", "REPLACE"),
			cmd("RESTORE", "k", "+5", "x"), cmd("RESTORE", "k", "0", "x", "IDLETIME", "+1"), cmd("RESTORE", "k", "0", "x", "FREQ", "01"),
			cmd("RESTORE", "k", "0", "x", "IDLETIME", "-0"), cmd("RESTORE", "a", "01", "x"), cmd("RESTORE", "k", "01", "x", "REPLACE"),
		}},
		// Members that look like ZADD's options or like numbers are data:
		// only the words before the first score are options, only the
		// scores are read as floats.
		tcase{name: "grammar/zadd-data-like-options", cmds: [][]string{
			cmd("ZADD", "z", "1", "nan"), cmd("ZADD", "z", "-inf", "m"), cmd("ZADD", "z", "1", "incr", "+inf", "m"), cmd("ZSCORE", "z", "m"),
			cmd("ZADD", "z", "nan", "m"), cmd("ZADD", "z", "1", "inf", "2", "NaN"), cmd("ZADD", "z", "XX", "1", "nx", "2", "gt"),
			cmd("ZADD", "z", "CH", "3", "ch", "4", "incr"), cmd("ZINCRBY", "z", "1", "nan"), cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
		}},
		// BITOP's result replaces its destination, TTL included.
		tcase{name: "grammar/bitop-replaces-ttl", setup: [][]string{{"SETEX", "c", "30", "xy"}, {"SETEX", "d", "30", "xy"}, {"SETEX", "e", "30", "xy"}, {"HSET", "h", "f", "v"}}, cmds: [][]string{
			cmd("BITOP", "AND", "c", "c"), cmd("TTL", "c"), cmd("BITOP", "NOT", "d", "c"), cmd("TTL", "d"), cmd("BITOP", "OR", "e", "nosuch"), cmd("EXISTS", "e"),
			cmd("BITOP", "XOR", "c", "c", "h"), cmd("BITOP", "foo", "c", "c"), cmd("BITOP", "NOT", "c", "a", "b"), cmd("BITOP", "and", "c", "d", "d"),
		}},
		// LCS, BITFIELD and BITFIELD_RO, which upstream miniredis does not
		// serve, from a client and from a script.
		tcase{name: "string/lcs-bitfield", setup: [][]string{{"MSET", "a", "ohmytext", "b", "mynewtext"}, {"HSET", "h", "f", "v"}}, cmds: [][]string{
			cmd("LCS", "a", "b"), cmd("LCS", "a", "b", "LEN"), cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"), cmd("LCS", "a", "h"),
			cmd("BITFIELD", "k", "SET", "i8", "#1", "-100", "INCRBY", "i8", "8", "-100", "OVERFLOW", "FAIL", "INCRBY", "i8", "8", "-100", "GET", "u16", "0"),
			cmd("GET", "k"), cmd("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u4", "100", "99"), cmd("STRLEN", "k"), cmd("BITFIELD_RO", "k", "GET", "i4", "0"),
			cmd("BITFIELD_RO", "h", "SET", "u8", "0", "1"), cmd("BITFIELD", "h", "GET", "u8", "0"), cmd("BITFIELD", "k", "GET", "u64", "0"),
			ev("return {redis.call('LCS', KEYS[1], KEYS[2]), redis.call('BITFIELD', KEYS[3], 'INCRBY', 'u8', '0', '300')}", 3, "a", "b", "k"),
		}},
		tcase{name: "grammar/zadd-repeated-member", cmds: [][]string{
			cmd("ZADD", "z", "LT", "-2.5", "m", "+inf", "m"), cmd("ZADD", "z", "1", "n", "2", "n", "3", "n"), cmd("ZADD", "z", "CH", "5", "o", "6", "o"),
			cmd("ZADD", "z", "GT", "CH", "7", "m", "-1", "m"), cmd("ZADD", "z", "NX", "LT", "x", "m"), cmd("ZADD", "z", "NX", "XX", "x", "m"),
			cmd("ZADD", "z", "INCR", "x", "m", "y", "n"), cmd("ZADD", "z", "x", "m", "1"), cmd("ZADD", "z", "INCR", "1", "m", "1", "m"), cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
		}},
		tcase{name: "grammar/exclusive-infinities", setup: [][]string{{"ZADD", "z", "-inf", "a", "0", "b", "+inf", "c"}}, cmds: [][]string{
			cmd("ZCOUNT", "z", "(-inf", "(1"), cmd("ZCOUNT", "z", "-inf", "+inf"), cmd("ZCOUNT", "z", "(-inf", "(+inf"), cmd("ZRANGEBYSCORE", "z", "(-inf", "+inf"),
			cmd("ZREVRANGEBYSCORE", "z", "(+inf", "(-inf"), cmd("ZRANGE", "z", "(-inf", "(inf", "BYSCORE"), cmd("ZREMRANGEBYSCORE", "z", "(-inf", "(0"), cmd("ZCARD", "z"),
		}},
		tcase{name: "list/blmpop", setup: [][]string{{"RPUSH", "l", "a", "b", "c"}, {"SET", "s", "x"}}, cmds: [][]string{
			cmd("BLMPOP", "0", "1", "l", "left", "count", "2"), cmd("BLMPOP", "0.1", "1", "nosuch", "left"), cmd("BLMPOP", "0", "01", "l", "left"),
			cmd("BLMPOP", "x", "1", "l", "left"), cmd("BLMPOP", "-1", "1", "l", "left"), cmd("BLMPOP", "0", "1", "l", "up"), cmd("BLMPOP", "0", "1", "s", "right"),
			cmd("BLMPOP", "0", "2", "nosuch", "l", "RIGHT", "COUNT", "5"),
			ev("return {redis.call('RPUSH', KEYS[1], 'x'), redis.call('BLMPOP', '0', '1', KEYS[1], 'LEFT'), redis.call('BLMPOP', '0', '1', KEYS[2], 'LEFT')}", 2, "l", "nosuch"),
		}},
		tcase{name: "grammar/set-option-without-value", cmds: [][]string{cmd("SET", "a", "b", "EX"), cmd("SET", "a", "b", "NX", "GET", "PX"), cmd("SET", "a", "b", "EX", "1", "PX"), cmd("EXISTS", "a")}},
		tcase{name: "grammar/zmpop-null-resp3", resp3: true, cmds: [][]string{cmd("ZMPOP", "1", "z", "MIN"), cmd("LMPOP", "1", "l", "LEFT")}},
		tcase{name: "grammar/expire-options-first", setup: [][]string{{"SET", "a", "1"}}, cmds: [][]string{
			cmd("PEXPIRE", "a", "x", "foo"), cmd("EXPIRE", "a", "1", "gt", "lt"), cmd("EXPIRE", "a", "1", "nx", "gt"), cmd("EXPIRE", "a", "x", "gt", "lt"),
			cmd("EXPIREAT", "a", "1", "xx", "lt", "gt"), cmd("PEXPIRE", "a", "XX", "-9223372036854775808000", "NX"), cmd("EXPIRE", "a", "100", "xx", "gt"),
			cmd("TTL", "a"),
		}},
	)
}
