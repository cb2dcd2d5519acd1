package transactional

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// evalScript is one entry of the script cache (SCRIPT LOAD / EVAL).
type evalScript struct {
	sha   string
	flags scriptFlags
	fn    *lua.LFunction
	host  *hosting // a prelude-wrapped script, run with the engine's journal
}

// createScript is luaCreateFunction: shebang, compile, cache. Text that
// is the bundler's prelude-wrapped script is recognised and hosted.
func (e *Engine) createScript(body string) (*evalScript, error) {
	return e.createScriptWith(body, hostScript)
}

// createScriptWith is createScript with host saying what to compile for
// the code after the shebang, and whether it runs on the engine's journal.
func (e *Engine) createScriptWith(body string, host func(string) (string, *hosting)) (*evalScript, error) {
	sha := sha1Hex(body)
	if sc, ok := e.scripts[sha]; ok {
		return sc, nil
	}
	flags, src, err := parseShebang(body)
	if err != nil {
		return nil, err
	}
	src, hosted := host(src)
	proto, err := lua51.Compile(src, "user_script")
	if err != nil {
		return nil, fmt.Errorf(miniredis.MsgCompile, err.Error())
	}
	fn := e.eval.L.NewFunctionFromProto(proto)
	fn.Env = e.eval.scriptEnv(proto)
	sc := &evalScript{sha: sha, flags: flags, fn: fn, host: hosted}
	e.scripts[sha] = sc
	return sc, nil
}

// script is the cached script of sha, in either case: a look-up as
// given first, as clients send the lower case SCRIPT LOAD returns.
func (e *Engine) script(sha string) *evalScript {
	if sc, ok := e.scripts[sha]; ok {
		return sc
	}
	return e.scripts[strings.ToLower(sha)]
}

// parseNumKeys validates EVAL's numkeys against the remaining arguments.
func parseNumKeys(args []string) (keys, argv []string, errMsg string) {
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return nil, nil, miniredis.MsgInvalidInt
	}
	if n < 0 {
		return nil, nil, miniredis.MsgNegativeKeys
	}
	if n > int64(len(args)-1) {
		return nil, nil, miniredis.MsgTooManyKeys
	}
	return args[1 : 1+n], args[1+n:], ""
}

// cmdEval serves EVAL, EVALSHA, EVAL_RO and EVALSHA_RO. Called with
// miniredis's lock held.
func (e *Engine) cmdEval(c *server.Peer, cmd string, args []string) {
	keys, argv, msg := parseNumKeys(args[1:])
	if msg != "" {
		writeError(c, msg)
		return
	}
	var sc *evalScript
	if cmd == "EVALSHA" || cmd == "EVALSHA_RO" {
		sc = e.script(args[0])
		if sc == nil {
			writeError(c, miniredis.MsgNoScript)
			return
		}
	} else {
		var err error
		if sc, err = e.createScript(args[0]); err != nil {
			writeError(c, err.Error())
			return
		}
	}
	c.WriteRawBytes(e.evalScript(c, sc, strings.HasSuffix(cmd, "_RO"), keys, argv))
}

// evalScript runs the cached script sc for c (readOnly: called as
// EVAL_RO or EVALSHA_RO) and returns its reply, valid until the next run;
// while e.goReply is set, the reply goes there instead, as Go values.
// Called with miniredis's lock held.
func (e *Engine) evalScript(c *server.Peer, sc *evalScript, readOnly bool, keys, argv []string) []byte {
	if readOnly && sc.flags&(scriptNoWrites|scriptCompat) == 0 {
		w := resp.Writer{Buf: e.reply[:0], G: e.goReply}
		w.ErrorReply(miniredis.MsgWriteFlagWithRO)
		c.CountError(miniredis.MsgWriteFlagWithRO)
		e.reply = w.Buf
		return w.Buf
	}
	r := e.runs.next(c, sc.sha)
	r.flags = sc.flags
	r.readOnly = readOnly || sc.flags&scriptNoWrites != 0
	if sc.host != nil {
		r.hosted = true
		r.refused = sc.host.refused
	}
	e.startJournal(c, r)
	return e.execute(e.eval, r, sc.fn, keys, argv)
}

// execute runs fn for r in sandbox s and returns its reply to r.caller,
// valid until the next run. EVAL scripts see KEYS and ARGV as globals;
// functions get them as their two arguments.
func (e *Engine) execute(s *sandbox, r *run, fn *lua.LFunction, keys, argv []string) []byte {
	L := s.L
	L.SetTop(0)
	nargs := 0
	L.Push(fn)
	if r.function {
		L.Push(s.keys.table(L, keys))
		L.Push(s.argv.table(L, argv))
		nargs = 2
	} else {
		k, freshK := s.keys.reused(L, keys)
		a, freshA := s.argv.reused(L, argv)
		if freshK || freshA {
			s.store.RawSetString("KEYS", k)
			s.store.RawSetString("ARGV", a)
			if s.env != nil {
				s.env.RawSetString("KEYS", k)
				s.env.RawSetString("ARGV", a)
			}
		}
		if r.hosted {
			s.pushHosted(L)
			nargs = 3
		}
	}
	miniredis.PrepareNested(e.inner, miniredis.PeerDB(r.caller), r.name)

	s.run = r
	if hook := testHookLocked.Load(); hook != nil {
		(*hook)()
	}
	e.running.Store(r)
	L.SetContext(runCtx{r})
	e.armLimit()
	e.armMemory()
	err := L.PCall(nargs, 1, s.errfn)
	L.RemoveContext()
	e.running.Store(nil)
	r.end()
	s.run = nil

	if r.journal != nil {
		if err != nil {
			e.rollback(r.journal)
		}
		r.journal = nil
	}
	w := resp.Writer{Buf: e.reply[:0], Resp3: r.caller.Resp3, G: e.goReply}
	if err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if aerr, ok := err.(*lua.ApiError); ok {
			obj = aerr.Object
		}
		switch reason := r.killed(); reason {
		case killNone:
		case killMemory:
			obj = lua.LString(fmt.Sprintf(msgLuaMemory, r.name))
		default:
			obj = killedError(L, obj, reason)
		}
		w.ErrorReply(errorFromLua(obj, r.name))
		countErrorReply(r.caller, w.Buf, obj)
	} else {
		writeLuaReply(&w, L.Get(-1), r.resp3, 0)
		countErrorReply(r.caller, w.Buf, L.Get(-1))
	}
	L.SetTop(0)
	e.reply = w.Buf
	return w.Buf
}

// countScriptError counts in INFO errorstats the error reply a script
// run ends with (reply, made from the Lua value v), as luaCallFunction
// and luaReplyToRedisReply do: unless v carries the flag of an error that
// was counted when the command inside the script failed.
func countErrorReply(c *server.Peer, reply []byte, v lua.LValue) {
	if len(reply) == 0 || reply[0] != '-' {
		return
	}
	if t, ok := v.(*lua.LTable); ok && t.RawGetString("ignore_error_stats_update") == lua.LTrue {
		// Still a failed call of the script's command.
		c.MarkFailed()
		return
	}
	end := bytes.IndexByte(reply, '\r')
	if end < 0 {
		end = len(reply)
	}
	c.CountError(string(reply[1:end]))
}

// armLimit arms the script time limit for the run just stored in
// e.running. One timer per engine, left running between runs: resetting
// and stopping a timer per run cost more than a short script. A firing
// looks at the run in progress, if any: it stops it when it has reached
// the limit, and otherwise arms the timer again for the time it has left.
// limitArmed says a firing is pending; it is cleared before the firing
// looks at e.running, and set after a run is stored there, so either the
// firing sees the new run or the run sees that it must arm.
func (e *Engine) armLimit() {
	if e.opts.timeLimit <= 0 || e.limitArmed.Load() {
		return
	}
	e.limitAt(e.opts.timeLimit)
}

// limitAt arms the timer to fire after d, unless it is armed already.
func (e *Engine) limitAt(d time.Duration) {
	if !e.limitArmed.CompareAndSwap(false, true) {
		return
	}
	e.limit.Reset(d)
}

// loadTimeout is Redis's LOAD_TIMEOUT_MS (functions.h): a library body
// that runs longer fails FUNCTION LOAD with "FUNCTION LOAD timeout",
// whatever the scripts' time limit.
const loadTimeout = 500 * time.Millisecond

// limitOf is how long r may run: loadTimeout for a library body (or the
// time limit, if shorter), the time limit for a script.
func (e *Engine) limitOf(r *run) time.Duration {
	if r.loading && (e.opts.timeLimit <= 0 || e.opts.timeLimit > loadTimeout) {
		return loadTimeout
	}
	return e.opts.timeLimit
}

func (e *Engine) limitReached() {
	e.limitArmed.Store(false)
	r := e.running.Load()
	if r == nil {
		return
	}
	limit := e.limitOf(r)
	if limit <= 0 {
		// No time limit: the timer was armed for a FUNCTION LOAD that
		// has ended since.
		return
	}
	if left := limit - r.since(); left > 0 {
		e.limitAt(left)
		return
	}
	r.kill(killTimeLimit)
}

// killedError replaces a stopped script's error message, keeping where it
// was stopped.
func killedError(L *lua.LState, obj lua.LValue, reason killReason) lua.LValue {
	t := L.CreateTable(0, 3)
	if old, ok := obj.(*lua.LTable); ok {
		t.RawSetString("source", old.RawGetString("source"))
		t.RawSetString("line", old.RawGetString("line"))
	}
	switch reason {
	case killScript:
		t.RawSetString("err", lua.LString(miniredis.MsgScriptKilled))
	case killFunction:
		t.RawSetString("err", lua.LString(miniredis.MsgFunctionKilled))
	default:
		t.RawSetString("err", lua.LString(msgTimeLimit))
	}
	return t
}

// boxes keeps the Lua values of the last KEYS or ARGV by position. A
// string becomes a Lua value by an allocation; callers such as the
// simulator send the same keys and mostly the same arguments on every run.
type boxes struct {
	s []string
	v []lua.LValue
	t *lua.LTable // the table reused hands out, once made
}

// table is a fresh KEYS or ARGV table for ss: the script may change it.
func (b *boxes) table(L *lua.LState, ss []string) *lua.LTable {
	t := L.CreateTable(len(ss), 0)
	b.fill(t, ss)
	return t
}

// reused is table for EVAL scripts: one table, emptied and filled again
// for each run (fresh: made now). No reference to it survives an EVAL
// script: its globals, the libraries and the string metatable are
// read-only, so nothing a run makes is reachable from the next. (A
// function library's locals do survive its calls: FCALL gets table's.)
func (b *boxes) reused(L *lua.LState, ss []string) (t *lua.LTable, fresh bool) {
	if b.t == nil {
		b.t, fresh = L.CreateTable(len(ss), 0), true
	} else {
		b.t.Reset()
	}
	b.fill(b.t, ss)
	return b.t, fresh
}

func (b *boxes) fill(t *lua.LTable, ss []string) {
	if len(b.s) < len(ss) {
		b.s = append(b.s, make([]string, len(ss)-len(b.s))...)
		b.v = append(b.v, make([]lua.LValue, len(ss)-len(b.v))...)
	}
	for i, x := range ss {
		if b.v[i] == nil || b.s[i] != x {
			b.s[i], b.v[i] = x, lua.LString(x)
		}
		t.RawSetInt(i+1, b.v[i])
	}
}

func writeError(c *server.Peer, msg string) {
	w := resp.Writer{}
	w.ErrorReply(msg)
	writeReply(c, w.Buf)
}

// writeReply writes a reply the engine made in RESP, counting it in INFO
// errorstats if it is an error.
func writeReply(c *server.Peer, reply []byte) {
	countErrorReply(c, reply, nil)
	c.WriteRawBytes(reply)
}

// cmdScript serves SCRIPT LOAD/EXISTS/FLUSH/HELP (KILL is handled without
// the lock, in the hook). Called with miniredis's lock held.
func (e *Engine) cmdScript(c *server.Peer, args []string) {
	sub := strings.ToUpper(args[0])
	w := resp.Writer{Resp3: c.Resp3}
	switch sub {
	case "LOAD":
		sc, err := e.createScript(args[1])
		if err != nil {
			w.ErrorReply(err.Error())
			break
		}
		w.Bulk(sc.sha)
	case "EXISTS":
		w.Array(len(args) - 1)
		for _, sha := range args[1:] {
			if _, ok := e.scripts[strings.ToLower(sha)]; ok {
				w.Integer(1)
			} else {
				w.Integer(0)
			}
		}
	case "FLUSH":
		if msg := validateSubcommand("SCRIPT", args); msg != "" {
			w.ErrorReply(msg)
			break
		}
		e.scripts = map[string]*evalScript{}
		// Redis also resets the Lua state (but not math.random's
		// generator, which lives outside it: see rand48).
		e.eval = newSandbox(e, false)
		w.Status("OK")
	case "HELP":
		help := scriptHelp
		w.Array(len(help))
		for _, l := range help {
			w.Status(l)
		}
	case "DEBUG":
		// Redis's Lua debugger (ldb) is not here; NO turns it off, which
		// it always is, and a mode Redis does not know gets its text.
		switch strings.ToUpper(args[1]) {
		case "NO":
			w.Status("OK")
		case "YES", "SYNC":
			w.ErrorReply("ERR SCRIPT DEBUG is not supported by scriptgen's engine")
		default:
			w.ErrorReply(msgScriptDebugMode)
		}
	}
	writeReply(c, w.Buf)
}

var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}
