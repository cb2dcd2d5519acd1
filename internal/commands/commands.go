package commands

import (
	"sort"
	"strings"
)

// Command is one command or subcommand as COMMAND reports it.
type Command struct {
	Name  string // lower case; "parent|sub" for a subcommand
	Arity int    // Redis's convention: n exact, -n at least n, the name included
	Flags Flag
	// FirstKey, LastKey and Step are the legacy key positions COMMAND still
	// reports; KeySpecs supersede them.
	FirstKey, LastKey, Step int
	KeySpecs                []KeySpec
	// Container is set for commands such as CONFIG that only dispatch to
	// subcommands.
	Container bool
}

// Flag is a set of COMMAND flags.
type Flag uint32

// The flags redis-server 7.0 reports, in the order FlagNames lists them.
const (
	Write Flag = 1 << iota
	Readonly
	DenyOOM
	Admin
	PubSub
	NoScript
	Blocking
	Loading
	Stale
	SkipMonitor
	SkipSlowlog
	Asking
	Fast
	NoAuth
	MayReplicate
	NoMandatoryKeys
	NoAsyncLoading
	NoMulti
	MovableKeys
	AllowBusy
)

// FlagNames are the names COMMAND uses, indexed by bit.
var FlagNames = []string{
	"write", "readonly", "denyoom", "admin", "pubsub", "noscript", "blocking",
	"loading", "stale", "skip_monitor", "skip_slowlog", "asking", "fast",
	"no_auth", "may_replicate", "no_mandatory_keys", "no_async_loading",
	"no_multi", "movablekeys", "allow_busy",
}

// Has reports whether every flag of g is set.
func (f Flag) Has(g Flag) bool { return f&g == g }

// String lists the flags by their COMMAND names.
func (f Flag) String() string {
	var names []string
	for i, n := range FlagNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

// KeySpec is one of a command's key specifications (Redis 7).
type KeySpec struct {
	Flags KeyFlag

	Begin     BeginSearch
	Index     int    // BeginIndex: the first key's position
	Keyword   string // BeginKeyword: the keys follow this argument
	StartFrom int    // BeginKeyword: where to start looking; negative counts from the end

	Find      FindKeys
	LastKey   int // FindRange: relative to the first key; negative counts from the end
	KeyStep   int // FindRange, FindKeynum
	Limit     int // FindRange with LastKey -1: only 1/Limit of the remaining arguments
	KeynumIdx int // FindKeynum: where the key count is, relative to the begin position
	FirstKey  int // FindKeynum: the first key, relative to the begin position
}

// BeginSearch says how to find the first key of a KeySpec.
type BeginSearch uint8

// How a spec begins.
const (
	BeginUnknown BeginSearch = iota
	BeginIndex
	BeginKeyword
)

// FindKeys says how to find the keys that follow the first.
type FindKeys uint8

// How a spec finds its keys.
const (
	FindUnknown FindKeys = iota
	FindRange
	FindKeynum
)

// KeyFlag is a set of key spec flags.
type KeyFlag uint16

// The key spec flags of Redis 7.0, in the order KeyFlagNames lists them.
const (
	KeyRO KeyFlag = 1 << iota
	KeyRW
	KeyOW
	KeyRM
	KeyAccess
	KeyUpdate
	KeyInsert
	KeyDelete
	KeyNotKey
	KeyIncomplete
	KeyVariableFlags
)

// KeyFlagNames are the names COMMAND uses, indexed by bit.
var KeyFlagNames = []string{
	"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
	"not_key", "incomplete", "variable_flags",
}

// Has reports whether every flag of g is set.
func (f KeyFlag) Has(g KeyFlag) bool { return f&g == g }

// Lookup finds a command by name, "get" or "config|get", in any case.
func Lookup(name string) *Command {
	if !isLower(name) {
		name = strings.ToLower(name)
	}
	i := sort.Search(len(table), func(i int) bool { return table[i].Name >= name })
	if i < len(table) && table[i].Name == name {
		return &table[i]
	}
	return nil
}

// Find resolves a command line the way Redis does: a container command with
// at least one argument names a subcommand. It returns nil for an unknown
// command or subcommand.
func Find(argv []string) *Command {
	if len(argv) == 0 {
		return nil
	}
	c := Lookup(argv[0])
	if c == nil || !c.Container || len(argv) == 1 {
		return c
	}
	return Lookup(c.Name + "|" + argv[1])
}

// All returns the table, sorted by name. It must not be modified.
func All() []Command { return table }

// ArityOK reports whether argc arguments, the name included, satisfy the
// command's arity.
func (c *Command) ArityOK(argc int) bool {
	if c.Arity >= 0 {
		return argc == c.Arity
	}
	return argc >= -c.Arity
}

// HasKeys reports whether the command takes keys at all: Redis's
// doesCommandHaveKeys, which COMMAND GETKEYS checks first.
func (c *Command) HasKeys() bool {
	if proc(c.Name) != nil {
		return true
	}
	for _, s := range c.KeySpecs {
		if !s.Flags.Has(KeyNotKey) {
			return true
		}
	}
	return false
}

func isLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}
