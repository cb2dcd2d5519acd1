package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Severity says what a finding does to the exit code: only errors fail a
// run (and stop gen and bundle).
type Severity int

// Severities, weakest first. Off silences a rule.
const (
	Off Severity = iota
	Info
	Warning
	Error
)

var severityNames = []string{"off", "info", "warning", "error"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalJSON writes the name, which is what editors match on.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// ParseSeverity reads a severity name; "ignore" is Off.
func ParseSeverity(name string) (Severity, bool) {
	if name == "ignore" {
		return Off, true
	}
	for i, n := range severityNames {
		if n == name {
			return Severity(i), true
		}
	}
	return 0, false
}

// Rule describes one check.
type Rule struct {
	Name     string
	Severity Severity // the default
	Summary  string
	Example  string // code that triggers it
}

// Rule names, stable: headers, ignore comments and -json consumers use them.
const (
	RuleHeader         = "header"
	RuleSyntax         = "syntax"
	RuleKeySource      = "key-source"
	RuleKeyDerived     = "key-derived"
	RuleKeysDeclared   = "keys-declared"
	RuleArgs           = "args"
	RuleCommand        = "command"
	RuleDynamicCommand = "dynamic-command"
	RuleGlobals        = "globals"
	RuleSandbox        = "sandbox"
	RuleReadonlyTables = "readonly-tables"
	RuleUnused         = "unused"
	RuleShadow         = "shadow"
	RuleJournal        = "journal"
	RuleInclude        = "include"
)

// Rules lists every check, in the order `scriptgen help lint` shows them.
var Rules = []Rule{
	{RuleHeader, Error, "the --! header must parse: known keys, names, types, defaults and flags", "--! arg: limit integer"},
	{RuleInferred, Info, "a script without a --! header is analysed with the keys and args its body reads (scriptgen annotate writes them down)", "return redis.call('GET', KEYS[1])"},
	{RuleSyntax, Error, "the body must be valid Lua 5.1 (exit code 2): errors in Lua 5.1's words, as Redis gives them, naming syntax of a later Lua (goto, labels, //, bitwise operators)", "goto done"},
	{RuleInclude, Error, "every include (--! include: or --- @include \"path\") must name a readable Lua file", `--- @include "includes/missing"`},
	{RuleKeySource, Error, "every key a command touches must come from KEYS; one built from ARGV, literals or replies, or reached by a pattern (SORT's BY and GET, KEYS, SCAN), is invisible to the cluster router: pass it in KEYS with a hash tag",
		"redis.call('INCR', 'rate:' .. ARGV[1])"},
	{RuleKeyDerived, Error, "a key derived from a KEYS element shares its slot only when that element has a hash tag, and breaks Redis's contract, ACL key patterns, proxies and Dragonfly; lower to warning for queue libraries that do it on purpose",
		"redis.call('INCR', KEYS[1] .. ':count')"},
	{RuleKeysDeclared, Error, "KEYS indexes must be within the declared key: lines, and every declared key used", "redis.call('GET', KEYS[2]) -- with one key: line"},
	{RuleArgs, Error, "ARGV indexes must be within the declared arg: lines, and every declared arg read", "local n = tonumber(ARGV[3]) -- with two arg: lines"},
	{RuleCommand, Error, "commands must exist in Redis 7, with the right number of arguments, be allowed in scripts, and not write in a no-writes script", "redis.call('EVAL', 'return 1', 0)"},
	{RuleDynamicCommand, Info, "a command name or key count the linter cannot resolve is reported once, not guessed", "redis.call(ARGV[1], KEYS[1])"},
	{RuleGlobals, Error, "no assignment to globals (Redis refuses it at run time) and no names outside Redis's script environment", "count = 1"},
	{RuleSandbox, Error, "no os, io, debug, require, loadstring, load, dofile, loadfile, setfenv, getfenv, collectgarbage, or rawset/setmetatable on _G", "local f = loadstring(ARGV[1])"},
	{RuleReadonlyTables, Error, "Redis 6.2.7 and later make the library tables read-only: no writes into string, table, math, redis, cjson…", "function table.extend(t, u) end"},
	{RuleOptionalArg, Warning, "an optional arg before a required one is sent as \"\" when absent: the script must compare it with ''", "local now = tonumber(ARGV[1]) -- with arg: now int? before a required arg"},
	{RuleUnused, Warning, "a local variable or function that is never read", "local unused = 1"},
	{RuleShadow, Warning, "a local that hides another local of the same name", "local k = KEYS[1]; do local k = 2 end"},
	{RuleJournal, Info, "in a transactional script, a write that a failed run must undo, and what may fail after it: without any, the bundle ships the script as it stands",
		"redis.call('SET', KEYS[1], 1) return redis.call('INCR', KEYS[2]) -- with flags: transactional"},
}

// RuleByName returns the rule and whether it exists.
func RuleByName(name string) (Rule, bool) {
	for _, r := range Rules {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}

func ruleNames() string {
	names := make([]string, len(Rules))
	for i, r := range Rules {
		names[i] = r.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Finding is one problem.
type Finding struct {
	Path     string   `json:"path"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Msg      string   `json:"message"`
	// script is the script whose analysis found it, via the part of Msg
	// that names the call a helper was read through: a file several
	// scripts include gets one finding per position and rule.
	script, via string
}

// String is `path:line:col: rule: message`; findings below error severity
// say so in front of the message.
func (f Finding) String() string {
	msg := f.Msg
	if f.Severity != Error {
		msg = f.Severity.String() + ": " + msg
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", f.Path, f.Line, f.Col, f.Rule, msg)
}

// Sort orders findings by path, line, column, rule and message, and drops
// exact duplicates (a helper included by several scripts is read once per
// script).
func Sort(fs []Finding) []Finding {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Msg != b.Msg {
			return a.Msg < b.Msg
		}
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		return a.script < b.script // equal findings side by side, for the dedup
	})
	out := fs[:0]
	for i, f := range fs {
		if i > 0 && f == fs[i-1] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// merge keeps one finding per position and rule, however many scripts
// include the file it is in or call the helper it is in: the first one,
// naming its call path with a count of the others, at the highest
// severity any of them has. Findings of one script at one place not
// reached through a helper call stay apart: each command a variable may
// name is its own finding. fs is sorted.
func merge(fs []Finding) []Finding {
	type spot struct {
		path      string
		line, col int
		rule      string
	}
	first := map[spot]int{}
	more := map[int]int{}
	out := fs[:0]
	for _, f := range fs {
		k := spot{f.Path, f.Line, f.Col, f.Rule}
		i, ok := first[k]
		if ok && (out[i].script != f.script || f.via != "" || out[i].via != "") {
			out[i].Severity = max(out[i].Severity, f.Severity)
			more[i]++
			continue
		}
		if !ok {
			first[k] = len(out)
		}
		out = append(out, f)
	}
	for i, n := range more {
		if f := &out[i]; f.via != "" {
			f.Msg = strings.Replace(f.Msg, f.via, f.via[:len(f.via)-1]+fmt.Sprintf(" and %d other call%s)", n, plural(n)), 1)
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
