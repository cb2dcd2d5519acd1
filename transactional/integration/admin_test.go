package integration

import (
	"strconv"
	"strings"
	"testing"
)

// The admin surface Redis's own test suite needs (issue 28): CONFIG,
// maxmemory's and min-replicas-to-write's refusals, DEBUG, OBJECT and
// SORT, against a redis-server that serves DEBUG. CONFIG outlives a
// case's reset, so a case that sets a parameter sets it back last.
var adminCases = []tcase{
	{name: "config/get", cmds: [][]string{
		cmd("CONFIG", "GET", "maxmemory"), cmd("CONFIG", "GET", "list-max-ziplist-size"),
		cmd("CONFIG", "GET", "zset-max-listpack-entries"), cmd("CONFIG", "GET", "set-max-intset-entries"),
		cmd("CONFIG", "GET", "maxmemory-policy"), cmd("CONFIG", "GET", "no-such-parameter"),
	}},
	{name: "config/get-resp3", resp3: true, cmds: [][]string{cmd("CONFIG", "GET", "hash-max-listpack-value")}},
	{name: "config/set-get", cmds: [][]string{
		cmd("CONFIG", "SET", "maxmemory", "10mb"), cmd("CONFIG", "GET", "maxmemory"),
		cmd("CONFIG", "SET", "maxmemory", "2K"), cmd("CONFIG", "GET", "maxmemory"),
		cmd("CONFIG", "SET", "maxmemory-policy", "ALLKEYS-LRU"), cmd("CONFIG", "GET", "maxmemory-policy"),
		cmd("CONFIG", "SET", "lua-time-limit", "100", "zset-max-ziplist-value", "10"),
		cmd("CONFIG", "GET", "busy-reply-threshold"), cmd("CONFIG", "GET", "zset-max-listpack-value"),
		cmd("CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction", "busy-reply-threshold", "5000", "zset-max-listpack-value", "64"),
		cmd("CONFIG", "RESETSTAT"),
	}},
	{name: "config/set-errors", cmds: [][]string{
		cmd("CONFIG", "SET", "maxmemory", "lots"), cmd("CONFIG", "SET", "no-such-parameter", "1"),
		cmd("CONFIG", "SET", "maxmemory-policy", "sometimes"), cmd("CONFIG", "SET", "databases", "4"),
		cmd("CONFIG", "SET", "maxmemory", "1", "maxmemory", "2"), cmd("CONFIG", "SET", "hash-max-listpack-entries", "-1"),
		cmd("CONFIG", "SET", "appendonly", "maybe"), cmd("CONFIG", "SET", "maxmemory-samples", "1000"),
		cmd("CONFIG", "SET", "maxmemory"), cmd("CONFIG", "SET", "maxmemory", "1", "hz"),
		cmd("CONFIG", "FOO"), cmd("CONFIG"), cmd("CONFIG", "GET"), cmd("CONFIG", "GET", "maxmemory"),
	}},
	{name: "config/help", cmds: [][]string{cmd("CONFIG", "HELP")}},

	// maxmemory 1 is past any server's use: every write is refused.
	{name: "oom/writes", setup: [][]string{{"SET", "x", "123"}}, cmds: [][]string{
		cmd("CONFIG", "SET", "maxmemory", "1"),
		cmd("SET", "x", "1"), cmd("GET", "x"), cmd("DEL", "x"), cmd("INCR", "n"),
		ev("redis.call('set','x',1) return 1", 1, "x"),
		ev("return redis.call('get','x')", 1, "x"),
		ev("#!lua\nreturn 1", 0),
		ev("#!lua flags=allow-oom\nredis.call('set','x',1) return 1", 1, "x"),
		ev("#!lua flags=no-writes\nreturn redis.call('get','x')", 1, "x"),
		cmd("EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('get','x')", "1", "x"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"),
		cmd("MULTI"), cmd("GET", "x"), cmd("EXEC"),
		cmd("CONFIG", "SET", "maxmemory", "0"),
		cmd("SET", "x", "2"),
	}},
	{name: "oom/functions", setup: [][]string{
		{"FUNCTION", "LOAD", "#!lua name=lib\n" +
			"redis.register_function{function_name='w', callback=function(k) return redis.call('set', k[1], 1) end}\n" +
			"redis.register_function{function_name='oom', callback=function(k) return redis.call('set', k[1], 1) end, flags={'allow-oom'}}\n" +
			"redis.register_function{function_name='ro', callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}"},
	}, cmds: [][]string{
		cmd("CONFIG", "SET", "maxmemory", "1"),
		cmd("FCALL", "w", "1", "x"), cmd("FCALL", "oom", "1", "x"), cmd("FCALL", "ro", "1", "x"), cmd("FCALL_RO", "ro", "1", "x"),
		cmd("CONFIG", "SET", "maxmemory", "0"),
	}},
	// A real limit: two 3 MB values take any server from its own ~1 MB
	// past 5 MB; the second fits, the third is refused. SETRANGE makes
	// them: a 3 MB argument would count in Redis's query buffer.
	{name: "oom/estimate", cmds: [][]string{
		cmd("CONFIG", "SET", "maxmemory", "5mb"),
		cmd("SETRANGE", "k1", strconv.Itoa(3<<20), "a"), cmd("SETRANGE", "k2", strconv.Itoa(3<<20), "b"),
		cmd("SET", "k3", "c"), cmd("DEL", "k2"), cmd("SET", "k3", "c"),
		cmd("CONFIG", "SET", "maxmemory", "0"),
	}},
	{name: "noreplicas", setup: [][]string{{"SET", "x", "v"}}, cmds: [][]string{
		cmd("CONFIG", "SET", "min-replicas-to-write", "1"),
		cmd("SET", "x", "1"), cmd("GET", "x"),
		ev("return redis.call('get','x')", 1, "x"),
		ev("return redis.call('set','x',1)", 1, "x"),
		ev("#!lua\nreturn redis.call('get','x')", 1, "x"),
		ev("#!lua flags=no-writes\nreturn redis.call('get','x')", 1, "x"),
		cmd("CONFIG", "SET", "min-replicas-to-write", "0"),
	}},

	{name: "debug/deny-scripts", cmds: [][]string{
		ev("return redis.call('debug','protocol','integer')", 0),
		cmd("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"),
		ev("return redis.call('debug','protocol','integer')", 0),
		ev("return redis.call('debug','protocol','map')", 0),
		ev("redis.setresp(3) return redis.call('debug','protocol','bignum')", 0),
		ev("redis.setresp(3) return redis.call('debug','protocol','attrib')", 0),
		cmd("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"),
		ev("return redis.call('debug','protocol','integer')", 0),
	}},
	{name: "debug/protocol-resp2", cmds: debugProtocols()},
	{name: "debug/protocol-resp3", resp3: true, cmds: debugProtocols()},
	{name: "debug/reload", setup: [][]string{
		{"SET", "s", "v"}, {"RPUSH", "l", "a", "b"}, {"SADD", "set", "1", "x"}, {"HSET", "h", "f", "v"},
		{"ZADD", "z", "1.5", "m"}, {"XADD", "st", "1-1", "f", "v"}, {"SET", "t", "v", "EX", "1000"},
		{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 'hello' end)"},
	}, cmds: [][]string{
		cmd("DEBUG", "RELOAD"), cmd("FCALL", "f", "0"), cmd("DBSIZE"), cmd("TTL", "t"),
		cmd("DEBUG", "RELOAD", "NOFLUSH"), cmd("DEBUG", "RELOAD", "NOFLUSH", "MERGE"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('g', function() return 'g' end)"),
		cmd("SET", "s", "changed"),
		cmd("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE"), cmd("GET", "s"), cmd("FCALL", "g", "0"), cmd("FCALL", "f", "0"),
		cmd("DEBUG", "RELOAD", "BOGUS"),
	}},
	// Digests are compared with each other, as Redis's tests do: equal for
	// a copy, different after a change, zeros for no key.
	{name: "debug/digest", setup: [][]string{{"RPUSH", "l", "a", "b"}, {"COPY", "l", "l2"}, {"ZADD", "z", "1", "a", "2", "b"}, {"COPY", "z", "z2"}}, cmds: [][]string{
		cmd("DEBUG", "DIGEST-VALUE", "nokey"),
		cmd("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"),
		ev(`local function d(k) return redis.call('debug', 'digest-value', k)[1].ok end
			local same = {d('l') == d('l2'), d('z') == d('z2'), d('l') == d('z')}
			redis.call('rpush', 'l2', 'c')
			same[4] = d('l') == d('l2')
			return same`, 0),
		cmd("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"),
	}},
	{name: "debug/object-sleep", setup: [][]string{{"SET", "s", "12"}}, cmds: [][]string{
		cmd("DEBUG", "OBJECT", "missing"), cmd("DEBUG", "SLEEP", "0"), cmd("DEBUG", "SET-ACTIVE-EXPIRE", "1"),
		cmd("DEBUG", "JMAP"), cmd("DEBUG", "CHANGE-REPL-ID"), cmd("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100"),
	}},

	{name: "object/encodings", setup: [][]string{
		{"SET", "int", "12345"}, {"SET", "emb", "hello"}, {"SET", "raw", strings.Repeat("r", 45)}, {"SET", "neg", "-7"}, {"SET", "lead0", "012"},
		{"RPUSH", "l", "a"}, {"SADD", "si", "1", "2", "-3"}, {"SADD", "ss", "a"},
		{"HSET", "h", "a", "b"}, {"HSET", "hbig", "a", strings.Repeat("v", 65)},
		{"ZADD", "z", "1", "a"}, {"ZADD", "zbig", "1", strings.Repeat("m", 65)}, {"XADD", "st", "1-1", "f", "v"},
	}, cmds: [][]string{
		cmd("OBJECT", "ENCODING", "int"), cmd("OBJECT", "ENCODING", "emb"), cmd("OBJECT", "ENCODING", "raw"),
		cmd("OBJECT", "ENCODING", "neg"), cmd("OBJECT", "ENCODING", "lead0"),
		cmd("OBJECT", "ENCODING", "l"), cmd("OBJECT", "ENCODING", "si"), cmd("OBJECT", "ENCODING", "ss"),
		cmd("OBJECT", "ENCODING", "h"), cmd("OBJECT", "ENCODING", "hbig"), cmd("OBJECT", "ENCODING", "z"),
		cmd("OBJECT", "ENCODING", "zbig"), cmd("OBJECT", "ENCODING", "st"), cmd("OBJECT", "ENCODING", "missing"),
		cmd("OBJECT", "REFCOUNT", "int"), cmd("OBJECT", "REFCOUNT", "emb"), cmd("OBJECT", "REFCOUNT", "neg"),
		cmd("OBJECT", "FREQ", "emb"), cmd("OBJECT", "ENCODING"), cmd("OBJECT", "BOGUS", "x"),
		cmd("OBJECT", "HELP"),
	}},
	{name: "object/thresholds", cmds: [][]string{
		cmd("CONFIG", "SET", "zset-max-ziplist-entries", "2", "hash-max-listpack-entries", "1", "set-max-intset-entries", "2"),
		cmd("ZADD", "z", "1", "a", "2", "b"), cmd("OBJECT", "ENCODING", "z"),
		cmd("ZADD", "z2", "1", "a", "2", "b", "3", "c"), cmd("OBJECT", "ENCODING", "z2"),
		cmd("HSET", "h", "a", "1", "b", "2"), cmd("OBJECT", "ENCODING", "h"),
		cmd("SADD", "s", "1", "2", "3"), cmd("OBJECT", "ENCODING", "s"),
		cmd("CONFIG", "SET", "zset-max-ziplist-entries", "128", "hash-max-listpack-entries", "128", "set-max-intset-entries", "512"),
	}},

	{name: "sort/basic", setup: [][]string{
		{"RPUSH", "l", "3", "1", "10", "2"}, {"SADD", "s", "5", "-1", "3.5"}, {"ZADD", "z", "1", "b", "2", "a"},
		{"RPUSH", "words", "banana", "apple", "cherry"}, {"SET", "str", "x"},
	}, cmds: [][]string{
		cmd("SORT", "l"), cmd("SORT", "l", "DESC"), cmd("SORT", "l", "ALPHA"), cmd("SORT", "l", "LIMIT", "1", "2"),
		cmd("SORT", "l", "LIMIT", "-5", "2"), cmd("SORT", "l", "LIMIT", "10", "2"), cmd("SORT", "l", "LIMIT", "1", "-1"),
		cmd("SORT", "s"), cmd("SORT", "z"), cmd("SORT", "z", "ALPHA"), cmd("SORT", "z", "BY", "nosort"),
		cmd("SORT", "words"), cmd("SORT", "words", "ALPHA", "DESC"), cmd("SORT", "str"), cmd("SORT", "missing"),
		cmd("SORT", "l", "LIMIT", "x", "1"), cmd("SORT", "l", "BOGUS"), cmd("SORT_RO", "l", "STORE", "d"),
		cmd("SORT_RO", "l", "DESC"), cmd("SORT", "l", "BY", "nosort"),
	}},
	{name: "sort/by-get-store", setup: [][]string{
		{"RPUSH", "ids", "1", "2", "3"}, {"SET", "w_1", "30"}, {"SET", "w_2", "10"}, {"SET", "w_3", "20"},
		{"SET", "name_1", "one"}, {"SET", "name_3", "three"},
		{"HSET", "obj_1", "n", "x1"}, {"HSET", "obj_2", "n", "x2"},
	}, cmds: [][]string{
		cmd("SORT", "ids", "BY", "w_*"), cmd("SORT", "ids", "BY", "w_*", "DESC", "GET", "#", "GET", "name_*"),
		cmd("SORT", "ids", "BY", "name_*", "ALPHA"), cmd("SORT", "ids", "GET", "obj_*->n", "GET", "nokey"),
		cmd("SORT", "ids", "BY", "w_*", "STORE", "dst"), cmd("LRANGE", "dst", "0", "-1"),
		cmd("SORT", "ids", "GET", "name_*", "STORE", "dst2"), cmd("LRANGE", "dst2", "0", "-1"),
		cmd("SORT", "missing", "STORE", "dst"), cmd("EXISTS", "dst"), cmd("SORT", "words", "BY", "w_*"),
	}},
	{name: "sort/in-scripts", setup: [][]string{
		{"SADD", "myset", "d", "a", "c", "b", "e", "aa"}, {"SADD", "nums", "1", "2", "3", "4", "10"},
	}, cmds: [][]string{
		ev("return redis.call('sort', KEYS[1], 'desc')", 1, "nums"),
		ev("return redis.call('sort', KEYS[1], 'by', '_')", 1, "myset"),
		ev("return redis.call('sort', KEYS[1], 'by', '_', 'get', '#', 'get', '_:*')", 1, "myset"),
		cmd("SORT", "myset", "BY", "_", "STORE", "out"), cmd("LRANGE", "out", "0", "-1"),
		ev("return redis.call('sort', KEYS[1], 'store', KEYS[2])", 2, "nums", "out2"),
		cmd("EVAL_RO", "return redis.call('sort_ro', KEYS[1])", "1", "nums"),
		cmd("EVAL_RO", "return redis.call('sort', KEYS[1])", "1", "nums"),
	}},
}

// Counts no reply could hold. HRANDFIELD's: serve built it field by field and served
// nothing else (Redis's suite, type/hash "HRANDFIELD count overflow").
var randCountCases = []tcase{
	{name: "hrandfield/count-overflow", setup: [][]string{{"HSET", "h", "a", "1"}}, cmds: [][]string{
		cmd("HRANDFIELD", "h", "-9223372036854770000", "WITHVALUES"),
		cmd("HRANDFIELD", "h", "-9223372036854775808", "WITHVALUES"),
		cmd("HRANDFIELD", "h", "-9223372036854775808"),
		cmd("HRANDFIELD", "h", "-3"),
	}},
	// ZRANDMEMBER's: serve ran out of memory and died (type/zset
	// "ZRANDMEMBER count overflow").
	{name: "zrandmember/count-overflow", setup: [][]string{{"ZADD", "z", "0", "a"}}, cmds: [][]string{
		cmd("ZRANDMEMBER", "z", "-9223372036854770000", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "9223372036854770000", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "-9223372036854775808", "WITHSCORES"),
		cmd("ZRANDMEMBER", "z", "-9223372036854775808"),
		cmd("ZRANDMEMBER", "nokey", "-9223372036854775808"),
		cmd("ZRANDMEMBER", "z", "-3"),
	}},
}

func debugProtocols() [][]string {
	var out [][]string
	for _, p := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map", "true", "false", "verbatim", "bogus"} {
		out = append(out, cmd("DEBUG", "PROTOCOL", p))
	}
	return out
}

func TestAdmin(t *testing.T) {
	real, tcp, do := differentialTargets(t, "enable-debug-command yes")
	compareCases(t, append(adminCases, randCountCases...), real, []target{tcp, do})
}

// ACL users as far as scripts check them: the suite's "Script ACL check"
// and the refusals around it. AUTH switches the case's connection to bob.
var aclCases = []tcase{
	{name: "acl/script-check", cmds: [][]string{
		cmd("ACL", "SETUSER", "bob", "on", ">123", "+@scripting", "+set", "+get", "~x*"),
		cmd("ACL", "WHOAMI"), cmd("AUTH", "bob", "wrong"), cmd("AUTH", "bob", "123"), cmd("ACL", "WHOAMI"),
		ev("return redis.acl_check_cmd('set','xx',1)", 1, "xx"),
		ev("return redis.acl_check_cmd('hset','xx','f',1)", 1, "xx"),
		ev("return redis.acl_check_cmd('set','yy',1)", 0),
		ev("return redis.acl_check_cmd('invalid-cmd','arg')", 0),
		ev("return redis.call('set','xx',1)", 1, "xx"),
		ev("return redis.pcall('hset','xx','f',1)", 1, "xx"),
		ev("return redis.pcall('set','yy',1)", 0),
		cmd("SET", "x1", "v"), cmd("GET", "x1"), cmd("HSET", "x2", "f", "v"), cmd("SET", "other", "v"),
		cmd("AUTH", "default", "nopass"),
	}},
	{name: "acl/users", cmds: [][]string{
		cmd("ACL", "SETUSER", "alice", "on", "nopass", "+@all", "~*"), cmd("ACL", "SETUSER", "carol", "bogus-rule"),
		cmd("ACL", "SETUSER", "dave", "+nosuchcommand"), cmd("ACL", "USERS"),
		cmd("ACL", "DRYRUN", "alice", "set", "k", "v"), cmd("ACL", "DRYRUN", "nobody", "get", "k"),
		cmd("ACL", "DELUSER", "alice", "nobody"), cmd("ACL", "DELUSER", "default"), cmd("ACL", "USERS"),
		cmd("ACL", "DELUSER", "bob"),
	}},
}

func TestACL(t *testing.T) {
	real, tcp, _ := differentialTargets(t)
	// Through Do the engine is its own process, always the default user.
	compareCases(t, aclCases, real, []target{tcp})
}
