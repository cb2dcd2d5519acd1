// Command 'COMMAND' from https://redis.io/commands#server

package miniredis

import (
	"slices"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: COMMAND and its subcommands answer from redis-server 7.0.15's
// own replies (internal/commands, replies.resp) in Redis 7's shapes.
// Upstream sent Redis 5.0.7's COMMAND whatever the arguments, so COMMAND
// COUNT got the whole table and redis-cli 7.0.15, which reads COMMAND DOCS
// at start, aborted on it.

// commandHelp is COMMAND HELP's text in redis-server 7.0.15.
var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

func (m *Miniredis) cmdCommand(c *server.Peer, cmd string, args []string) {
	if len(args) > 0 && !subcommandOK(c, cmd, args) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if len(args) == 0 {
			commandInfo(c, commands.TopLevel())
			return
		}
		switch sub, rest := strings.ToLower(args[0]), args[1:]; sub {
		case "count":
			c.WriteInt(len(commands.TopLevel()))
		case "info":
			if len(rest) == 0 {
				rest = commands.TopLevel()
			}
			commandInfo(c, rest)
		case "docs":
			commandDocs(c, rest)
		case "list":
			commandList(c, rest)
		case "getkeys":
			commandGetkeys(c, rest, false)
		case "getkeysandflags":
			commandGetkeys(c, rest, true)
		case "help":
			c.WriteLen(len(commandHelp))
			for _, l := range commandHelp {
				c.WriteInline(l)
			}
		default:
			setDirty(c)
			c.WriteError("ERR unknown subcommand '" + args[0] + "'. Try COMMAND HELP.")
		}
	})
}

// subcommandOK answers, as Redis does, a subcommand the table does not
// know or one with the wrong number of arguments, and reports whether
// there was none of either. args[0] is the subcommand.
func subcommandOK(c *server.Peer, cmd string, args []string) bool {
	sub := commands.Find(append([]string{cmd}, args...))
	switch {
	case sub == nil:
		c.WriteError("ERR unknown subcommand '" + args[0] + "'. Try " + strings.ToUpper(cmd) + " HELP.")
	case !sub.ArityOK(len(args) + 1):
		c.WriteError(errWrongNumber(sub.Name))
	default:
		return true
	}
	setDirty(c)
	return false
}

func commandInfo(c *server.Peer, names []string) {
	c.WriteLen(len(names))
	for _, n := range names {
		if r, ok := commands.InfoReply(n, c.Resp3); ok {
			c.WriteRaw(r)
		} else {
			c.WriteNull()
		}
	}
}

// commandDocs leaves unknown names out, as Redis does.
func commandDocs(c *server.Peer, names []string) {
	if len(names) == 0 {
		names = commands.TopLevel()
	}
	var out []string
	for _, n := range names {
		if r, ok := commands.DocsReply(n, c.Resp3); ok {
			out = append(out, r)
		}
	}
	c.WriteMapLen(len(out))
	for _, r := range out {
		c.WriteRaw(r)
	}
}

// commandList is COMMAND LIST [FILTERBY MODULE name | ACLCAT cat |
// PATTERN pattern]; no module is loaded here.
func commandList(c *server.Peer, args []string) {
	var keep func(name string) bool
	switch {
	case len(args) == 0:
		keep = func(string) bool { return true }
	case len(args) == 3 && strings.EqualFold(args[0], "filterby"):
		switch strings.ToLower(args[1]) {
		case "module":
			keep = func(string) bool { return false }
		case "aclcat":
			// A container's own categories: its entry lists its
			// subcommands' too.
			cat := "@" + strings.ToLower(args[2])
			keep = func(name string) bool { return slices.Contains(commands.Categories(name), cat) }
		case "pattern":
			// Redis matches without case (stringmatchlen's nocase).
			re := patternRE(strings.ToLower(args[2]))
			keep = func(name string) bool { return re != nil && re.MatchString(name) }
		}
	}
	if keep == nil {
		setDirty(c)
		c.WriteError(msgSyntaxError)
		return
	}
	var names []string
	for _, cmd := range commands.All() {
		if keep(cmd.Name) {
			names = append(names, cmd.Name)
		}
	}
	c.WriteStrings(names)
}

// commandGetkeys is COMMAND GETKEYS, or with flags GETKEYSANDFLAGS (each
// key with its flags, a set of status strings), as Redis 7.0's
// getKeysSubcommandImpl answers them.
func commandGetkeys(c *server.Peer, argv []string, flags bool) {
	cmd := commands.Find(argv)
	switch {
	case cmd == nil || strings.Contains(argv[0], "|"):
		c.WriteError(msgGetKeysBadCommand)
		return
	case !cmd.HasKeys():
		c.WriteError(msgGetKeysNoKeys)
		return
	case !cmd.ArityOK(len(argv)):
		c.WriteError(msgGetKeysArity)
		return
	}
	keys, err := cmd.KeysAndFlags(argv)
	if err != nil {
		c.WriteError(msgGetKeysInvalid)
		return
	}
	c.WriteLen(len(keys))
	for _, k := range keys {
		if !flags {
			c.WriteBulk(argv[k.Pos])
			continue
		}
		c.WriteLen(2)
		c.WriteBulk(argv[k.Pos])
		var names []string
		for b, n := range commands.KeyFlagNames {
			if k.Flags&(1<<b) != 0 {
				names = append(names, n)
			}
		}
		c.WriteSetLen(len(names))
		for _, n := range names {
			c.WriteInline(n)
		}
	}
}
