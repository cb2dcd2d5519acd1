package integration

// What real clients send besides data commands (issue 25): redis-cli reads
// COMMAND DOCS at start, cluster-aware clients COMMAND and COMMAND INFO,
// BullMQ INFO's redis_version. COMMAND LIST and COMMAND with no argument
// are left out here: Redis lists in its dict's order, seeded at each start
// (TestReplies in internal/commands holds their content).
func init() {
	cases = append(cases,
		tcase{name: "command/subcommands", cmds: [][]string{
			cmd("COMMAND", "COUNT"), cmd("COMMAND", "COUNT", "x"), cmd("COMMAND", "INFO", "get", "config|get", "nosuch", "GET"),
			cmd("COMMAND", "DOCS", "get", "nosuch"), cmd("COMMAND", "DOCS", "xadd"), cmd("COMMAND", "DOCS", "nosuch"),
			cmd("COMMAND", "GETKEYS", "SET", "a", "b"), cmd("COMMAND", "GETKEYS", "get"), cmd("COMMAND", "GETKEYS", "ping", "x"),
			cmd("COMMAND", "GETKEYS", "nosuch", "x"), cmd("COMMAND", "GETKEYS", "set", "a"), cmd("COMMAND", "GETKEYS", "eval", "x", "0"),
			cmd("COMMAND", "GETKEYS", "zunionstore", "d", "2", "a"), cmd("COMMAND", "GETKEYS", "zunionstore", "d", "2", "a", "b"),
			cmd("COMMAND", "GETKEYS", "config", "get", "x"), cmd("COMMAND", "GETKEYS", "config|get", "x"),
			cmd("COMMAND", "GETKEYS", "xread", "STREAMS", "a", "b", "0", "0"), cmd("COMMAND", "GETKEYS", "mset", "a", "1", "b", "2"),
			cmd("COMMAND", "LIST", "FILTERBY", "MODULE", "x"), cmd("COMMAND", "LIST", "FILTERBY", "foo", "x"), cmd("COMMAND", "LIST", "x"),
			cmd("COMMAND", "LIST", "FILTERBY", "PATTERN", "xgroup|des*"),
			cmd("COMMAND", "HELP"), cmd("COMMAND", "HELP", "x"), cmd("COMMAND", "foo"),
		}},
		tcase{name: "command/subcommands-resp3", resp3: true, cmds: [][]string{
			cmd("COMMAND", "INFO", "get", "xadd", "nosuch"), cmd("COMMAND", "DOCS", "set", "client|kill"), cmd("COMMAND", "COUNT"),
		}},
		tcase{name: "command/getkeysandflags", cmds: getkeysandflags},
		tcase{name: "command/getkeysandflags-resp3", resp3: true, cmds: getkeysandflags},
		tcase{name: "command/getkeysandflags-script", cmds: [][]string{
			ev("return redis.call('COMMAND', 'GETKEYSANDFLAGS', 'SORT', KEYS[1], 'STORE', KEYS[2])", 2, "k", "d"),
			// RESP2 only: after redis.setresp(3) the flags are a Lua set,
			// whose order on the way back is a hash table's, on both sides.
			ev("return redis.call('COMMAND', 'GETKEYSANDFLAGS', 'LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')", 2, "a", "b"),
			ev("return redis.pcall('COMMAND', 'GETKEYSANDFLAGS', 'PING', 'x')", 0),
		}},
		// Found by TestGrammarCommands: SET with a deadline in the past
		// left the deadline behind, on a key that no longer existed.
		tcase{name: "string/set-exat-past-then-write", cmds: [][]string{
			cmd("SET", "c", "x", "EXAT", "1"), cmd("EXISTS", "c"), cmd("MSETNX", "c", "a"), cmd("TTL", "c"),
			cmd("SET", "d", "x", "PXAT", "1", "GET"), cmd("APPEND", "d", "y"), cmd("TTL", "d"), cmd("GET", "d"),
		}},
		tcase{name: "server/latency-wait-memory", setup: [][]string{{"SET", "k", "v"}}, cmds: [][]string{
			cmd("LATENCY", "LATEST"), cmd("LATENCY", "HISTORY", "command"), cmd("LATENCY", "RESET"), cmd("LATENCY", "RESET", "a", "b"),
			cmd("LATENCY", "DOCTOR"), cmd("LATENCY", "GRAPH", "command"), cmd("LATENCY", "foo"), cmd("LATENCY"), cmd("LATENCY", "HISTORY"),
			cmd("LATENCY", "HELP"), cmd("WAIT", "0", "0"), cmd("WAIT", "1", "10"), cmd("WAIT", "x", "0"), cmd("MEMORY", "USAGE", "nosuch"),
			cmd("MEMORY", "USAGE", "k", "x"),
		}},
		tcase{name: "client/errors", cmds: [][]string{
			cmd("CLIENT"), cmd("CLIENT", "ID", "x"), cmd("CLIENT", "KILL", "1.2.3.4:5"), cmd("CLIENT", "KILL", "ID", "999999"),
			cmd("CLIENT", "KILL", "ID", "x"), cmd("CLIENT", "KILL", "ID", "0"), cmd("CLIENT", "KILL", "FOO", "x"), cmd("CLIENT", "KILL"),
			cmd("CLIENT", "KILL", "ID", "1", "SKIPME", "maybe"), cmd("CLIENT", "KILL", "ADDR", "1.1.1.1:1", "ID"),
			cmd("CLIENT", "KILL", "TYPE", "pubsub"), cmd("CLIENT", "KILL", "TYPE", "x"), cmd("CLIENT", "KILL", "USER", "nosuch"),
			cmd("CLIENT", "KILL", "USER", "default", "ID", "999999"), cmd("CLIENT", "LIST", "TYPE", "x"), cmd("CLIENT", "LIST", "ID", "1", "x"),
			cmd("CLIENT", "LIST", "ID", "999999"), cmd("CLIENT", "LIST", "TYPE", "pubsub"), cmd("CLIENT", "LIST", "FOO"),
			cmd("CLIENT", "NO-EVICT", "x"), cmd("CLIENT", "NO-EVICT", "on"), cmd("CLIENT", "NO-EVICT", "OFF"), cmd("CLIENT", "NO-EVICT"),
			cmd("CLIENT", "REPLY", "x"), cmd("CLIENT", "REPLY", "on"), cmd("CLIENT", "SETNAME", "a b"), cmd("CLIENT", "SETNAME", "a\x01"),
			cmd("CLIENT", "SETNAME"), cmd("CLIENT", "SETNAME", ""), cmd("CLIENT", "GETNAME"), cmd("CLIENT", "SETNAME", "n"),
			cmd("CLIENT", "GETNAME"), cmd("CLIENT", "GETNAME", "x"), cmd("CLIENT", "SETINFO", "lib-name", "x"), cmd("CLIENT", "HELP"),
			cmd("CLIENT", "HELP", "x"), cmd("CLIENT", "foo"),
		}},
	)
}

// getkeysandflags asks COMMAND GETKEYSANDFLAGS of commands whose keys move
// (numkeys, STORE, KEYS, STREAMS) or whose flags depend on the line (SET
// with GET, a BITFIELD that writes), and of its errors.
var getkeysandflags = [][]string{
	cmd("COMMAND", "GETKEYSANDFLAGS", "EVAL", "s", "2", "a", "b", "c"), cmd("COMMAND", "GETKEYSANDFLAGS", "eval", "s", "0"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "FCALL_RO", "f", "1", "a"), cmd("COMMAND", "GETKEYSANDFLAGS", "EVAL", "s", "+1", "a"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "XREAD", "COUNT", "2", "STREAMS", "a", "b", "0", "0"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "XREADGROUP", "GROUP", "g", "c", "STREAMS", "a", ">"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "SORT", "k", "BY", "w", "GET", "#", "STORE", "d"), cmd("COMMAND", "GETKEYSANDFLAGS", "SORT_RO", "k"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "MIGRATE", "h", "1", "", "0", "5", "KEYS", "a", "b"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "GET"), cmd("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "EX", "1"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "BITFIELD", "k", "GET", "u8", "0"), cmd("COMMAND", "GETKEYSANDFLAGS", "BITFIELD", "k", "INCRBY", "u8", "0", "1"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "GEORADIUS", "g", "1", "2", "3", "m", "STOREDIST", "d"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "LMOVE", "a", "b", "LEFT", "RIGHT"), cmd("COMMAND", "GETKEYSANDFLAGS", "DEL", "a", "b"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "OBJECT", "ENCODING", "k"), cmd("COMMAND", "GETKEYSANDFLAGS", "ZUNIONSTORE", "d", "3", "a"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "PING", "x"), cmd("COMMAND", "GETKEYSANDFLAGS", "GET"), cmd("COMMAND", "GETKEYSANDFLAGS", "nosuch", "x"),
	cmd("COMMAND", "GETKEYSANDFLAGS", "get"), cmd("COMMAND", "GETKEYSANDFLAGS"),
}
