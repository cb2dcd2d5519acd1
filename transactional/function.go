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
			key, _ := k.(lua.LString)
			switch key {
			case "function_name":
				str, ok := v.(lua.LString)
				if !ok {
					errMsg = luaErrRegisterNameType
					return
				}
				name = string(str)
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
				ft.ForEach(func(_, fv lua.LValue) {
					str, ok := fv.(lua.LString)
					f, known := parseFlagName(string(str))
					if !ok || !known {
						if errMsg == "" {
							errMsg = luaErrRegisterFlag
						}
						return
					}
					flags |= f
				})
			case "description":
				str, ok := v.(lua.LString)
				if !ok {
					errMsg = luaErrRegisterDescType
					return
				}
				d := string(str)
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
		str, ok := L.Get(1).(lua.LString)
		if !ok {
			return fail(luaErrRegisterNameType)
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return fail(luaErrRegisterFnType)
		}
		name, cb = string(str), fn
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

// parseLibraryShebang reads "#!lua name=<lib>".
func parseLibraryShebang(code string) (name, body string, errMsg string) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", miniredis.MsgMissingMetadata
	}
	nl := strings.IndexByte(code, '\n')
	line := code
	body = ""
	if nl >= 0 {
		line, body = code[:nl], code[nl:]
	}
	parts := shebangWords(line)
	if len(parts) == 0 {
		return "", "", miniredis.MsgMissingMetadata
	}
	engine := strings.TrimPrefix(parts[0], "#!")
	if !strings.EqualFold(engine, "lua") {
		return "", "", fmt.Sprintf(miniredis.MsgEngineNotFound, engine)
	}
	found := false
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "name=")
		if !ok {
			return "", "", fmt.Sprintf(miniredis.MsgBadMetadata, p)
		}
		name, found = v, true
	}
	if !found {
		return "", "", miniredis.MsgNoLibraryName
	}
	if !validName(name) {
		return "", "", miniredis.MsgBadLibraryName
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
	fr.e.armLimit()
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
			return "", fmt.Sprintf(miniredis.MsgRegisterFunctions, miniredis.MsgLoadTimeout)
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
	for fname := range ld.funcs {
		if other, ok := fr.funcs[fname]; ok && other.lib.name != name {
			return "", fmt.Sprintf(miniredis.MsgFunctionExists, fname)
		}
	}
	if old, ok := fr.libs[name]; ok {
		for fname := range old.funcs {
			delete(fr.funcs, fname)
		}
	}
	lib.funcs = ld.funcs
	fr.libs[name] = lib
	for fname, f := range ld.funcs {
		fr.funcs[fname] = f
	}
	return name, ""
}

// cmdFunction serves FUNCTION's subcommands. Called with miniredis's lock
// held.
func (e *Engine) cmdFunction(c *server.Peer, args []string) {
	fr := e.funcs
	w := resp.Writer{Resp3: c.Resp3}
	switch strings.ToUpper(args[0]) {
	case "LOAD":
		replace := false
		rest := args[1:]
		if len(rest) == 2 {
			if !strings.EqualFold(rest[0], "REPLACE") {
				w.ErrorReply(fmt.Sprintf(miniredis.MsgUnknownOption, rest[0]))
				break
			}
			replace = true
			rest = rest[1:]
		} else if len(rest) != 1 {
			w.ErrorReply(fmt.Sprintf(miniredis.MsgWrongNumber, "function|load"))
			break
		}
		name, msg := fr.load(c, rest[0], replace)
		if msg != "" {
			w.ErrorReply(msg)
			break
		}
		w.Bulk(name)
	case "DELETE":
		lib, ok := fr.libs[args[1]]
		if !ok {
			w.ErrorReply(miniredis.MsgLibraryNotFound)
			break
		}
		for fname := range lib.funcs {
			delete(fr.funcs, fname)
		}
		delete(fr.libs, args[1])
		w.Status("OK")
	case "FLUSH":
		if len(args) == 2 && !strings.EqualFold(args[1], "SYNC") && !strings.EqualFold(args[1], "ASYNC") || len(args) > 2 {
			w.ErrorReply(miniredis.MsgFunctionFlushOpt)
			break
		}
		e.funcs = newFunctionRegistry(e)
		w.Status("OK")
	case "LIST":
		fr.list(&w, args[1:])
	case "STATS":
		w.MapLen(2)
		w.Bulk("running_script")
		w.Null()
		w.Bulk("engines")
		w.MapLen(1)
		w.Bulk("LUA")
		w.MapLen(2)
		w.Bulk("libraries_count")
		w.Integer(int64(len(fr.libs)))
		w.Bulk("functions_count")
		w.Integer(int64(len(fr.funcs)))
	case "HELP":
		w.Array(len(functionHelp))
		for _, l := range functionHelp {
			w.Status(l)
		}
	default:
		w.ErrorReply(fmt.Sprintf("ERR FUNCTION %s is not supported by scriptgen's engine", strings.ToUpper(args[0])))
	}
	c.WriteRaw(string(w.Buf))
}

func (fr *functionRegistry) list(w *resp.Writer, args []string) {
	pattern, withCode := "", false
	for i := 0; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "WITHCODE":
			withCode = true
		case "LIBRARYNAME":
			if i+1 >= len(args) {
				w.ErrorReply(miniredis.MsgNoLibraryNameArg)
				return
			}
			pattern = args[i+1]
			i++
		default:
			w.ErrorReply(fmt.Sprintf(miniredis.MsgUnknownArgument, args[i]))
			return
		}
	}
	var names []string
	for name := range fr.libs {
		if pattern == "" || globMatch(pattern, name) {
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
	f, ok := e.funcs.funcs[args[0]]
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
	r.flags = f.flags
	r.readOnly = ro || f.flags&scriptNoWrites != 0
	if f.lib.host != nil {
		r.refused = f.lib.host.refused
	}
	e.startJournal(c, r)
	c.WriteRaw(string(e.execute(e.funcs.sandbox, r, f.fn, rest[:n], rest[n:])))
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
