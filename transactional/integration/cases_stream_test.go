package integration

// Cases of Redis 7.0's streams that Redis's own suite (tests/unit/type/
// stream.tcl) found the engine without: approximate trimming by whole
// nodes, IDs checked against the stream's last ID, XSETID, XINFO
// STREAM's 7.0 fields, and exclusive range bounds with nothing past them.
func init() {
	cases = append(cases, streamCases...)
	cases = append(cases, streamIDCases...)
	cases = append(cases, streamGroupCases...)
}

// xinfoStream is XINFO STREAM with its arguments, radix-tree-nodes left
// out: the engine estimates it (the radix tree's shape is Redis's).
func xinfoStream(key string, opts ...string) []string {
	return ev("local r = redis.call('XINFO', 'STREAM', KEYS[1], unpack(ARGV)) r[6] = 0 return r", 1, append([]string{key}, opts...)...)
}

// xaddMany adds entries 1-1 … n-1 to key.
func xaddMany(key, n string) []string {
	return ev("for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], i .. '-1', 'f', 'v') end", 1, key, n)
}

var streamCases = []tcase{
	{name: "stream/approx-trim-nodes", setup: [][]string{{"CONFIG", "SET", "stream-node-max-entries", "10"}, xaddMany("s", "100")},
		cmds: [][]string{
			cmd("XADD", "s", "MAXLEN", "~", "55", "LIMIT", "30", "101-1", "f", "v"), cmd("XLEN", "s"),
			cmd("XADD", "s", "MAXLEN", "~", "55", "LIMIT", "30", "102-1", "f", "v"), cmd("XLEN", "s"),
			cmd("XTRIM", "s", "MAXLEN", "~", "15"), cmd("XLEN", "s"),
			cmd("XDEL", "s", "95-1", "96-1", "99-1"), cmd("XTRIM", "s", "MINID", "~", "98"), cmd("XLEN", "s"),
			cmd("XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "1"), cmd("XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "0"), cmd("XLEN", "s"),
			xaddMany("t", "25"), cmd("XTRIM", "t", "MAXLEN", "=", "13"), cmd("XTRIM", "t", "MAXLEN", "~", "3"), cmd("XRANGE", "t", "-", "+"),
			xinfoStream("t"), cmd("CONFIG", "SET", "stream-node-max-entries", "1"), xaddMany("u", "150"),
			cmd("XTRIM", "u", "MAXLEN", "~", "1"), cmd("XLEN", "u"), cmd("XTRIM", "u", "MINID", "~", "200"), cmd("XLEN", "u"),
			cmd("CONFIG", "SET", "stream-node-max-entries", "100"),
			xaddMany("v", "150"), cmd("XADD", "v", "MAXLEN", "~", "10", "151-1", "f", "v"), cmd("XLEN", "v"),
			ev("for i = 1, 60 do redis.call('XADD', KEYS[1], 'MAXLEN', '~', 50, i .. '-1', 'f', 'v') end return redis.call('XLEN', KEYS[1])", 1, "w"),
		}},
	{name: "stream/ids-against-last-id", cmds: [][]string{
		cmd("XADD", "s", "123-456", "f", "v"), cmd("XADD", "s", "42-*", "f", "v"), cmd("XADD", "s", "123-*", "f", "v"),
		cmd("XDEL", "s", "123-457"), cmd("XADD", "s", "123-457", "f", "v"), cmd("XADD", "s", "123-458", "f", "v"),
		cmd("XADD", "x", "1-18446744073709551615", "f", "v"), cmd("XADD", "x", "1-*", "f", "v"), cmd("XADD", "x", "2-*", "f", "v"),
		cmd("XADD", "y", "0-*", "f", "v"), cmd("XADD", "y", "0-*", "f", "v"),
		cmd("XADD", "z", "18446744073709551615-18446744073709551615", "f", "v"), cmd("XADD", "z", "*", "f", "v"),
		cmd("XADD", "z", "18446744073709551615-*", "f", "v"), cmd("XADD", "z", "1-1", "f", "v"),
		cmd("XDEL", "s", "123", "123-458", "x"), cmd("XDEL", "s", "123-456"), cmd("XRANGE", "s", "-", "+"), xinfoStream("s"),
	}},
	{name: "stream/xsetid", setup: [][]string{{"XADD", "s", "MAXLEN", "0", "1-1", "a", "b"}, {"SET", "str", "v"}},
		cmds: [][]string{
			cmd("XSETID", "s", "200-0"), xinfoStream("s"), cmd("XADD", "s", "300-1", "a", "b"), cmd("XSETID", "s", "1-1"),
			cmd("XSETID", "none", "1-1"), cmd("XSETID", "s", "1-1", "0"), cmd("XSETID", "s", "1-1", "0-0"),
			cmd("XSETID", "s", "1-1", "ENTRIESADDED", "-1", "MAXDELETEDID", "0-0"), cmd("XSETID", "s", "400-0", "ENTRIESADDED", "1", "MAXDELETEDID", "500-0"),
			cmd("XSETID", "s", "400-0", "ENTRIESADDED", "0", "MAXDELETEDID", "0-0"), cmd("XSETID", "s", "400-0", "ENTRIESADDED", "x"),
			cmd("XSETID", "s", "+"), cmd("XSETID", "s", "400-*"), cmd("XSETID", "str", "1-1"), cmd("XSETID", "s", "400", "entriesadded", "9", "maxdeletedid", "350"),
			xinfoStream("s"), xinfoStream("s", "FULL"), xinfoStream("s", "FULL", "COUNT", "0"), cmd("XADD", "s", "400-0", "a", "b"), cmd("XADD", "s", "400-*", "a", "b"),
			cmd("XINFO", "STREAM", "s", "FULL", "COUNT"), cmd("XINFO", "STREAM", "s", "FOO"), cmd("XINFO", "STREAM", "s", "FULL", "COUNT", "x"),
			cmd("XGROUP", "HELP", "x"), cmd("XINFO", "HELP", "x"), cmd("XINFO", "GROUPS", "s", "x"),
			ev("return redis.pcall('XSETID', KEYS[1], '1-1')", 1, "s"),
		}},
	{name: "stream/first-and-max-deleted", setup: [][]string{xaddMany("x", "5")},
		cmds: [][]string{
			cmd("XDEL", "x", "2-1"), xinfoStream("x", "FULL"), cmd("XDEL", "x", "1-1"), xinfoStream("x", "FULL"),
			cmd("XTRIM", "x", "MAXLEN", "=", "2"), xinfoStream("x", "FULL"), cmd("XDEL", "x", "4-1", "5-1"), xinfoStream("x"),
		}},
	{name: "stream/xrange-exclusive-edges", setup: [][]string{{"XADD", "s", "0-1", "f", "v"}, {"XADD", "s", "1-0", "f", "v"}, {"XADD", "s", "18446744073709551615-18446744073709551615", "f", "v"}},
		cmds: [][]string{
			cmd("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"), cmd("XRANGE", "s", "-", "(0-0"),
			cmd("XREVRANGE", "s", "(0-0", "-"), cmd("XREVRANGE", "s", "+", "(18446744073709551615-18446744073709551615"),
			cmd("XREVRANGE", "s", "(0-0", "(18446744073709551615-18446744073709551615"), cmd("XRANGE", "s", "(18446744073709551615-18446744073709551615", "(0-0"),
			cmd("XRANGE", "s", "(0-1", "(1-0"), cmd("XRANGE", "s", "(0-1", "+"), cmd("XREVRANGE", "s", "(18446744073709551615-18446744073709551615", "(0-1"),
			cmd("XRANGE", "none", "-", "(0-0"),
		}},
}

// streamIDCases: IDs as Redis's string2ull reads their parts (strtoull's
// '+', "-0" and leading blanks), XRANGE's IDs before its COUNTs.
var streamIDCases = []tcase{
	{name: "stream/ids-as-strtoull", setup: [][]string{{"XADD", "s", "1-1", "f", "v"}, {"XADD", "s", "2-0", "f", "v"}, {"HSET", "h", "f", "v"}},
		cmds: [][]string{
			cmd("XADD", "s", "+3", "f", "v"), cmd("XADD", "s", "4-+1", "f", "v"), cmd("XADD", "s", " 5", "f", "v"), cmd("XADD", "s", "-0", "f", "v"),
			cmd("XADD", "s", "6-1-1", "f", "v"), cmd("XADD", "s", "7- 1", "f", "v"), cmd("XADD", "s", "1 ", "f", "v"), cmd("XADD", "h", "NOMKSTREAM", "+1", "f", "v"),
			cmd("XDEL", "s", "+1-1", "x"), cmd("XDEL", "s", "+2", "-0-0"), cmd("XTRIM", "s", "MINID", "+4"), cmd("XRANGE", "s", "+3", "+"),
			cmd("XRANGE", "s", "x", "-1", "COUNT", "01"), cmd("XREVRANGE", "s", "2", "-0", "count", "1.5"), cmd("XRANGE", "s", "-", "+", "COUNT", "1", "COUNT", "2"),
			cmd("XRANGE", "s", "-", "+", "COUNT"), cmd("XRANGE", "s", "-", "+", "COUNT", "-1"), cmd("XRANGE", "none", "-", "+", "COUNT", "0"),
			cmd("XREVRANGE", "h", "+", "-", "COUNT", "0"), cmd("XRANGE", "s", "(", "+"), cmd("XRANGE", "s", "(-", "+"), cmd("XRANGE", "s", "(+3", "+"),
			cmd("XRANGE", "s", "1-18446744073709551616", "+"), cmd("XRANGE", "s", "-18446744073709551615", "+"),
			ev("return redis.pcall('XRANGE', KEYS[1], '-', '+', 'COUNT', 0)", 1, "s"),
		}},
}

// streamGroupCases: consumer groups' read counters and lag, XGROUP
// CREATE's and SETID's ENTRIESREAD, and XAUTOCLAIM's deleted entries, from
// Redis's stream-cgroups.tcl.
var streamGroupCases = []tcase{
	{name: "stream/group-read-counter-and-lag", setup: [][]string{xaddMany("x", "5")},
		cmds: [][]string{
			cmd("XGROUP", "CREATE", "x", "g1", "0"), cmd("XINFO", "GROUPS", "x"),
			cmd("XREADGROUP", "GROUP", "g1", "c11", "COUNT", "1", "STREAMS", "x", ">"), cmd("XINFO", "GROUPS", "x"),
			cmd("XREADGROUP", "GROUP", "g1", "c11", "STREAMS", "x", ">"), cmd("XINFO", "GROUPS", "x"),
			cmd("XADD", "x", "6-1", "f", "v"), cmd("XINFO", "GROUPS", "x"),
			cmd("XDEL", "x", "3-1"), cmd("XGROUP", "CREATE", "x", "g2", "0"), cmd("XINFO", "GROUPS", "x"),
			cmd("XREADGROUP", "GROUP", "g2", "c", "COUNT", "1", "STREAMS", "x", ">"), cmd("XINFO", "GROUPS", "x"),
			cmd("XREADGROUP", "GROUP", "g2", "c", "COUNT", "2", "STREAMS", "x", ">"), cmd("XINFO", "GROUPS", "x"),
			cmd("XGROUP", "SETID", "x", "g2", "0", "ENTRIESREAD", "0"), cmd("XINFO", "GROUPS", "x"),
			cmd("XGROUP", "SETID", "x", "g2", "$"), cmd("XINFO", "GROUPS", "x"),
			cmd("XGROUP", "CREATE", "x", "g3", "$", "ENTRIESREAD", "3"), cmd("XGROUP", "CREATE", "x", "g4", "0", "ENTRIESREAD", "-2"),
			cmd("XGROUP", "CREATE", "x", "g4", "0", "ENTRIESREAD", "x"), cmd("XGROUP", "CREATE", "x", "g4", "0", "FOO"),
			cmd("XGROUP", "SETID", "x", "g1", "0", "MKSTREAM"), cmd("XGROUP", "SETID", "x", "nosuch", "0"), cmd("XGROUP", "SETID", "none", "g", "0"),
			cmd("XGROUP", "SETID", "x", "g1", "-"), cmd("XGROUP", "CREATE", "x", "g5", "-"), cmd("XGROUP", "CREATE", "none", "g", "$", "MKSTREAM", "ENTRIESREAD", "0"),
			cmd("XINFO", "GROUPS", "x"), cmd("XINFO", "GROUPS", "none"), xinfoStream("none", "FULL"),
		}},
	{name: "stream/group-lag-empty", cmds: [][]string{
		cmd("XGROUP", "CREATE", "x", "g1", "$", "MKSTREAM"), cmd("XINFO", "GROUPS", "x"), cmd("XADD", "x", "1-0", "data", "a"),
		cmd("XDEL", "x", "1-0"), cmd("XINFO", "GROUPS", "x"), xinfoStream("x", "FULL"),
	}},
	{name: "stream/xautoclaim-deleted", setup: [][]string{{"XADD", "x", "1-0", "f", "v"}, {"XADD", "x", "2-0", "f", "v"}, {"XADD", "x", "3-0", "f", "v"},
		{"XGROUP", "CREATE", "x", "grp", "0"}, {"XREADGROUP", "GROUP", "grp", "Alice", "STREAMS", "x", ">"}, {"SET", "str", "v"}},
		cmds: [][]string{
			cmd("XDEL", "x", "2-0"), cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "0-0", "COUNT", "1"), cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "0-0", "JUSTID"),
			cmd("XPENDING", "x", "grp"), cmd("XDEL", "x", "1-0", "3-0"), cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "(0-0", "COUNT", "1"),
			cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "0-0", "COUNT", "0"), cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "0-0", "COUNT", "8070450532247928833"),
			cmd("XAUTOCLAIM", "x", "grp", "Bob", "x", "0-0"), cmd("XAUTOCLAIM", "x", "grp", "Bob", "-1", "x"), cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "0-0", "FOO"),
			cmd("XAUTOCLAIM", "none", "grp", "Bob", "0", "0-0"), cmd("XAUTOCLAIM", "x", "nogrp", "Bob", "0", "0-0"), cmd("XAUTOCLAIM", "str", "grp", "Bob", "0", "0-0"),
			cmd("XAUTOCLAIM", "x", "grp", "Bob", "0", "(18446744073709551615-18446744073709551615"), cmd("XPENDING", "x", "grp"), cmd("XINFO", "GROUPS", "x"),
		}},
	{name: "stream/xack-and-xpending-bounds", setup: [][]string{xaddMany("x", "4"), {"XGROUP", "CREATE", "x", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"}},
		cmds: [][]string{
			xpendingNoIdle("(1-1", "(4-1", "10"), xpendingNoIdle("(4-1", "+", "10"), xpendingNoIdle("-", "(0-0", "10"),
			xpendingNoIdle("(18446744073709551615-18446744073709551615", "+", "10"), xpendingNoIdle("(-", "+", "10"),
			cmd("XACK", "x", "g", "1-1", "x"), cmd("XPENDING", "x", "g"), cmd("XACK", "x", "g", "1", "1-1", "+2-1"), cmd("XPENDING", "x", "g"),
			cmd("XCLAIM", "x", "g", "c2", "0", "3-1", "JUSTID"), cmd("XCLAIM", "x", "g", "c3", "0", "4-1"), cmd("XCLAIM", "x", "g", "c3", "0", "3-1", "RETRYCOUNT", "7", "JUSTID"),
			ev("local o = {} for i, e in ipairs(redis.call('XPENDING', KEYS[1], 'g', '-', '+', 10)) do o[i] = {e[1], e[2], e[4]} end return o", 1, "x"),
		}},
	// In RESP3: the engine's Do target reads RESP2's nested null array as
	// a null bulk string.
	{name: "stream/xreadgroup-deleted-history", resp3: true, setup: [][]string{{"XADD", "x", "1-0", "f", "v"}, {"XADD", "x", "2-0", "f", "v"},
		{"XGROUP", "CREATE", "x", "g", "0"}, {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"}},
		cmds: [][]string{cmd("XDEL", "x", "1-0"), cmd("XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", "0")}},
}

// xpendingNoIdle is XPENDING x g with args (a range), its entries without
// their idle time, which is a millisecond more on redis-server whenever
// the setup took one (a flake on a loaded machine).
func xpendingNoIdle(args ...string) []string {
	return ev("local r = redis.pcall('XPENDING', KEYS[1], 'g', unpack(ARGV)) if r.err then return r end "+
		"local o = {} for i, e in ipairs(r) do o[i] = {e[1], e[2], e[4]} end return o", 1, append([]string{"x"}, args...)...)
}
