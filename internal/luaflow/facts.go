package luaflow

import "github.com/scriptgen/scriptgen/internal/commands"

// A Fact is one thing the key walk found at a node: a name, a KEYS or
// ARGV index, a command and what its keys are built from. Which facts are
// findings, and in what words, is package lint's to say.
type Fact struct {
	Chunk *Chunk
	Node  any // an ast node or a NameRef: where the fact's token starts
	// Via is the helper call being followed when the fact was found
	// reading a helper again with its caller's arguments; else nil.
	Via   *Via
	Line  int
	N     int    // an index, a line or a count
	Name  string // what the fact is about: a name, a field, a command (upper case)
	Other string // a second name, or what a value is built from
	Text  string // the source of a key argument that is a name or an index, else ""
	Cmd   *commands.Command
	Kind  FactKind
}

// Via is the first call through which a helper is being read: its line
// and, when it is in another file than the helper, that file.
type Via struct {
	Line       int
	Chunk      *Chunk // nil: the helper's own file
	Registered bool   // a Functions library callback, read where it is registered
}

// FactKind says what a Fact is.
type FactKind uint8

// The kinds of fact, with the fields each sets.
const (
	Shadow            FactKind = iota // a local named as one in scope: Name, Other (that one's name), N (its line)
	Label                             // a label (Lua 5.2): Name
	GlobalFunction                    // function NAME defines a global: Name
	GlobalAssign                      // an assignment to a global: Name
	GlobalField                       // _G.NAME = …: Name (the field as written)
	LibraryWrite                      // a store into a library table: Name (the field), Other (the library)
	LibraryGlobal                     // KEYS or ARGV read in a Functions library: Name
	Sandboxed                         // a name outside the sandbox: Name
	Undefined                         // a name neither local nor in the environment: Name
	GlobalsDefeated                   // rawset or setmetatable of _G: Name
	KeysIndex                         // KEYS[N], N a literal
	ArgvIndex                         // ARGV[N], N a literal
	NoCommand                         // a redis call without arguments: Name (redis.call or redis.pcall)
	DynamicCommand                    // the command is known only at run time: Name (the call), Other (what it is built from)
	UnknownCommand                    // Name: the command as written
	DynamicSubcommand                 // Name: the command; Other: what the subcommand is built from
	UnknownSubcommand                 // Name: the command; Other: the subcommand as written
	NoScript                          // a command scripts may not run: Name
	ReadOnlyWrite                     // a write in a no-writes script: Name
	Arity                             // N arguments, which Cmd does not take: Name
	ArityAtLeast                      // at least N arguments, more than Cmd takes: Name
	DynamicKeys                       // the key positions depend on a run-time argument: Name
	KeysUnfit                         // Redis cannot find the keys in these arguments: Name
	KeyOf                             // a key that is a KEYS element (Program.EveryKey): Name (command), Other, Text, N (its literal index, 0: computed)
	KeyDerived                        // a key derived from a KEYS element: Name (command), Other (the element), Text
	KeySource                         // a key built from something else: Name (command), Other (what), Text
	KeyPattern                        // keys the command finds by a pattern (SORT's BY and GET, KEYS, SCAN): Name (command, and option), Other (the pattern, or what it is built from), N (1: a literal)
)
