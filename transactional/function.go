package transactional

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// Redis 7 Functions (FUNCTION LOAD/DELETE/LIST/FLUSH/STATS, FCALL,
// FCALL_RO). Libraries live in their own Lua state, as in Redis; while a
// library's body runs at load time, the global table reads through to a
// small load API (redis.register_function, redis.log, the version fields)
// and nothing else, then it is switched back to the full sandbox, exactly
// the trick function_lua.c plays with the globals' __index.

type library struct {
	name  string
	code  string
	funcs map[string]*function
	host  *hosting // a library with the prelude declared, run with the engine's journal
}

type function struct {
	name  string
	lib   *library
	fn    *lua.LFunction
	flags scriptFlags
	desc  *string
}

// libraryLoad collects what a library body registers.
type libraryLoad struct {
	funcs map[string]*function
	lib   *library
}

type functionRegistry struct {
	e       *Engine
	sandbox *sandbox
	libs    map[string]*library
	funcs   map[string]*function
}

func newFunctionRegistry(e *Engine) *functionRegistry {
	return &functionRegistry{e: e, sandbox: newSandbox(e, true), libs: map[string]*library{}, funcs: map[string]*function{}}
}

// newLoadAPI builds the globals a library body sees while it loads.
func (s *sandbox) newLoadAPI() *lua.LTable {
	L := s.L
	redis := L.NewTable()
	redis.RawSetString("register_function", L.NewFunction(s.registerFunction))
	redis.RawSetString("log", L.NewFunction(s.log))
	for name, v := range map[string]int{"LOG_DEBUG": LogDebug, "LOG_VERBOSE": LogVerbose, "LOG_NOTICE": LogNotice, "LOG_WARNING": LogWarning, "REDIS_VERSION_NUM": redisVersionNum} {
		redis.RawSetString(name, lua.LNumber(v))
	}
	redis.RawSetString("REDIS_VERSION", lua.LString(RedisVersion))
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(luaMissingGlobal))
	L.SetMetatable(redis, missing)
	api := L.NewTable()
	api.RawSetString("redis", s.protect(redis))
	L.SetMetatable(api, missing)
	s.readonly[api] = true
	return api
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (s *sandbox) registerFunction(L *lua.LState) int {
	fail := func(msg string) int {
		L.Error(errorTable(L, msg), 0)
		return 0
	}
	ld := s.loading
	if ld == nil {
		return fail("redis.register_function can only be called on FUNCTION LOAD command")
	}
	var (
		name  string
		cb    *lua.LFunction
		flags scriptFlags
		desc  *string
	)
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return fail(luaErrRegisterSingleArg)
		}
		var errMsg string
		t.ForEach(func(k, v lua.LValue) {
			if errMsg != "" {
				return
			}
			// Keys and names are lua_isstring, so numbers pass; keys are
			// compared with strcasecmp.
			if !isLuaString(k) {
				errMsg = luaErrRegisterKeyType
				return
			}
			key, _ := lua51.ToString(k)
			switch strings.ToLower(key) {
			case "function_name":
				if !isLuaString(v) {
					errMsg = luaErrRegisterNameType
					return
				}
				name, _ = lua51.ToString(v)
			case "callback":
				fn, ok := v.(*lua.LFunction)
				if !ok {
					errMsg = luaErrRegisterFnType
					return
				}
				cb = fn
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					errMsg = luaErrRegisterFlagsType
					return
				}
				if f, ok := registerFlags(L, ft); ok {
					flags = f
				} else {
					errMsg = luaErrRegisterFlag
				}
			case "description":
				if !isLuaString(v) {
					errMsg = luaErrRegisterDescType
					return
				}
				d, _ := lua51.ToString(v)
				desc = &d
			default:
				errMsg = luaErrRegisterUnknown
			}
		})
		if errMsg != "" {
			return fail(errMsg)
		}
		if name == "" && cb == nil {
			return fail(luaErrRegisterNoName)
		}
		if name == "" {
			return fail(luaErrRegisterNoName)
		}
		if cb == nil {
			return fail(luaErrRegisterNoFn)
		}
	case 2:
		if !isLuaString(L.Get(1)) {
			return fail(luaErrRegisterFirstArg)
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return fail(luaErrRegisterSecondArg)
		}
		name, _ = lua51.ToString(L.Get(1))
		cb = fn
	default:
		return fail(luaErrRegisterArgs)
	}
	if !validName(name) {
		return fail(luaErrRegisterBadName)
	}
	if _, dup := ld.funcs[name]; dup {
		return fail(luaErrRegisterDuplicate)
	}
	ld.funcs[name] = &function{name: name, lib: ld.lib, fn: cb, flags: flags, desc: desc}
	return 0
}

// registerFlags is luaRegisterFunctionReadFlags: the flags are t[1],
// t[2], … up to the first nil (read with lua_gettable, so through an
// __index), each a string or number naming a flag in any case (strcasecmp,
// where a shebang's flags are case-sensitive). ok is false on anything
// else.
func registerFlags(L *lua.LState, t *lua.LTable) (flags scriptFlags, ok bool) {
	for j := 1; ; j++ {
		v := L.GetTable(t, lua.LNumber(j))
		if v == lua.LNil {
			return flags, true
		}
		if !isLuaString(v) {
			return 0, false
		}
		str, _ := lua51.ToString(v)
		f, known := parseFlagName(strings.ToLower(str))
		if !known {
			return 0, false
		}
		flags |= f
	}
}

// isLuaString is lua_isstring: a string or a number.
func isLuaString(v lua.LValue) bool {
	_, ok := lua51.ToString(v)
	return ok
}

// parseLibraryShebang is functionExtractLibMetaData followed by the name
// and engine checks, in Redis's order: the first error found is the one
// Redis reports.
func parseLibraryShebang(code string) (name, body string, errMsg string) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", miniredis.MsgMissingMetadata
	}
	nl := strings.IndexByte(code, '\n')
	if nl < 0 {
		return "", "", msgInvalidMetadata
	}
	line, body := code[:nl], code[nl:]
	parts := shebangWords(line)
	if len(parts) == 0 {
		return "", "", msgInvalidMetadata
	}
	found := false
	for _, p := range parts[1:] {
		if len(p) < 5 || !strings.EqualFold(p[:5], "name=") {
			return "", "", fmt.Sprintf(miniredis.MsgBadMetadata, p)
		}
		if found {
			return "", "", msgMetadataNameTwice
		}
		name, found = p[5:], true
	}
	if !found {
		return "", "", miniredis.MsgNoLibraryName
	}
	if !validName(name) {
		return "", "", miniredis.MsgBadLibraryName
	}
	if engine := strings.TrimPrefix(parts[0], "#!"); !strings.EqualFold(engine, "lua") {
		return "", "", fmt.Sprintf(miniredis.MsgEngineNotFound, engine)
	}
	return name, body, ""
}

// load is functionsCreateWithLibraryCtx followed by the install.
func (fr *functionRegistry) load(c *server.Peer, code string, replace bool) (string, string) {
	name, body, msg := parseLibraryShebang(code)
	if msg != "" {
		return "", msg
	}
	if _, exists := fr.libs[name]; exists && !replace {
		return "", fmt.Sprintf(miniredis.MsgLibraryExists, name)
	}
	body, host := hostLibrary(body)
	proto, err := lua51.Compile(body, "user_function")
	if err != nil {
		return "", fmt.Sprintf(miniredis.MsgCompileFunction, err.Error())
	}
	s := fr.sandbox
	L := s.L
	lib := &library{name: name, code: code, host: host}
	ld := &libraryLoad{funcs: map[string]*function{}, lib: lib}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = s.proxy

	s.proxyMeta.RawSetString("__index", s.loadAPI)
	s.loading = ld
	r := fr.e.runs.next(c, "")
	r.loading = true
	fr.e.running.Store(r)
	L.SetContext(runCtx{r})
	// Re-armed even if a firing is pending: that one may come later than
	// this body's limit, which is shorter than a script's.
	fr.e.limitArmed.Store(true)
	fr.e.limit.Reset(fr.e.limitOf(r))
	L.SetTop(0)
	L.Push(fn)
	nargs := 0
	if host != nil {
		s.pushHosted(L)
		nargs = 3
	}
	err = L.PCall(nargs, 0, s.errfn)
	L.RemoveContext()
	fr.e.running.Store(nil)
	r.end()
	s.loading = nil
	s.proxyMeta.RawSetString("__index", s.store)
	L.SetTop(0)

	if err != nil {
		if r.killed() != killNone {
			return "", fmt.Sprintf(miniredis.MsgRegisterFunctions, "ERR "+miniredis.MsgLoadTimeout)
		}
		var obj lua.LValue = lua.LString(err.Error())
		if aerr, ok := err.(*lua.ApiError); ok {
			obj = aerr.Object
		}
		text := lua.LVAsString(obj)
		if t, ok := obj.(*lua.LTable); ok {
			text = lua.LVAsString(t.RawGetString("err"))
		}
		return "", fmt.Sprintf(miniredis.MsgRegisterFunctions, text)
	}
	if len(ld.funcs) == 0 {
		return "", miniredis.MsgNoFunctions
	}
	lib.funcs = ld.funcs
	if msg := fr.join([]*library{lib}, replace); msg != "" {
		return "", msg
	}
	return name, ""
}

// join is libraryJoin: it links libs, replacing libraries of the same
// name if replace, and links nothing if a library or a function collides.
func (fr *functionRegistry) join(libs []*library, replace bool) string {
	incoming := map[string]bool{}
	for _, lib := range libs {
		if _, ok := fr.libs[lib.name]; ok && !replace {
			return fmt.Sprintf(msgLibraryExists, lib.name)
		}
		incoming[lib.name] = true
	}
	for _, lib := range libs {
		for fname := range lib.funcs {
			if other, ok := fr.funcs[strings.ToLower(fname)]; ok && !incoming[other.lib.name] {
				return fmt.Sprintf(miniredis.MsgFunctionExists, fname)
			}
		}
	}
	for _, lib := range libs {
		fr.unlink(lib.name)
		fr.libs[lib.name] = lib
		for fname, f := range lib.funcs {
			fr.funcs[strings.ToLower(fname)] = f
		}
	}
	return ""
}

// unlink removes a library and its functions, if there is one of that
// name.
func (fr *functionRegistry) unlink(name string) {
	if old, ok := fr.libs[name]; ok {
		for fname := range old.funcs {
			delete(fr.funcs, strings.ToLower(fname))
		}
		delete(fr.libs, name)
	}
}

// stats is functionStatsCommand's reply: running is the function that
// runs, if one does.
func (fr *functionRegistry) stats(w *resp.Writer, running *run) {
	w.MapLen(2)
	w.Bulk("running_script")
	if running == nil {
		w.Null()
	} else {
		w.MapLen(3)
		w.Bulk("name")
		w.Bulk(running.name)
		w.Bulk("command")
		w.Array(len(running.argv))
		for _, a := range running.argv {
			w.Bulk(a)
		}
		w.Bulk("duration_ms")
		w.Integer(running.since().Milliseconds())
	}
	w.Bulk("engines")
	w.MapLen(1)
	w.Bulk("LUA")
	w.MapLen(2)
	w.Bulk("libraries_count")
	w.Integer(int64(len(fr.libs)))
	w.Bulk("functions_count")
	w.Integer(int64(len(fr.funcs)))
}

// codes lists the libraries' code for FUNCTION DUMP, by name so that a
// dump is the same bytes every time.
func (fr *functionRegistry) codes() []string {
	names := make([]string, 0, len(fr.libs))
	for name := range fr.libs {
		names = append(names, name)
	}
	sort.Strings(names)
	codes := make([]string, len(names))
	for i, name := range names {
		codes[i] = fr.libs[name].code
	}
	return codes
}

// restoreFunctions is functionRestoreCommand: the payload's libraries are
// loaded into a context of their own (so that a bad one changes nothing),
// then swapped in (FLUSH) or joined (APPEND, the default, or REPLACE).
func (e *Engine) restoreFunctions(c *server.Peer, args []string) string {
	sub, args := args[0], args[1:]
	if len(args) > 2 {
		return fmt.Sprintf(msgSubcommandSyntax, sub)
	}
	policy := "APPEND"
	if len(args) == 2 {
		policy = strings.ToUpper(args[1])
		if policy != "APPEND" && policy != "REPLACE" && policy != "FLUSH" {
			return msgRestorePolicy
		}
	}
	codes, err := rdb.RestoreFunctions([]byte(args[0]))
	if err != nil {
		return "ERR " + err.Error()
	}
	staged := &functionRegistry{e: e, sandbox: e.funcs.sandbox, libs: map[string]*library{}, funcs: map[string]*function{}}
	if policy == "FLUSH" {
		staged = newFunctionRegistry(e)
	}
	for _, code := range codes {
		if _, msg := staged.load(c, code, false); msg != "" {
			return msg
		}
	}
	if policy == "FLUSH" {
		e.funcs = staged
		return ""
	}
	libs := make([]*library, 0, len(staged.libs))
	for _, lib := range staged.libs {
		libs = append(libs, lib)
	}
	return e.funcs.join(libs, policy == "REPLACE")
}

// cmdFunction serves FUNCTION's subcommands. Called with miniredis's lock
// held.
func (e *Engine) cmdFunction(c *server.Peer, args []string) {
	fr := e.funcs
	w := resp.Writer{Resp3: c.Resp3}
	switch strings.ToUpper(args[0]) {
	case "LOAD":
		// functionLoadCommand: every argument before the last is an
		// option, and REPLACE is the only one.
		replace := false
		for _, opt := range args[1 : len(args)-1] {
			if !strings.EqualFold(opt, "REPLACE") {
				w.ErrorReply(fmt.Sprintf(miniredis.MsgUnknownOption, opt))
				writeReply(c, w.Buf)
				return
			}
			replace = true
		}
		name, msg := fr.load(c, args[len(args)-1], replace)
		if msg != "" {
			w.ErrorReply(msg)
			break
		}
		w.Bulk(name)
	case "DELETE":
		if _, ok := fr.libs[args[1]]; !ok {
			w.ErrorReply(miniredis.MsgLibraryNotFound)
			break
		}
		fr.unlink(args[1])
		w.Status("OK")
	case "DUMP":
		w.Bulk(string(rdb.DumpFunctions(fr.codes())))
	case "RESTORE":
		if msg := e.restoreFunctions(c, args); msg != "" {
			w.ErrorReply(msg)
			break
		}
		w.Status("OK")
	case "FLUSH":
		if msg := validateSubcommand("FUNCTION", args); msg != "" {
			w.ErrorReply(msg)
			break
		}
		e.funcs = newFunctionRegistry(e)
		w.Status("OK")
	case "LIST":
		fr.list(&w, args[1:])
	case "STATS":
		fr.stats(&w, nil)

	case "HELP":
		w.Array(len(functionHelp))
		for _, l := range functionHelp {
			w.Status(l)
		}
	default:
		w.ErrorReply(fmt.Sprintf("ERR FUNCTION %s is not supported by scriptgen's engine", strings.ToUpper(args[0])))
	}
	writeReply(c, w.Buf) // counts its errors in INFO errorstats
	switch strings.ToUpper(args[0]) {
	case "LOAD", "DELETE", "RESTORE", "FLUSH":
		// Changes of the libraries go to replicas as they came, as
		// functions.c's server.dirty++ has them propagated.
		if len(w.Buf) > 0 && w.Buf[0] != '-' {
			e.m.Propagate(miniredis.PeerDB(c), append([]string{"FUNCTION"}, args...))
		}
	}
}

func (fr *functionRegistry) list(w *resp.Writer, args []string) {
	pattern, withCode, named := "", false, false
	for i := 0; i < len(args); i++ {
		// Each option once, as functionListCommand: a repeated one is an
		// unknown argument.
		switch opt := strings.ToUpper(args[i]); {
		case opt == "WITHCODE" && !withCode:
			withCode = true
		case opt == "LIBRARYNAME" && !named:
			if i+1 >= len(args) {
				w.ErrorReply(miniredis.MsgNoLibraryNameArg)
				return
			}
			pattern, named = args[i+1], true
			i++
		default:
			w.ErrorReply(fmt.Sprintf(miniredis.MsgUnknownArgument, args[i]))
			return
		}
	}
	var names []string
	for name := range fr.libs {
		if !named || globMatch(pattern, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	w.Array(len(names))
	for _, name := range names {
		lib := fr.libs[name]
		if withCode {
			w.MapLen(4)
		} else {
			w.MapLen(3)
		}
		w.Bulk("library_name")
		w.Bulk(lib.name)
		w.Bulk("engine")
		w.Bulk("LUA")
		w.Bulk("functions")
		var fnames []string
		for fname := range lib.funcs {
			fnames = append(fnames, fname)
		}
		sort.Strings(fnames)
		w.Array(len(fnames))
		for _, fname := range fnames {
			f := lib.funcs[fname]
			w.MapLen(3)
			w.Bulk("name")
			w.Bulk(f.name)
			w.Bulk("description")
			if f.desc != nil {
				w.Bulk(*f.desc)
			} else {
				w.Null()
			}
			w.Bulk("flags")
			var flags []string
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					flags = append(flags, fl.name)
				}
			}
			w.SetLen(len(flags))
			for _, fl := range flags {
				w.Status(fl)
			}
		}
		if withCode {
			w.Bulk("library_code")
			w.Bulk(lib.code)
		}
	}
}

// cmdFcall serves FCALL and FCALL_RO. Called with miniredis's lock held.
func (e *Engine) cmdFcall(c *server.Peer, cmd string, args []string) {
	f, ok := e.funcs.funcs[strings.ToLower(args[0])]
	if !ok {
		writeError(c, miniredis.MsgFunctionNotFound)
		return
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil {
		writeError(c, miniredis.MsgBadNumKeys)
		return
	}
	rest := args[2:]
	if n > int64(len(rest)) {
		writeError(c, miniredis.MsgTooManyKeys)
		return
	}
	if n < 0 {
		writeError(c, miniredis.MsgNegativeKeys)
		return
	}
	ro := cmd == "FCALL_RO"
	if ro && f.flags&scriptNoWrites == 0 {
		writeError(c, miniredis.MsgWriteFlagWithRO)
		return
	}
	r := e.runs.next(c, f.name)
	r.function = true
	r.argv = append([]string{strings.ToLower(cmd)}, args...)
	r.flags = f.flags
	r.readOnly = ro || f.flags&scriptNoWrites != 0
	if f.lib.host != nil {
		r.refused = f.lib.host.refused
	}
	e.startJournal(c, r)
	c.WriteRawBytes(e.execute(e.funcs.sandbox, r, f.fn, rest[:n], rest[n:]))
}

// globMatch is Redis's stringmatchlen for the common cases: *, ?, [...]
// (with ^ and ranges) and backslash escapes.
func globMatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if globMatch(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			end := strings.IndexByte(pattern[1:], ']')
			if end < 0 {
				return false
			}
			class := pattern[1 : 1+end]
			not := strings.HasPrefix(class, "^")
			if not {
				class = class[1:]
			}
			match := false
			for i := 0; i < len(class); i++ {
				if i+2 < len(class) && class[i+1] == '-' {
					if s[0] >= class[i] && s[0] <= class[i+2] {
						match = true
					}
					i += 2
				} else if class[i] == s[0] {
					match = true
				}
			}
			if match == not {
				return false
			}
			s = s[1:]
			pattern = pattern[2+end:]
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || s[0] != pattern[0] {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		}
	}
	return len(s) == 0
}

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"FCALL <FUNCTION NAME> <NUMKEYS> <KEY1> .. <KEYN> <ARG1> .. <ARGN>",
	"    Call a function",
	"FCALL_RO <FUNCTION NAME> <NUMKEYS> <KEY1> .. <KEYN> <ARG1> .. <ARGN>",
	"    Call a read-only function",
	"FUNCTION KILL",
	"    Kill the current running function.",
	"FUNCTION STATS",
	"    Return information about the current function running.",
	"FUNCTION FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"FUNCTION DUMP",
	"    Returns a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"FUNCTION RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old libraries with the new libraries (When collision happens, it is considered as a failure).",
	"HELP",
	"    Prints this help.",
}
