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
	)
}
