package transactional

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
	"github.com/scriptgen/scriptgen/transactional/internal/lualib"
)

// RedisVersion is the Redis version the sandbox reproduces, as
// redis.REDIS_VERSION reports it.
const RedisVersion = "7.0.15"

const redisVersionNum = 7<<16 | 0<<8 | 15

// Redis's replication and log level constants (redis.REPL_*, redis.LOG_*).
const (
	replNone  = 0
	replAOF   = 1
	replSlave = 2
	replAll   = replAOF | replSlave

	LogDebug   = 0
	LogVerbose = 1
	LogNotice  = 2
	LogWarning = 3
)

// sandbox is one Lua state built the way Redis 7 builds its: only the
// libraries Redis loads, a read-only global table and read-only libraries,
// and a redis table whose call/pcall dispatch into miniredis. Like Redis, one
// state serves every EVAL (and a second one every FUNCTION library); the
// read-only globals are what make sharing it safe.
type sandbox struct {
	e         *Engine
	argBuf    []string // redis.call's arguments (call)
	L         *lua.LState
	functions bool // the FUNCTION engine's state
	store     *lua.LTable
	proxy     *lua.LTable
	// env is the environment of EVAL scripts (see scriptEnv): the store's
	// contents, copied, so that reading a global is one lookup instead of
	// proxy, metatable and store.
	env *lua.LTable
	// readonly are the tables rawset and setmetatable refuse that the VM
	// does not mark read-only (LTable.ReadOnly): the proxies and views of
	// protectWith and readonlyView, and the load-time API of a library.
	readonly map[*lua.LTable]bool
	// targets maps each read-only proxy to the table it stands for, so
	// that pairs and next see the contents, as with Redis's read-only tables.
	targets map[*lua.LTable]*lua.LTable
	// sources maps gopher-lua chunk names to Lua's: "@user_script" for
	// scripts, the source text itself for loadstring chunks.
	sources   map[string]string
	redis     *lua.LTable
	proxyMeta *lua.LTable // its __index is swapped to loadAPI during FUNCTION LOAD
	loadAPI   *lua.LTable
	errfn     *lua.LFunction
	pcallfn   *lua.LFunction
	hostedRun *lua.LFunction // the run of prelude.Hosted
	run       *run
	keys      boxes
	argv      boxes
	// loading is set while a FUNCTION LOAD body runs: only then does
	// redis.register_function exist, and redis.call does not.
	loading *libraryLoad
}

// baseAllowed are the base library functions Redis 7 keeps.
var baseAllowed = []string{
	"assert", "collectgarbage", "error", "getmetatable", "ipairs", "load",
	"loadstring", "next", "pairs", "pcall", "rawequal", "rawget", "rawset",
	"select", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall",
}

func newSandbox(e *Engine, functions bool) *sandbox {
	// The registry (the data stack) starts small and grows to the same
	// limit: the garbage collector scans all of it, in use or not, and a
	// busy simulation collects many times a second.
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 256,
		RegistrySize: 1024, RegistryGrowStep: 4096, RegistryMaxSize: 1024 * 1024,
		OnPanic: e.logPanic})
	s := &sandbox{e: e, L: L, functions: functions, readonly: map[*lua.LTable]bool{},
		targets: map[*lua.LTable]*lua.LTable{}, sources: map[string]string{"user_script": "@user_script", "user_function": "@user_function"}}
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	s.store = L.NewTable()
	for _, name := range baseAllowed {
		s.store.RawSetString(name, g.RawGetString(name))
	}
	s.store.RawSetString("_VERSION", lua.LString("Lua 5.1"))
	s.store.RawSetString("gcinfo", L.NewFunction(luaGCInfo))
	s.pcallfn = L.NewFunction(pcallHandler)
	s.hostedRun = L.NewFunction(s.runHosted)
	s.store.RawSetString("pcall", L.NewFunction(s.redisPcall))
	s.store.RawSetString("xpcall", L.NewFunction(luaXpcall))
	s.store.RawSetString("error", L.NewFunction(lua51.Error))
	s.store.RawSetString("rawset", L.NewFunction(s.rawset))
	s.store.RawSetString("setmetatable", L.NewFunction(s.setmetatable))
	s.store.RawSetString("tostring", L.NewFunction(luaToString))
	tonumber := L.NewFunction(lua51.ToNumber)
	tonumber.Fast = lua51.FastToNumber
	s.store.RawSetString("tonumber", tonumber)
	s.store.RawSetString("loadstring", L.NewFunction(s.loadstring))
	s.store.RawSetString("load", L.NewFunction(s.load))
	s.store.RawSetString("next", L.NewFunction(s.next))
	s.store.RawSetString("pairs", L.NewFunction(s.pairs))

	strLib := g.RawGetString("string").(*lua.LTable)
	strLib.RawSetString("rep", L.NewFunction(s.stringRep))
	mathLib := g.RawGetString("math").(*lua.LTable)
	mathLib.RawSetString("mod", mathLib.RawGetString("fmod"))
	mathLib.RawSetString("random", L.NewFunction(func(L *lua.LState) int { return lua.PushRandom(L, e.rand.float()) }))
	mathLib.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
		e.rand.seed(int32(L.CheckCInt(1)))
		return 0
	}))
	strLib.RawSetString("dump", L.NewFunction(stringDump))
	// gopher-lua's math.huge is the largest finite double; Lua's is +inf.
	mathLib.RawSetString("huge", lua.LNumber(math.Inf(1)))
	libs := lualib.Open(L)
	libs["string"] = g.RawGetString("string").(*lua.LTable)
	libs["table"] = g.RawGetString("table").(*lua.LTable)
	libs["math"] = mathLib
	libs["coroutine"] = g.RawGetString("coroutine").(*lua.LTable)
	for name, lib := range libs {
		s.store.RawSetString(name, s.protect(lib))
	}
	// ("x"):upper() finds string through the string metatable, which every
	// script shares: it must lead to the protected library too.
	if smt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		smt.RawSetString("__index", s.store.RawGetString("string"))
		smt.SetReadOnly(true)
	}
	s.redis = s.newRedisTable()
	s.store.RawSetString("redis", s.protect(s.redis))

	// _G as scripts see it: an empty proxy that reads through to the store
	// and refuses writes. Reads of names the store lacks fail loudly, as in
	// Redis, instead of yielding nil.
	s.proxy = L.NewTable()
	s.store.RawSetString("_G", s.proxy)
	storeMeta := L.NewTable()
	storeMeta.RawSetString("__index", L.NewFunction(luaMissingGlobal))
	L.SetMetatable(s.store, storeMeta)
	s.proxyMeta = s.protectWith(s.proxy, s.store)
	if functions {
		s.loadAPI = s.newLoadAPI()
	}
	L.G.Global = s.store
	L.Env = s.proxy
	s.errfn = L.NewFunction(s.errorHandler)
	if !functions {
		s.store.RawSetString("__redis__err__handler", s.errfn)
		s.env = L.CreateTable(0, 64)
		s.store.ForEach(func(k, v lua.LValue) { s.env.RawSet(k, v) })
		// As in Redis 7: _G is the globals table itself, read-only, its
		// metatable refusing names it lacks.
		s.env.RawSetString("_G", s.env)
		L.SetMetatable(s.env, storeMeta)
		s.env.SetReadOnly(true)
		storeMeta.SetReadOnly(true)
	}
	return s
}

// scriptEnv is the environment for an EVAL script: the globals as Redis 7
// has them (env), a read-only table that is its own _G, so that reading a
// global is one lookup and writing one fails as in Redis; KEYS and ARGV are
// set in it for every run (execute). A Functions engine has no env: its
// scripts see the read-only proxy, whose __index FUNCTION LOAD swaps.
func (s *sandbox) scriptEnv(proto *lua.FunctionProto) *lua.LTable {
	if s.env == nil {
		return s.proxy
	}
	return s.env
}

func (s *sandbox) unproxy(v lua.LValue) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if target, ok := s.targets[t]; ok {
			return target
		}
	}
	return v
}

func (s *sandbox) next(L *lua.LState) int {
	t, ok := s.unproxy(L.Get(1)).(*lua.LTable)
	if !ok {
		L.TypeError(1, lua.LTTable)
	}
	if !t.NextKeyValid(L.Get(2)) {
		L.Error(lua.LString("invalid key to 'next'"), 0)
	}
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (s *sandbox) pairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(s.store.RawGetString("next"))
	L.Push(s.unproxy(t))
	L.Push(lua.LNil)
	return 3
}

// protect marks lib read-only, as Redis 7 marks its libraries: scripts read
// it directly (rawget and next included) and cannot write to it.
func (s *sandbox) protect(lib *lua.LTable) *lua.LTable {
	lib.SetReadOnly(true)
	return lib
}

func (s *sandbox) protectWith(p, target *lua.LTable) *lua.LTable {
	mt := s.L.NewTable()
	mt.RawSetString("__index", target)
	mt.RawSetString("__newindex", s.L.NewFunction(luaReadonlyWrite))
	mt.RawSetString("__metatable", s.readonlyView(mt, p))
	s.L.SetMetatable(p, mt)
	s.readonly[p] = true
	s.readonly[target] = true
	s.targets[p] = target
	return mt
}

// readonlyView is what getmetatable returns for a protected table: a
// read-only window on its metatable t, so a script can look (Redis lets it)
// but cannot unhook the protection for the scripts after it. index, when
// not nil, is what the window shows as __index in place of t's: the
// proxy itself, since t's __index is the writable table behind it.
func (s *sandbox) readonlyView(t *lua.LTable, index lua.LValue) *lua.LTable {
	shown := t
	if index != nil {
		shown = s.L.NewTable()
		t.ForEach(func(k, v lua.LValue) { shown.RawSet(k, v) })
		shown.RawSetString("__index", index)
	}
	v := s.L.NewTable()
	mt := s.L.NewTable()
	mt.RawSetString("__index", shown)
	mt.RawSetString("__newindex", s.L.NewFunction(luaReadonlyWrite))
	mt.RawSetString("__metatable", lua.LFalse)
	s.L.SetMetatable(v, mt)
	s.readonly[v] = true
	s.readonly[shown] = true
	return v
}

func luaReadonlyWrite(L *lua.LState) int {
	L.RaiseError(luaErrReadonlyTable)
	return 0
}

func luaMissingGlobal(L *lua.LState) int {
	L.RaiseError(luaErrGlobalAccess, lua.LVAsString(L.Get(2)))
	return 0
}

func (s *sandbox) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	if s.readonly[t] || t.ReadOnly() {
		L.Error(lua.LString(luaErrReadonlyTable), 0)
	}
	L.RawSet(t, L.CheckAny(2), L.CheckAny(3))
	L.SetTop(1)
	return 1
}

func (s *sandbox) setmetatable(L *lua.LState) int {
	if t, ok := L.Get(1).(*lua.LTable); ok && (s.readonly[t] || t.ReadOnly()) {
		L.Error(lua.LString(luaErrReadonlyTable), 0)
	}
	if t := L.Get(2).Type(); L.GetTop() < 2 || t != lua.LTNil && t != lua.LTTable {
		L.ArgError(2, "nil or table expected") // Lua's luaL_argcheck, in its words
	}
	obj := L.Get(1)
	// The raw metatable: GetMetatable answers its __metatable field.
	if t, ok := obj.(*lua.LTable); ok {
		if mt, ok := t.Metatable.(*lua.LTable); ok && mt.RawGetString("__metatable") != lua.LNil {
			L.RaiseError("cannot change a protected metatable")
		}
	}
	L.SetMetatable(obj, L.Get(2))
	L.SetTop(1)
	return 1
}

// loadstring and load compile into the script environment (the read-only
// _G), under the chunk name Lua 5.1 would give them.
func (s *sandbox) loadstring(L *lua.LState) int {
	src := L.CheckString(1)
	name := L.OptString(2, src)
	return s.compileChunk(L, src, name)
}

func (s *sandbox) load(L *lua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "=(load)")
	var b strings.Builder
	for i := 0; i < 1<<20; i++ {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		str, ok := v.(lua.LString)
		if !ok || str == "" {
			break
		}
		b.WriteString(string(str))
	}
	return s.compileChunk(L, b.String(), name)
}

func (s *sandbox) compileChunk(L *lua.LState, src, name string) int {
	// Redis's Lua parses a binary chunk as text (ldo.c's f_parser never
	// calls the undumper), so it fails as a syntax error, as here.
	// The chunk name is a C string in Redis's Lua: it ends at a NUL.
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	display := lua51.ChunkID(name)
	proto, err := lua51.Compile(src, display)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	if len(s.sources) > 1024 {
		s.sources = map[string]string{"user_script": "@user_script", "user_function": "@user_function"}
	}
	s.sources[display] = name
	fn := L.NewFunctionFromProto(proto)
	fn.Env = s.scriptEnv(proto) // the globals the script itself sees
	L.Push(fn)
	return 1
}

func luaGCInfo(L *lua.LState) int {
	L.Push(lua.LNumber(64))
	return 1
}

// luaToString formats numbers as Lua 5.1 does ("%.14g"); gopher-lua uses
// Go's shortest representation.
func luaToString(L *lua.LState) int {
	v := L.CheckAny(1)
	if n, ok := v.(lua.LNumber); ok {
		L.Push(lua.LString(lua51.FormatNumber(float64(n))))
		return 1
	}
	if lualib.IsNull(v) {
		L.Push(lua.LString("userdata: (nil)"))
		return 1
	}
	L.Push(L.ToStringMeta(v))
	return 1
}

// redisPcall is Redis 7's pcall: an error table carrying an err string is
// handed to the script as that string.
func (s *sandbox) redisPcall(L *lua.LState) int {
	L.CheckAny(1)
	v := L.Get(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	nargs := L.GetTop() - 1
	if err := L.PCall(nargs, lua.MultRet, s.pcallfn); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if aerr, ok := err.(*lua.ApiError); ok {
			obj = aerr.Object
		}
		// As Redis 7.0's pcall: an error table's err field replaces it when
		// a string or a number; else the field stays on the stack after
		// it, a third value (Redis pops it only in later versions).
		if o, ok := obj.(*lua.LTable); ok {
			switch e := L.GetField(o, "err"); e.(type) {
			case lua.LString, lua.LNumber:
				obj = e
			default:
				L.Push(lua.LFalse)
				L.Push(obj)
				L.Push(e)
				return 3
			}
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// luaXpcall is xpcall whose handler gets a runtime error in Lua 5.1's
// words, as pcall's caller does (pcallHandler): gopher-lua's own xpcall
// hands it gopher-lua's ("attempt to index a non-table object(nil) with
// key 'x'" for "attempt to index local 't' (a nil value)").
func luaXpcall(L *lua.LState) int {
	fn := L.CheckFunction(1)
	handler := L.NewClosure(xpcallHandler, L.CheckFunction(2))
	top := L.GetTop()
	L.Push(fn)
	if err := L.PCall(0, lua.MultRet, handler); err != nil {
		L.Push(lua.LFalse)
		if aerr, ok := err.(*lua.ApiError); ok {
			L.Push(aerr.Object)
		} else {
			L.Push(lua.LString(err.Error()))
		}
		return 2
	}
	L.Insert(lua.LTrue, top+1)
	return L.GetTop() - top
}

// xpcallHandler rewrites the error as pcallHandler does, then calls the
// script's handler, its upvalue, with it.
func xpcallHandler(L *lua.LState) int {
	L.Push(L.Get(lua.UpvalueIndex(1)))
	L.Push(lua51Error(L, L.Get(1)))
	L.Call(1, 1)
	return 1
}

// pcallHandler rewrites a runtime error into Lua 5.1's words while the
// failing frame still exists; pcall then returns it.
func pcallHandler(L *lua.LState) int {
	L.Push(lua51Error(L, L.Get(1)))
	return 1
}

// lua51Error is v, an error value, with a runtime error's text in Lua
// 5.1's words; called from a handler, while the failing frame exists.
func lua51Error(L *lua.LState, v lua.LValue) lua.LValue {
	if str, ok := v.(lua.LString); ok {
		return lua.LString(lua51.Message(L, string(str), luaErrorFrame(L)))
	}
	return v
}

func (s *sandbox) newRedisTable() *lua.LTable {
	L := s.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":          func(L *lua.LState) int { return s.call(L, true) },
		"pcall":         func(L *lua.LState) int { return s.call(L, false) },
		"error_reply":   luaErrorReply,
		"status_reply":  luaStatusReply,
		"sha1hex":       luaSha1hex,
		"log":           s.log,
		"setresp":       s.setresp,
		"set_repl":      s.setRepl,
		"acl_check_cmd": s.aclCheckCmd,
	}
	if !s.functions {
		// EVAL's own (eval.c's luaCreateFunction's registrations): the
		// Functions engine's redis table has none of them.
		fns["replicate_commands"] = func(L *lua.LState) int { L.Push(lua.LTrue); return 1 }
		fns["breakpoint"] = func(L *lua.LState) int { L.Push(lua.LFalse); return 1 }
		fns["debug"] = func(L *lua.LState) int { return 0 }
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]int{
		"REPL_NONE": replNone, "REPL_AOF": replAOF, "REPL_SLAVE": replSlave,
		"REPL_REPLICA": replSlave, "REPL_ALL": replAll,
		"LOG_DEBUG": LogDebug, "LOG_VERBOSE": LogVerbose, "LOG_NOTICE": LogNotice, "LOG_WARNING": LogWarning,
		"REDIS_VERSION_NUM": redisVersionNum,
	} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(RedisVersion))
	return t
}

// errorTable is how Redis represents errors inside Lua: {err="CODE msg"}.
// A message without a leading '-' gets the generic ERR code.
func errorTable(L *lua.LState, msg string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(errorText(msg)))
	return t
}

// errorText is luaPushErrorBuff's normalisation.
func errorText(msg string) string {
	code := "ERR"
	if strings.HasPrefix(msg, "-") {
		if c, rest, ok := strings.Cut(msg[1:], " "); ok {
			code, msg = c, rest
		} else {
			msg = msg[1:]
		}
	}
	msg = strings.TrimRight(msg, "\r\n")
	return code + " " + msg
}

// luaErrorReply and luaStatusReply answer bad arguments with an error
// table they return, not raise: Redis's quirk, kept.
func luaErrorReply(L *lua.LState) int {
	msg, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, luaErrWrongArgs))
		return 1
	}
	s := string(msg)
	if !strings.HasPrefix(s, "-") {
		s = "-" + s
	}
	L.Push(errorTable(L, s))
	return 1
}

func luaStatusReply(L *lua.LState) int {
	msg, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, luaErrWrongArgs))
		return 1
	}
	L.Push(wrapTable(L, "ok", msg))
	return 1
}

func luaSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Push(errorTable(L, luaErrWrongNumArgs))
		L.Error(L.Get(-1), 0)
		return 0
	}
	s, _ := lua51.ToString(L.Get(1))
	L.Push(lua.LString(sha1Hex(s)))
	return 1
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// logPanic writes to the log a Go panic the VM caught in a library
// function: the script gets a Lua error, the stack goes where an operator
// looks.
func (e *Engine) logPanic(v any, stack []byte) {
	if e.opts.log != nil {
		e.opts.log(LogWarning, fmt.Sprintf("panic in a Lua library function: %v\n%s", v, stack))
	}
}

func (s *sandbox) log(L *lua.LState) int {
	if L.GetTop() < 2 {
		L.Push(errorTable(L, luaErrLogArgs))
		L.Error(L.Get(-1), 0)
		return 0
	}
	level, ok := L.Get(1).(lua.LNumber)
	if !ok {
		L.Push(errorTable(L, luaErrLogLevel))
		L.Error(L.Get(-1), 0)
		return 0
	}
	if level < LogDebug || level > LogWarning {
		L.Push(errorTable(L, luaErrLogInvalidLevel))
		L.Error(L.Get(-1), 0)
		return 0
	}
	parts := make([]string, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		str, _ := lua51.ToString(L.Get(i))
		parts = append(parts, str)
	}
	if s.e.opts.log != nil {
		s.e.opts.log(int(level), strings.Join(parts, " "))
	}
	return 0
}

func (s *sandbox) setresp(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Push(errorTable(L, "redis.setresp() requires one argument."))
		L.Error(L.Get(-1), 0)
		return 0
	}
	// lua_tonumber, truncated to an int: "3" and 3.9 are 3, anything that
	// is no number 0.
	var f float64
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		f = float64(v)
	case lua.LString:
		f, _ = lua.StrToNumber(string(v))
	}
	n := int64(f)
	if n != 2 && n != 3 {
		L.Push(errorTable(L, luaErrRespVersion))
		L.Error(L.Get(-1), 0)
		return 0
	}
	if s.run != nil {
		s.run.resp3 = n == 3
	}
	return 0
}

func (s *sandbox) setRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Push(errorTable(L, luaErrSetReplArgs))
		L.Error(L.Get(-1), 0)
		return 0
	}
	n, ok := L.Get(1).(lua.LNumber)
	if !ok || int(n)&^replAll != 0 {
		L.Push(errorTable(L, luaErrSetReplFlags))
		L.Error(L.Get(-1), 0)
		return 0
	}
	// Without REPL_REPLICA the commands the script calls from now on are
	// not streamed to replicas (scriptCall's call flags); the engine
	// turns it back on when the script ends.
	s.e.m.SetReplicate(int(n)&replSlave != 0)
	return 0
}

func (s *sandbox) aclCheckCmd(L *lua.LState) int {
	if L.GetTop() < 1 {
		L.Push(errorTable(L, luaErrNoArgs))
		L.Error(L.Get(-1), 0)
		return 0
	}
	name, _ := lua51.ToString(L.Get(1))
	if commands.Lookup(name) == nil {
		L.Push(errorTable(L, "Invalid command passed to redis.acl_check_cmd()"))
		L.Error(L.Get(-1), 0)
		return 0
	}
	args := make([]string, L.GetTop())
	for i := range args {
		args[i], _ = lua51.ToString(L.Get(i + 1))
	}
	L.Push(lua.LBool(s.run == nil || s.run.caller == nil || s.e.m.ACLDenial(s.run.caller, args) == ""))
	return 1
}

// errorHandler is Redis's __redis__err__handler: it turns any error into
// a table {err=..., source=..., line=...} naming where the script was when
// it failed (the caller, when the failing function is a Go one).
func (s *sandbox) errorHandler(L *lua.LState) int {
	v := L.Get(1)
	dbg := luaErrorFrame(L)
	t, ok := v.(*lua.LTable)
	if !ok {
		t = L.CreateTable(0, 3)
		str, _ := lua51.ToString(v)
		if v == lua.LNil {
			str = "nil"
		} else if _, isStr := v.(lua.LString); !isStr {
			if _, isNum := v.(lua.LNumber); !isNum {
				str = L.ToStringMeta(v).String()
			}
		}
		t.RawSetString("err", lua.LString("ERR "+lua51.Message(L, str, dbg)))
	}
	if dbg != nil {
		src, ok := s.sources[dbg.Source]
		if !ok {
			src = "@" + dbg.Source
		}
		t.RawSetString("source", lua.LString(src))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
	}
	L.Push(t)
	return 1
}

// luaErrorFrame finds, from inside an error handler, the Lua function that
// was running when the error was raised (its caller, when a Go function
// raised it), as __redis__err__handler's dbg.getinfo(2)/(3) does.
func luaErrorFrame(L *lua.LState) *lua.Debug {
	for level := 1; level < 4; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return nil
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			return nil
		}
		if dbg.What == "G" || dbg.CurrentLine < 0 {
			continue
		}
		return dbg
	}
	return nil
}

// errorFromLua renders a script error the way Redis replies it:
// "<msg> script: <name>, on <source>:<line>."
func errorFromLua(v lua.LValue, name string) string {
	t, ok := v.(*lua.LTable)
	if !ok {
		return "ERR " + lua.LVAsString(v)
	}
	// luaExtractErrorInformation reads each field with lua_isstring, so a
	// number is as good as a string. Without an err Redis 7.0.15 crashes
	// (it formats a NULL); the engine answers its own text instead.
	msg, ok := lua51.ToString(t.RawGetString("err"))
	if !ok {
		msg = miniredis.MsgUnknownError
	}
	src, srcOK := lua51.ToString(t.RawGetString("source"))
	line, lineOK := lua51.ToString(t.RawGetString("line"))
	if srcOK && lineOK {
		return fmt.Sprintf("%s script: %s, on %s:%s.", msg, name, src, line)
	}
	return msg
}
