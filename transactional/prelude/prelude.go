package prelude

import (
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/luaflow"
)

//go:embed prelude.lua
var runtime string

// Names of the two locals the prelude declares. The body sees the first as
// `redis`, so its redis.call and redis.pcall are the journaling ones.
const runName = "__scriptgen_run"

// Wrap returns src, a complete EVAL body (helpers included), wrapped in the
// rollback prelude. The prelude and the opening of the wrapper share the
// first line with src's first line, so that every line of src keeps its
// number in Lua's error messages.
//
// Writes that are the last thing of their run that can fail (see
// luaflow.Needed) call Redis directly: they need no undo.
//
// When every write that is not final is a hash write of fields the script
// read before its first write, no runtime is needed but the log of those
// fields' undos (see inline): the script sees Redis's own redis.
func Wrap(src string) string { return wrap(src, luaflow.Analyze(src)) }

func wrap(src string, an luaflow.Flow) string {
	w := wrapped(src, an)
	return w.Head + w.Rest
}

// Shipped is the text the bundler ships for a transactional script, in
// the parts a host runs it by.
type Shipped struct {
	// Head + Rest is the text shipped: the script's SHA-1 is its.
	Head, Rest string
	// Runtime says the text starts with the runtime's declaration (Head):
	// a host swaps it for Hosted(false) and runs Rest on its own journal.
	Runtime bool
	// Body is the script's code as the runtime's run is given it, whose
	// commands a host refuses as the runtime does (Refused).
	Body string
}

// ShipParts is Ship in parts, for a host whose caller says that src is
// transactional: the text shipped and where the runtime's declaration
// ends, found as the text is made rather than recognised in it after.
func ShipParts(src string) Shipped {
	an := luaflow.Analyze(src)
	if !an.Needed {
		return Shipped{Rest: src}
	}
	return wrapped(src, an)
}

func wrapped(src string, an luaflow.Flow) Shipped {
	if text, ok := inlineEval(src, an); ok {
		return Shipped{Rest: text}
	}
	body := withNewline(direct(src, an))
	return Shipped{Head: declare(src, evalProxy, "redis"), Rest: " " + runPrefix + body + runSuffix, Runtime: true, Body: body}
}

// Ship is the EVAL text of a transactional script as the bundler ships it:
// src as it stands when it needs no runtime (luaflow.Needed), else Wrap's
// text.
func Ship(src string) string {
	w := ShipParts(src)
	return w.Head + w.Rest
}

// ShipFunction is Ship for the body of a library function: the body to
// register, and whether the library must start with Declare.
func ShipFunction(body string) (string, bool) {
	an := luaflow.Analyze(body)
	if !an.Needed {
		return body, false
	}
	r := run(body, an)
	return r, Declared(r)
}

// Declare returns the lines that a Functions library puts before its
// helpers for the journals its functions use (code is the library's Lua,
// with each transactional function's body as Run or ShipFunction returned
// it): the inline journal's, and the runtime's, which declares the
// journaling `redis` once per library load, so that a call costs no set-up
// and helpers called from a transactional function are journaled too
// (scanned from code for the commands it names). "" when no function
// needs either.
func Declare(code string) string {
	var b strings.Builder
	if strings.Contains(code, inlinePrefix) {
		b.WriteString(inlineLua + "\n")
	}
	b.WriteString(declareRuntime(code))
	return b.String()
}

// declareRuntime is Declare's runtime line, "" when no function of code
// runs under the runtime.
func declareRuntime(code string) string {
	if !strings.Contains(code, runPrefix) {
		return ""
	}
	return declare(code, libraryProxy, libraryRaw) + "\n"
}

func declare(code, proxy, raw string) string {
	lua, w := render(code)
	spellings := spellingsOf(code)
	if _, ok := spellings["xadd"]; ok {
		raw = unpendRaw
	}
	if _, ok := spellings["xtrim"]; ok {
		raw = trimRaw
	}
	lua = oneLine(lua) // first: the comments mention the placeholders
	lua = strings.Replace(lua, "__W__", w, 1)
	lua = strings.Replace(lua, "__PROXY__", proxy, 1)
	lua = strings.Replace(lua, "__RAW__", raw, 1)
	return declareHead + lua + " end)()"
}

// libraryRaw is Redis's call and pcall for a library's final writes: the
// redis of the moment, as for libraryProxy.
const libraryRaw = "{call = function(...) return redis.call(...) end, pcall = function(...) return redis.pcall(...) end}"

// unpendRaw is the raw redis of code that names XADD, whose trim the
// runtime may defer (unpend in prelude.lua): a final write that names the
// stream must find it trimmed, as every other command does, so it does
// the deferred trim first. It calls the redis of the moment, as
// libraryRaw does.
const unpendRaw = "{call = function(...) if S and S.pend then J('unpend', {n = select('#', ...) - 1, select(2, ...)}) end return redis.call(...) end, " +
	"pcall = function(...) if S and S.pend then J('unpend', {n = select('#', ...) - 1, select(2, ...)}) end return redis.pcall(...) end}"

// trimRaw is unpendRaw for code that names XTRIM: its sites whose reply
// the code drops call trimName.call (see direct), which may defer the trim
// (proxied_trim in prelude.lua).
var trimRaw = unpendRaw[:len(unpendRaw)-1] + ", " + trimName + " = {call = proxied_trim}}"

// evalProxy is the table an EVAL script sees as redis: everything but call,
// pcall and setresp (which the journal tracks) is Redis's own, through
// __index.
const evalProxy = "local proxy = setmetatable({call = proxied_call, pcall = proxied_pcall, setresp = proxied_setresp}, {__index = redis})"

// libraryProxy is the same for a library, where setmetatable does not
// exist while FUNCTION LOAD runs the code and the redis table of that time
// is not the one functions see when called: each function of Redis's redis
// table is forwarded by name to the redis of the moment, and the constants
// are copied (REPL_* are not readable at load time; their values are
// Redis's PROPAGATE_* flags).
var libraryProxy = func() string {
	var b strings.Builder
	b.WriteString("local proxy = {call = proxied_call, pcall = proxied_pcall, setresp = proxied_setresp, " +
		"LOG_DEBUG = redis.LOG_DEBUG, LOG_VERBOSE = redis.LOG_VERBOSE, LOG_NOTICE = redis.LOG_NOTICE, LOG_WARNING = redis.LOG_WARNING, " +
		"REDIS_VERSION = redis.REDIS_VERSION, REDIS_VERSION_NUM = redis.REDIS_VERSION_NUM, " +
		"REPL_NONE = 0, REPL_AOF = 1, REPL_SLAVE = 2, REPL_REPLICA = 2, REPL_ALL = 3}")
	for _, fn := range []string{"acl_check_cmd", "breakpoint", "debug", "error_reply", "log", "register_function",
		"replicate_commands", "set_repl", "sha1hex", "status_reply"} {
		fmt.Fprintf(&b, " proxy.%s = function(...) return redis.%s(...) end", fn, fn)
	}
	return b.String()
}()

// Run wraps the body of one function of a library that starts with Declare:
// the body runs under the journal (the inline journal when it covers the
// body, see Wrap, else the runtime), and is rolled back if it raises.
func Run(body string) string { return run(body, luaflow.Analyze(body)) }

func run(body string, an luaflow.Flow) string {
	if text, ok := inline(body, an); ok {
		return text
	}
	return runPrefix + withNewline(direct(body, an)) + runSuffix
}

// Journal names how src, an EVAL text as the bundler writes it (shebang
// line allowed), undoes a transactional script's writes: "runtime" (Wrap's
// runtime), "inline" (the inline journal) or "" (the script as is).
func Journal(src string) string {
	if strings.HasPrefix(src, "#!") {
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			src = src[i+1:]
		}
	}
	switch {
	case strings.HasPrefix(src, declareHead):
		return "runtime"
	case strings.HasPrefix(src, inlineHead):
		return "inline"
	}
	return ""
}

// Declared reports whether fn, a function body as ShipFunction returned it,
// needs the library to start with Declare: whether it runs under a journal.
func Declared(fn string) bool {
	return strings.HasPrefix(fn, runPrefix) || strings.HasPrefix(fn, inlinePrefix)
}

const (
	runPrefix = "return " + runName + "(function(...) "
	runSuffix = "end)\n"
)

// oneLine drops comment lines and joins the rest with spaces: the runtime
// is written for that (see prelude.lua).
func oneLine(lua string) string {
	var parts []string
	for _, l := range strings.Split(lua, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, " ")
}

// section is a handler of prelude.lua and the commands it serves.
type section struct {
	fn       string
	helper   bool     // an operation the handlers of its commands share
	commands []string // lower case
	lines    []string
}

var core, sections = parseRuntime(runtime)

// parseRuntime splits prelude.lua into the lines always kept and the
// handler sections.
func parseRuntime(lua string) ([]string, []*section) {
	var core []string
	var secs []*section
	var cur *section
	for _, l := range strings.Split(lua, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "--@ "); ok {
			f := strings.Fields(rest)
			switch {
			case f[0] == "end":
				cur = nil
			case f[0] == "reader" || f[0] == "helper":
				cur = &section{fn: f[1], helper: f[0] == "helper", commands: lowerAll(f[2:])}
				secs = append(secs, cur)
				core = append(core, "__SECTION__")
			default:
				cur = &section{fn: f[0], commands: lowerAll(f[1:])}
				secs = append(secs, cur)
				core = append(core, "__SECTION__")
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		} else {
			core = append(core, l)
		}
	}
	return core, secs
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// spellingsOf maps each command code names in a string literal, in lower
// case, to its spellings there. Only those go in the write table: every
// entry costs an EVAL call time, and a spelling found at run time only is
// looked up under the others (kind, in prelude.lua).
func spellingsOf(code string) map[string][]string {
	spellings := map[string][]string{}
	for _, lit := range luaflow.Literals(code) {
		if lit == "" || strings.ContainsAny(lit, "|\\ ") || commands.Lookup(lit) == nil {
			continue
		}
		l := strings.ToLower(lit)
		if !slices.Contains(spellings[l], lit) {
			spellings[l] = append(spellings[l], lit)
		}
	}
	return spellings
}

// render is prelude.lua for code: the handlers of the commands code names
// in string literals, and the table W for them. Commands named only at run
// time (redis.call(cmd, ...)) are looked up with COMMAND INFO on first use
// and journaled by snapshot.
func render(code string) (lua, w string) {
	spellings := spellingsOf(code)
	ws := map[string]string{}
	for name, spelled := range spellings {
		e := entry(commands.Lookup(name))
		for _, sec := range sections {
			if !sec.helper && slices.Contains(sec.commands, name) {
				e = "'" + sec.fn + "'"
			}
		}
		for _, s := range spelled {
			ws[s] = e
		}
	}
	var out []string
	i := 0
	for _, l := range core {
		if l != "__SECTION__" {
			out = append(out, l)
			continue
		}
		sec := sections[i]
		i++
		for _, c := range sec.commands {
			if _, ok := spellings[c]; ok {
				out = append(out, sec.lines...)
				break
			}
		}
	}
	return strings.Join(out, "\n"), luaTable(ws)
}

func luaTable(m map[string]string) string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("{")
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%q] = %s", name, m[name])
	}
	b.WriteString("}")
	return b.String()
}

// entry is the write table's value for c (see prelude.lua).
func entry(c *commands.Command) string {
	switch {
	case luaflow.BeyondKeys(c.Name):
		return "'x'"
	case c.Name == "copy":
		return "'c'"
	case c.Container:
		for _, sub := range commands.All() {
			if strings.HasPrefix(sub.Name, c.Name+"|") && sub.Flags.Has(commands.Write) {
				return "'g'"
			}
		}
		return "false"
	case !c.Flags.Has(commands.Write) || c.Flags.Has(commands.NoScript):
		return "false"
	case c.Flags.Has(commands.MovableKeys):
		return "'g'"
	case c.FirstKey == 0:
		return "false"
	case c.FirstKey == 1 && c.LastKey == 1:
		return "1"
	}
	return fmt.Sprintf("{%d, %d, %d}", c.FirstKey, c.LastKey, c.Step)
}

func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
