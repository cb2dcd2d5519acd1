package transactional

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
)

// commandIndex maps every name of package commands' table to its row, in
// lower and in upper case (how scripts spell command names).
// commands.Lookup binary-searches the table, and redis.call looks a command
// up on every call of every script: a map is what keeps that off the
// simulator's profile.
var commandIndex = func() map[string]*commands.Command {
	all := commands.All()
	m := make(map[string]*commands.Command, 2*len(all))
	for i := range all {
		m[all[i].Name] = &all[i]
		m[strings.ToUpper(all[i].Name)] = &all[i]
	}
	return m
}()

// lookupCommand is Redis's lookupCommand: args[0] lower-cased, and for a
// container the subcommand too. It returns nil for commands Redis does not
// know.
func lookupCommand(args []string) *commands.Command {
	return lookupName(args[0], args[1:])
}

// lookupName is lookupCommand for a command name and its arguments apart,
// as the hook gets them: no slice is made to join them.
func lookupName(name string, args []string) *commands.Command {
	c, ok := commandIndex[name]
	if !ok {
		c = commandIndex[lowerASCII(name)]
	}
	if c == nil || !c.Container || len(args) < 1 {
		return c
	}
	return commandIndex[c.Name+"|"+strings.ToLower(args[0])]
}

// lowerASCII is strings.ToLower without the allocation when s is already
// lower case, as command names written in scripts mostly are not, and
// lookups happen on every redis.call.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}
