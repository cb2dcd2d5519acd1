package script

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Script is one annotated Lua source.
type Script struct {
	Path    string // as given to Parse: relative paths stay relative in every message
	Name    string // snake_case; the file's base name when the header has no name:
	Doc     string
	Keys    []Key
	Args    []Arg
	Returns Returns
	Flags   []Flag   // in header order, without duplicates
	Include []string // paths of shared Lua, relative to the script's directory
	Lint    []Directive

	Source []byte // the file as read
	// Body is Source with a leading `#!` line blanked, so that gopher-lua can
	// parse it and every line keeps its number.
	Body string
	// Shebang is the `#!lua …` line of the source, nil without one.
	Shebang *Shebang
	// HeaderEnd is the number of lines the header block spans (0 without one).
	HeaderEnd int
	// Lua is Body as the stages read it: its AST, includes and lint
	// comments. Set by Parse.
	Lua *Lua
	// Inferred marks a contract (Name, Keys, Args) read from the body of a
	// script without any `--!` line, not declared: see infer.go.
	Inferred bool

	ld *Loader // the Loader that read the script, for its helpers
}

// Directive is the value of a `--! lint:` line, e.g. "warning key-derived":
// an action and the rules it applies to. Package lint judges the words.
type Directive struct {
	Text   string
	Pos    Pos
	Action Word   // the first word, at Pos
	Rules  []Word // the rest, split at commas and blanks
}

// Pos is a 1-based position in a source file.
type Pos struct {
	Line, Col int
}

// Key is one declared KEYS element.
type Key struct {
	Name     string
	Doc      string
	Variadic bool // the tail: `key: name...` takes the remaining KEYS
	// Pattern is the shape of the key's name, from `key: name = pattern`;
	// nil without one.
	Pattern *Pattern
	Pos     Pos
}

// Arg is one declared ARGV element.
type Arg struct {
	Name       string
	Type       Type
	Optional   bool // `type?`: may be absent
	HasDefault bool
	Default    string // as written, already validated against Type
	Variadic   bool   // the tail: `arg: name type...` takes the remaining ARGV
	Doc        string
	Pos        Pos
}

// Spec is the key as a key: line declares it, without the doc: "name" or
// "name..." (no pattern).
func (k Key) Spec() string {
	if k.Variadic {
		return k.Name + "..."
	}
	return k.Name
}

// Spec is the arg as an arg: line declares it, without the doc:
// "name type", with "...", "?" or ` = "default"`.
func (a Arg) Spec() string {
	l := a.Name + " " + string(a.Type)
	switch {
	case a.Variadic:
		l += "..."
	case a.Optional:
		l += "?"
	case a.HasDefault:
		l += " = " + strconv.Quote(a.Default)
	}
	return l
}

// Returns describes the reply: either one Type, or named Fields decoded from
// an array reply.
type Returns struct {
	Type   Type // "" when Fields is set or the header has no returns:
	Fields []Field
	Pos    Pos
}

// Field is one element of an array reply.
type Field struct {
	Name string
	Type Type
	Pos  Pos
}

// Type is an argument or reply type. A reply type may also be a list: "[]int".
type Type string

// Argument and reply types.
const (
	Int      Type = "int"
	Float    Type = "float"
	String   Type = "string"
	Bool     Type = "bool"
	Bytes    Type = "bytes"
	JSON     Type = "json"
	Duration Type = "duration"
	// Reply-only types.
	Status Type = "status" // a status reply such as OK
	Any    Type = "any"    // any reply, decoded as go-redis does
)

// ArgTypes are the types an arg: line accepts.
var ArgTypes = []Type{Bool, Bytes, Duration, Float, Int, JSON, String}

// ReturnTypes are the scalar types a returns: line accepts; each may also be
// written as a list, []T.
var ReturnTypes = []Type{Any, Bool, Bytes, Duration, Float, Int, JSON, Status, String}

// Elem returns the element type of a list type and whether t is one.
func (t Type) Elem() (Type, bool) {
	if e, ok := strings.CutPrefix(string(t), "[]"); ok {
		return Type(e), true
	}
	return t, false
}

// Flag is a script flag from the flags: line.
type Flag string

// Flags Redis knows (sent in the `#!lua flags=` shebang), and ours.
const (
	NoWrites           Flag = "no-writes"
	AllowOOM           Flag = "allow-oom"
	AllowStale         Flag = "allow-stale"
	NoCluster          Flag = "no-cluster"
	AllowCrossSlotKeys Flag = "allow-cross-slot-keys"
	// Transactional is ours: all-or-nothing writes, see package transactional.
	Transactional Flag = "transactional"
)

// ValidFlags lists every flag a header may carry, sorted.
var ValidFlags = []Flag{AllowCrossSlotKeys, AllowOOM, AllowStale, NoCluster, NoWrites, Transactional}

// Redis reports whether Redis itself knows the flag, i.e. whether it belongs
// in a `#!lua flags=` shebang.
func (f Flag) Redis() bool { return f != Transactional }

// Has reports whether the script carries flag f.
func (s *Script) Has(f Flag) bool {
	for _, g := range s.Flags {
		if g == f {
			return true
		}
	}
	return false
}

// RedisFlags returns the flags for a `#!lua flags=` shebang, sorted so that
// bundles are byte-identical whatever order the header used.
func (s *Script) RedisFlags() []string {
	var out []string
	for _, f := range s.Flags {
		if f.Redis() {
			out = append(out, string(f))
		}
	}
	sort.Strings(out)
	return out
}

// MinKeys is the number of KEYS a caller must pass at least.
func (s *Script) MinKeys() int {
	n := len(s.Keys)
	if n > 0 && s.Keys[n-1].Variadic {
		n--
	}
	return n
}

// Padded reports whether arg i is optional with a required arg after it.
// ARGV is positional, so such an arg cannot be left out: the wrappers send
// an empty string for it when absent, and the script must read "" as
// absent (lint's optional-arg rule checks that it does). Many scripts
// written before scriptgen take an optional `now` that way.
func (s *Script) Padded(i int) bool {
	return s.Args[i].Optional && s.RequiredAfter(i)
}

// RequiredAfter reports whether a required arg follows arg i: then arg i's
// position is always sent, its default or "" when absent.
func (s *Script) RequiredAfter(i int) bool {
	for _, a := range s.Args[i+1:] {
		if !a.Optional && !a.HasDefault && !a.Variadic {
			return true
		}
	}
	return false
}

// VariadicKeys reports whether the last key takes the remaining KEYS.
func (s *Script) VariadicKeys() bool {
	return len(s.Keys) > 0 && s.Keys[len(s.Keys)-1].Variadic
}

// Error is one problem in a source file.
type Error struct {
	Path string
	Pos
	Msg string
	// Syntax marks the Lua parser's error, which the command line tells
	// apart from the others (exit 2, as for unreadable input).
	Syntax bool
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	if e.Col == 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// ErrorList is every problem found, in file and position order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Sort orders the list by path, line and column.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// EvalSource is the text to send with EVAL or SCRIPT LOAD: the body, with a
// `#!lua flags=…` shebang when the header carries flags Redis knows, so that
// the server enforces them (no-writes, allow-stale, …). A source that had
// its own shebang keeps its line numbers; otherwise the added line shifts
// them by one, the same on every server.
func (s *Script) EvalSource() string {
	flags := s.RedisFlags()
	body := s.body()
	if len(flags) == 0 && s.Shebang == nil {
		return body
	}
	line := "#!lua"
	if len(flags) > 0 {
		line += " flags=" + strings.Join(flags, ",")
	}
	if s.Shebang != nil {
		// Body starts with the blanked shebang line: put ours there.
		return line + body
	}
	return line + "\n" + body
}
