package transactional

import "strings"

// cmdFlag is a command flag from Redis's COMMAND reply.
type cmdFlag uint32

const (
	flagWrite cmdFlag = 1 << iota
	flagReadonly
	flagNoScript
	flagDenyOOM
	flagStale
	flagBlocking
	flagPubsub
	flagAdmin
	flagFast
	flagNoMandatoryKeys
	flagMovableKeys
	flagAllowBusy
)

// cmdInfo is one row of COMMAND: arity (negative: at least), flags and the
// first/last/step key positions.
type cmdInfo struct {
	arity                   int
	flags                   cmdFlag
	firstKey, lastKey, step int
}

// hasSubcommands lists container commands (CONFIG, CLIENT, ...): Redis looks
// their second argument up as "parent|sub".
var hasSubcommands = func() map[string]bool {
	m := map[string]bool{}
	for name := range commandTable {
		if parent, _, ok := strings.Cut(name, "|"); ok {
			m[parent] = true
		}
	}
	return m
}()

// lookupCommand is Redis's lookupCommand: args[0] lower-cased, and for a
// container the subcommand too. ok is false for commands Redis does not know.
func lookupCommand(args []string) (info cmdInfo, ok bool) {
	name := lowerASCII(args[0])
	if hasSubcommands[name] {
		if len(args) < 2 {
			info, ok = commandTable[name]
			return info, ok
		}
		info, ok = commandTable[name+"|"+strings.ToLower(args[1])]
		return info, ok
	}
	info, ok = commandTable[name]
	return info, ok
}

func (c cmdInfo) arityOK(argc int) bool {
	if c.arity > 0 {
		return argc == c.arity
	}
	return argc >= -c.arity
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
