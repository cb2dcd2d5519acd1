package lint

import (
	"fmt"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/luaflow"
	"github.com/scriptgen/scriptgen/internal/script"
)

// Environment is every global a script may read on Redis 7: the libraries
// Redis loads and the base functions it keeps. The sandbox rule's names are
// not in it.
var Environment = luaflow.Environment

// unit is what one script's analysis reads: its includes, then itself.
type unit struct {
	s       *script.Script
	chunks  []*chunk
	library bool // a Functions library: `#!lua name=…`
	sev     map[string]Severity
	// splices are the `--- @include` files of a chunk, read as if pasted
	// before the first statement after their line.
	splices map[*chunk][]splice
}

type splice struct {
	line int
	c    *chunk
}

// checker turns the facts of one unit's key walk into findings.
type checker struct {
	u     *unit
	files map[*luaflow.Chunk]*chunk
	out   []Finding
	said  map[string]bool // dynamic-command: once per script and kind
}

func analyze(u *unit) []Finding {
	if main := u.chunks[len(u.chunks)-1]; !main.parsed {
		main.tree()
		defer main.release()
	}
	a := &checker{u: u, files: map[*luaflow.Chunk]*chunk{}, said: map[string]bool{}}
	p := &luaflow.Program{Library: u.library, NoWrites: u.s.Has(script.NoWrites)}
	flow := map[*chunk]*luaflow.Chunk{}
	for _, c := range u.chunks {
		p.Chunks = append(p.Chunks, a.program(c, flow))
	}
	k := luaflow.Walk(p)
	for _, f := range k.Facts {
		a.fact(f)
	}
	a.unused(k)
	a.journal()
	a.optionalArgs()
	return a.out
}

// program is c as the key walk reads it, with the files spliced into it.
func (a *checker) program(c *chunk, flow map[*chunk]*luaflow.Chunk) *luaflow.Chunk {
	if fc := flow[c]; fc != nil {
		return fc
	}
	fc := &luaflow.Chunk{Stmts: c.stmts, Lib: c.lib}
	flow[c], a.files[fc] = fc, c
	for _, sp := range a.u.splices[c] {
		fc.Splices = append(fc.Splices, luaflow.Splice{Line: sp.line, Chunk: a.program(sp.c, flow)})
	}
	return fc
}

// journal reports, for a transactional script, each write a failed run
// must undo and what may fail after it (luaflow.Explain): what to change
// for the script to ship as it stands. A script with includes is left out,
// its bundled text is not the file's.
func (a *checker) journal() {
	u := a.u
	if !u.s.Has(script.Transactional) || u.library || len(u.chunks) != 1 || len(u.splices[u.chunks[0]]) > 0 || len(u.chunks[0].incs) > 0 {
		return
	}
	c := u.chunks[0]
	for _, j := range luaflow.Explain(c.src) {
		what := "a write"
		if j.Command != "" {
			what = j.Command
		}
		msg := fmt.Sprintf("%s a failed run must undo: %s", what, j.Why)
		if j.GaveUp {
			msg = "the bundle keeps the rollback runtime: the proof that writes need no undo gives up here: " + j.Why
		}
		a.emit(c, max(j.Line, 1), max(j.Col, 1), RuleJournal, msg)
	}
}

// fact reports f, unless its rule is silenced.
func (a *checker) fact(f luaflow.Fact) {
	rule, msg := a.rule(f)
	if rule == "" {
		return
	}
	if f.Via != nil {
		switch rule {
		case RuleGlobals, RuleSandbox, RuleReadonlyTables, RuleShadow:
			return // already reported where the helper is defined
		}
	}
	c := a.files[f.Chunk]
	line, col := position(f.Node, f.Line)
	if line != f.Line && c.ignored(f.Line, rule) {
		return // an ignore comment on the call's line covers its arguments
	}
	if a.emit(c, line, max(col, 1), rule, msg) && f.Via != nil {
		a.out[len(a.out)-1].via = a.via(f)
	}
}

func (a *checker) emit(c *chunk, line, col int, rule, msg string) bool {
	sev := a.u.sev[rule]
	if sev == Off || c.ignored(line, rule) {
		return false
	}
	a.out = append(a.out, Finding{Path: c.path, Line: line, Col: col, Rule: rule, Severity: sev, Msg: msg, script: a.u.s.Path})
	return true
}

// rule is the rule a fact breaks and its message, or "" when it breaks
// none.
func (a *checker) rule(f luaflow.Fact) (rule, msg string) {
	switch f.Kind {
	case luaflow.Shadow:
		return RuleShadow, fmt.Sprintf("local %s shadows the %s declared at line %d", f.Name, f.Other, f.N)
	case luaflow.Label:
		return RuleSandbox, fmt.Sprintf("label ::%s:: is Lua 5.2: gopher-lua accepts it, Redis's Lua 5.1 refuses the script", f.Name)
	case luaflow.GlobalFunction:
		return RuleGlobals, fmt.Sprintf("function %s defines a global: Redis refuses it; write `local function %s`", f.Name, f.Name)
	case luaflow.GlobalAssign:
		return RuleGlobals, fmt.Sprintf("assignment to global %s: Redis refuses it (Attempt to modify a readonly table); declare it local", f.Name)
	case luaflow.GlobalField:
		return RuleGlobals, fmt.Sprintf("%s assigns a global: Redis refuses it; use a local", f.Name)
	case luaflow.LibraryWrite:
		return RuleReadonlyTables, fmt.Sprintf("%s writes into Redis's %s library, read-only since Redis 6.2.7 (Attempt to modify a readonly table); keep helpers in locals", f.Name, f.Other)
	case luaflow.LibraryGlobal:
		return RuleGlobals, fmt.Sprintf("%s does not exist in a Functions library: use the callback's %s parameter", f.Name, map[string]string{"KEYS": "first", "ARGV": "second"}[f.Name])
	case luaflow.Sandboxed:
		return RuleSandbox, fmt.Sprintf("%s is outside Redis's script sandbox: %s", f.Name, sandboxWhy(f.Name))
	case luaflow.Undefined:
		return RuleGlobals, fmt.Sprintf("undefined name %s: not a local and not in Redis's script environment", f.Name)
	case luaflow.GlobalsDefeated:
		return RuleSandbox, fmt.Sprintf("%s(_G, …) defeats Redis's global protection", f.Name)
	case luaflow.KeysIndex:
		return a.keysIndex(f.N)
	case luaflow.ArgvIndex:
		return a.argvIndex(f.N)
	}
	return a.callRule(f)
}

// keysIndex checks KEYS[n] against the header.
func (a *checker) keysIndex(n int) (rule, msg string) {
	s := a.u.s
	switch {
	case a.u.library && len(s.Keys) == 0:
	case n < 1:
		return RuleKeysDeclared, fmt.Sprintf("%s is always nil: Lua arrays start at 1", fmt.Sprintf("KEYS[%d]", n))
	case n > len(s.Keys) && !s.VariadicKeys():
		return RuleKeysDeclared, fmt.Sprintf("KEYS[%d] is beyond the header's %d key: line(s); declare it", n, len(s.Keys))
	}
	return "", ""
}

func (a *checker) argvIndex(n int) (rule, msg string) {
	s := a.u.s
	declared := len(s.Args)
	variadic := declared > 0 && s.Args[declared-1].Variadic
	switch {
	case a.u.library && declared == 0:
	case n < 1:
		return RuleArgs, fmt.Sprintf("ARGV[%d] is always nil: Lua arrays start at 1", n)
	case n > declared && !variadic:
		return RuleArgs, fmt.Sprintf("ARGV[%d] is beyond the header's %d arg: line(s); declare it", n, declared)
	}
	return "", ""
}

func sandboxWhy(n string) string {
	switch n {
	case "loadstring", "load":
		return "it compiles code at run time; Redis scripts must be static"
	case "setfenv", "getfenv":
		return "it reaches past Redis's global protection"
	case "collectgarbage":
		return "a script must not drive the server's Lua collector"
	}
	return "Redis does not load it"
}

// unused reports locals never read, after the last pass.
func (a *checker) unused(k luaflow.Keys) {
	for _, v := range k.Unread {
		if strings.HasPrefix(v.Name, "_") {
			continue
		}
		what := "local " + v.Name + " is never read"
		if v.Func {
			what = "local function " + v.Name + " is never called"
		}
		c := a.files[v.Chunk]
		a.emit(c, v.Line, max(column(v.Ref), 1), RuleUnused, what)
	}
	if a.u.library {
		return
	}
	s := a.u.s
	if s.Inferred {
		return // inferred from the reads and the file name: unread ones are the caller's convention
	}
	if !k.DynamicKeys {
		for i, key := range s.Keys {
			if !k.KeysUsed[i+1] && !key.Variadic {
				a.emit(a.u.chunks[len(a.u.chunks)-1], key.Pos.Line, key.Pos.Col, RuleKeysDeclared, fmt.Sprintf("key %s (KEYS[%d]) is declared but never used", key.Name, i+1))
			}
		}
	}
	if !k.DynamicArgs {
		for i, arg := range s.Args {
			if !k.ArgsUsed[i+1] && !arg.Variadic {
				a.emit(a.u.chunks[len(a.u.chunks)-1], arg.Pos.Line, arg.Pos.Col, RuleArgs, fmt.Sprintf("arg %s (ARGV[%d]) is declared but never read", arg.Name, i+1))
			}
		}
	}
}

// callRule words the facts of a redis.call: its command, and where its
// keys come from.
func (a *checker) callRule(f luaflow.Fact) (rule, msg string) {
	switch f.Kind {
	case luaflow.NoCommand:
		return RuleCommand, fmt.Sprintf("%s without a command name: Redis replies with an error", f.Name)
	case luaflow.DynamicCommand:
		return a.dynamic("command", fmt.Sprintf("%s's command name (%s) cannot be resolved statically, so this call's command and keys are not checked", f.Name, f.Other))
	case luaflow.UnknownCommand:
		return RuleCommand, fmt.Sprintf("unknown command %q (Redis %s)", f.Name, commands.ServerVersion)
	case luaflow.DynamicSubcommand:
		return a.dynamic("command", fmt.Sprintf("%s's subcommand (%s) cannot be resolved statically, so this call is not checked", f.Name, f.Other))
	case luaflow.UnknownSubcommand:
		return RuleCommand, fmt.Sprintf("unknown subcommand %s %s", f.Name, strings.ToUpper(f.Other))
	case luaflow.NoScript:
		return RuleCommand, fmt.Sprintf("%s is not allowed from scripts (Redis: This Redis command is not allowed from script)", f.Name)
	case luaflow.ReadOnlyWrite:
		return RuleCommand, fmt.Sprintf("%s writes, but the script is flagged no-writes (Redis: Write commands are not allowed from read-only scripts)", f.Name)
	case luaflow.Arity:
		return RuleCommand, fmt.Sprintf("wrong number of arguments for %s: %d given, %s", f.Name, f.N, arity(f.Cmd))
	case luaflow.ArityAtLeast:
		return RuleCommand, fmt.Sprintf("wrong number of arguments for %s: at least %d given, %s", f.Name, f.N, arity(f.Cmd))
	case luaflow.DynamicKeys:
		return a.dynamic("keys", fmt.Sprintf("%s's key positions depend on an argument known only at run time, so its keys are not checked", f.Name))
	case luaflow.KeysUnfit:
		return RuleCommand, fmt.Sprintf("the arguments do not fit %s's syntax: Redis cannot find its keys and replies with an error", f.Name)
	case luaflow.KeyDerived, luaflow.KeySource:
		return a.keyRule(f)
	case luaflow.KeyPattern:
		return RuleKeySource, patternMsg(f)
	}
	return "", ""
}

func arity(c *commands.Command) string {
	if c.Arity < 0 {
		return fmt.Sprintf("it takes at least %d", -c.Arity-1)
	}
	return fmt.Sprintf("it takes %d", c.Arity-1)
}

// via names the call through which a helper was read for f, "" when f
// was found where the helper is defined.
func (a *checker) via(f luaflow.Fact) string {
	if f.Via == nil {
		return ""
	}
	at := fmt.Sprintf("line %d", f.Via.Line)
	if f.Via.Chunk != nil {
		at = fmt.Sprintf("%s:%d", a.files[f.Via.Chunk].path, f.Via.Line)
	}
	if f.Via.Registered {
		return " (in the function registered at " + at + ")"
	}
	return " (through the helper call at " + at + ")"
}

// keyRule words a key that does not come from KEYS as it is.
func (a *checker) keyRule(f luaflow.Fact) (rule, msg string) {
	via := a.via(f)
	name := ""
	if f.Text != "" {
		name = " `" + f.Text + "`"
	}
	if f.Kind == luaflow.KeyDerived {
		return RuleKeyDerived, fmt.Sprintf("key%s of %s is derived from %s%s: pass it in KEYS too, with the same hash tag; Redis Cluster routes it only when %s carries a hash tag, and ACL key patterns, proxies and Dragonfly refuse it",
			name, f.Name, f.Other, via, f.Other)
	}
	why := f.Other
	if why == "" {
		why = "a value the linter cannot trace to KEYS"
	}
	return RuleKeySource, fmt.Sprintf("key%s of %s is built from %s%s, not taken from KEYS: the cluster cannot route it; pass it in KEYS with a hash tag", name, f.Name, why, via)
}

// dynamic says once per script, per kind, that something was not checked.
func (a *checker) dynamic(kind, msg string) (rule, _ string) {
	if a.said[kind] {
		return "", ""
	}
	a.said[kind] = true
	return RuleDynamicCommand, msg
}

// patternMsg words keys a command finds by a pattern. Redis 7.0's sort.c
// refuses BY (with a '*') and GET in cluster mode, and to a user without
// access to every key (TestSortPatterns).
func patternMsg(f luaflow.Fact) string {
	what := f.Other
	if f.N == 1 {
		what = fmt.Sprintf("%q", f.Other)
	}
	switch f.Name {
	case "KEYS", "SCAN":
		return fmt.Sprintf("%s reads the keys that match %s, which no KEYS entry declares: the script reaches keys its caller never passed; keep them in a set under a key passed in KEYS", f.Name, what)
	}
	cmd, opt, _ := strings.Cut(f.Name, " ")
	if f.N == 1 && f.Other == "#" {
		return fmt.Sprintf("%s's GET \"#\" reads no other key, but Redis 7.0 refuses every GET of SORT on a cluster (GET option of SORT denied in Cluster mode.) and to a user whose ACL does not reach every key (GET option of SORT denied due to insufficient ACL permissions.); sort without GET", cmd)
	}
	return fmt.Sprintf("%s's %s pattern %s reads keys built from each element, which no KEYS entry declares: Redis refuses it on a cluster (%s option of SORT denied in Cluster mode.) and to a user whose ACL does not reach every key (%s option of SORT denied due to insufficient ACL permissions.); store what the pattern reads in a hash passed in KEYS", cmd, opt, what, opt, opt)
}
