package integration

import (
	"fmt"
	"strings"
)

// Cases from the differences Redis 7.0.15's own suite (tests/unit/type/
// zset.tcl, incr.tcl, hash.tcl, list.tcl and keyspace.tcl) found between
// redis-server and the engine: ZDIFF, ZDIFFSTORE and ZINTERCARD, which
// miniredis did not serve; ZADD INCR with GT or LT; sums and weights that
// would make NaN; INCRBYFLOAT's long double; blocking commands in MULTI.
func init() {
	cases = append(cases, typeCases...)
	cases = append(cases, globCases()...)
}

// globCases send KEYS with awkward globs, one key in the database at a
// time (KEYS answers in hash order), to hold stringMatch to Redis's
// stringmatchlen.
func globCases() []tcase {
	patterns := []string{"[", "[]", "[]a]", "[^a]", "[a-", "[z-a]", "a\\", "\\", "*\\", "[\\", "a[", "[!a]", "*?*",
		"[^]", "[a-c-e]", "[\\]]", "a*b*", "*a*a*", "?", "??", "[-a]", "[a-]", "\\a", "[^-]", "*[", "**", "[[]", "*"}
	var out []tcase
	for _, key := range []string{"", "a", "[", "]", "\\", "ab", "a-b", "-", "^", "aab", "b", "a\\"} {
		tc := tcase{name: "types/keys-glob-" + fmt.Sprintf("%q", key), setup: [][]string{{"SET", key, "1"}}}
		for _, p := range patterns {
			tc.cmds = append(tc.cmds, []string{"KEYS", p})
		}
		out = append(out, tc)
	}
	return append(out, tcase{name: "types/keys-glob-nested", setup: [][]string{{"SET", strings.Repeat("a", 50000), "1"}},
		cmds: [][]string{{"KEYS", strings.Repeat("*?", 50000)}, {"KEYS", strings.Repeat("*", 3000) + "b"}, {"KEYS", strings.Repeat("*a", 999)}, {"KEYS", strings.Repeat("*a", 1002)}}})
}

// zsetsSetup is three sorted sets, a set and a string for the set
// operations.
var zsetsSetup = [][]string{
	{"ZADD", "{z}a", "1", "x", "2", "y", "3", "z"}, {"ZADD", "{z}b", "1", "y"}, {"SADD", "{z}s", "z"},
	{"SET", "{z}str", "v"}, {"ZADD", "{z}pinf", "+inf", "m"}, {"ZADD", "{z}ninf", "-inf", "m"},
}

// blockingInMulti are blocking commands in MULTI, where Redis does not let
// them block: each answers at once, empty-handed or served.
var blockingInMulti = [][]string{
	{"MULTI"}, {"BLMPOP", "0", "1", "l", "LEFT"}, {"BZMPOP", "0", "1", "z", "MIN"}, {"BLPOP", "l", "0"}, {"BZPOPMIN", "z", "0"},
	{"BLMOVE", "l", "m", "LEFT", "LEFT", "0"}, {"BRPOPLPUSH", "l", "m", "0"}, {"EXEC"},
	{"RPUSH", "l", "a", "b"}, {"ZADD", "z", "1", "a"},
	{"MULTI"}, {"BLMPOP", "0", "1", "l", "LEFT"}, {"BZMPOP", "0", "1", "z", "MIN"}, {"BLMOVE", "l", "m", "LEFT", "RIGHT", "0"}, {"EXEC"},
}

var typeCases = []tcase{
	{name: "types/zdiff", setup: zsetsSetup, cmds: [][]string{
		{"ZDIFF", "2", "{z}a", "{z}b", "WITHSCORES"}, {"ZDIFF", "3", "{z}a", "{z}b", "{z}s"}, {"ZDIFF", "1", "{z}none"},
		{"ZDIFF", "2", "{z}a", "{z}b", "withscores", "x"}, {"ZDIFF", "0", "{z}a"}, {"ZDIFF", "3", "{z}a", "{z}b"},
		{"ZDIFF", "2", "{z}a", "{z}str"}, {"ZDIFF", "2", "{z}a", "{z}b", "LIMIT"}, {"ZDIFF", "+1", "{z}a"},
	}},
	{name: "types/zdiff-resp3", resp3: true, setup: zsetsSetup, cmds: [][]string{
		{"ZDIFF", "2", "{z}a", "{z}b", "WITHSCORES"}, {"ZDIFF", "2", "{z}a", "{z}b"},
	}},
	{name: "types/zdiffstore", setup: zsetsSetup, cmds: [][]string{
		{"ZDIFFSTORE", "{z}d", "2", "{z}a", "{z}b"}, {"ZRANGE", "{z}d", "0", "-1", "WITHSCORES"},
		{"ZDIFFSTORE", "{z}d", "2", "{z}a", "{z}a"}, {"EXISTS", "{z}d"},
		{"ZDIFFSTORE", "{z}d", "2", "{z}a", "{z}b", "WITHSCORES"}, {"ZDIFFSTORE", "{z}str", "2", "{z}s", "{z}b"}, {"TYPE", "{z}str"},
		{"ZDIFFSTORE", "{z}d", "2", "{z}str", "{z}b"},
	}},
	{name: "types/zintercard", setup: zsetsSetup, cmds: [][]string{
		{"ZINTERCARD", "2", "{z}a", "{z}b"}, {"ZINTERCARD", "2", "{z}a", "{z}s"}, {"ZINTERCARD", "2", "{z}a", "{z}none"},
		{"ZINTERCARD", "1", "{z}a", "LIMIT", "2"}, {"ZINTERCARD", "1", "{z}a", "limit", "0"}, {"ZINTERCARD", "1", "{z}a", "LIMIT", "-1"},
		{"ZINTERCARD", "1", "{z}a", "LIMIT", "x"}, {"ZINTERCARD", "1", "{z}a", "LIMIT"}, {"ZINTERCARD", "1", "{z}a", "foo", "1"},
		{"ZINTERCARD", "2", "{z}a", "{z}str", "LIMIT", "x"}, {"ZINTERCARD", "0", "{z}a"}, {"ZINTERCARD", "1", "{z}a", "LIMIT", "1", "LIMIT", "0"},
	}},
	{name: "types/zadd-incr-gt-lt", setup: zsetsSetup, cmds: [][]string{
		{"ZADD", "{z}a", "LT", "INCR", "1", "x"}, {"ZADD", "{z}a", "GT", "INCR", "-1", "x"}, {"ZADD", "{z}a", "GT", "INCR", "1", "x"},
		{"ZADD", "{z}a", "LT", "INCR", "1", "new"}, {"ZADD", "{z}pinf", "LT", "INCR", "1", "m"}, {"ZADD", "{z}ninf", "GT", "INCR", "-1", "m"},
		{"ZRANGE", "{z}a", "0", "-1", "WITHSCORES"}, {"ZSCORE", "{z}pinf", "m"},
	}},
	{name: "types/zunion-zinter-no-nan", setup: zsetsSetup, cmds: [][]string{
		{"ZUNIONSTORE", "{z}u", "2", "{z}pinf", "{z}ninf"}, {"ZSCORE", "{z}u", "m"},
		{"ZUNIONSTORE", "{z}u", "1", "{z}ninf", "WEIGHTS", "0"}, {"ZSCORE", "{z}u", "m"},
		{"ZINTERSTORE", "{z}u", "2", "{z}pinf", "{z}ninf"}, {"ZSCORE", "{z}u", "m"},
		{"ZINTER", "2", "{z}pinf", "{z}ninf", "WEIGHTS", "1", "0", "WITHSCORES"},
		{"ZUNION", "2", "{z}pinf", "{z}ninf", "AGGREGATE", "MAX", "WITHSCORES"},
	}},
	{name: "types/score-format", setup: [][]string{{"ZADD", "z", "0.1", "a", "1.5e-7", "b", "1e17", "c", "-0", "d", "123456.789", "e"}}, cmds: [][]string{
		{"ZINCRBY", "z", "9223372036854775807", "f"}, {"ZADD", "z", "INCR", "1.2", "g"}, {"ZADD", "z", "INCR", "1.2", "g"},
		{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"ZSCORE", "z", "a"}, {"ZMSCORE", "z", "b", "c", "none"},
		{"ZPOPMIN", "z"}, {"ZADD", "z", "+inf", "i"}, {"ZSCORE", "z", "i"}, {"ZINCRBY", "z", "-0", "new"}, {"ZSCORE", "z", "new"},
	}},
	{name: "types/score-format-resp3", resp3: true, setup: [][]string{{"ZADD", "z", "0.1", "a", "1e17", "c", "-inf", "n"}}, cmds: [][]string{
		{"ZSCORE", "z", "a"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"ZINCRBY", "z", "9223372036854775807", "f"},
	}},
	{name: "types/move-copy-db-index", setup: [][]string{{"SET", "k", "v"}}, cmds: [][]string{
		{"MOVE", "k", "9223372036854775807"}, {"MOVE", "k", "2147483648"}, {"MOVE", "k", "01"}, {"MOVE", "k", "-1"},
		{"MOVE", "k", "16"}, {"MOVE", "k", "9223372036854775808"}, {"COPY", "k", "k2", "DB", "2147483648"},
		{"COPY", "k", "k2", "DB", "-2147483649"}, {"COPY", "k", "k2", "DB", "01"}, {"COPY", "k", "k2", "DB", "16"}, {"COPY", "k", "k2", "DB", "x"},
	}},
	{name: "types/hrandfield-resp3", resp3: true, setup: [][]string{{"HSET", "h", "f", "v"}}, cmds: [][]string{
		{"HRANDFIELD", "h", "1", "WITHVALUES"}, {"HRANDFIELD", "h", "-3", "WITHVALUES"}, {"HRANDFIELD", "h", "-2"}, {"HRANDFIELD", "none", "2", "WITHVALUES"},
	}},
	// In RESP2 the in-process target reads a null array and a null bulk
	// string alike, so only BLMOVE's and BRPOPLPUSH's nulls are compared.
	{name: "types/blocking-in-multi", cmds: append([][]string{
		{"MULTI"}, {"BLMOVE", "l", "m", "LEFT", "LEFT", "0"}, {"BRPOPLPUSH", "l", "m", "0"}, {"EXEC"}}, blockingInMulti[8:]...)},
	{name: "types/blocking-in-multi-resp3", resp3: true, cmds: blockingInMulti},
	{name: "types/incrbyfloat-long-double", setup: [][]string{{"SET", "f", "500.1"}, {"HSET", "h", "f", "500.1"}, {"SET", "big", "100000000000000000000"}}, cmds: [][]string{
		{"INCRBYFLOAT", "f", "12"}, {"HINCRBYFLOAT", "h", "f", "12"}, {"INCRBYFLOAT", "big", "1"},
		{"INCRBYFLOAT", "z", "0.024390243902439025"}, {"INCRBYFLOAT", "z", "-0.024390243902439025"}, {"GET", "z"},
		{"HINCRBYFLOAT", "h", "z", "0.024390243902439025"}, {"HINCRBYFLOAT", "h", "z", "-0.024390243902439025"},
		{"INCRBYFLOAT", "e", "1e30"}, {"INCRBYFLOAT", "e", "1"},
	}},
}
