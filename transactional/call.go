package transactional

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

// call implements redis.call (raise=true) and redis.pcall: the checks of
// Redis 7's scriptCall, in its order, then a nested dispatch into miniredis.
func (s *sandbox) call(L *lua.LState, raise bool) int {
	failWith := func(t *lua.LTable) int {
		if raise {
			L.Error(t, 0)
			return 0
		}
		L.Push(t)
		return 1
	}
	fail := func(msg string) int { return failWith(errorTable(L, msg)) }
	// A refusal of the command itself (scriptCall's), unlike a misuse of
	// redis.call, carries the flag Redis 7.0 adds to a command's errors.
	// Redis counts the refusal in INFO errorstats there and then (the
	// flag keeps the script's error reply from counting it again).
	// It counts as a rejected call of the command, not as an error of
	// the script's caller (scriptCall's error label).
	refuse := func(msg string) int {
		t := errorTable(L, msg)
		s.e.inner.CountError(lua.LVAsString(t.RawGetString("err")))
		if n := L.GetTop(); n > 0 {
			if name, ok := L.Get(1).(lua.LString); ok {
				s.e.srv.CommandStat(strings.ToUpper(string(name)), callArgs(L, n)).Reject()
			}
		}
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return failWith(t)
	}
	r := s.run
	if r == nil {
		// Only during FUNCTION LOAD: the library body may not touch data.
		L.RaiseError("%s", "attempt to call field 'call' (a nil value)")
		return 0
	}
	n := L.GetTop()
	if n == 0 {
		return fail(luaErrNoArgs)
	}
	if r.journal != nil {
		if msg := r.journal.refusal(L); msg != "" {
			// Raised even from pcall, as the prelude raises it.
			L.Error(errorTable(L, msg), 0)
			return 0
		}
	}
	// The arguments go in a slice kept from call to call: nothing keeps
	// it past the call (miniredis copies what it stores). It is cleared
	// after, so that it pins no value, and taken while in use, so that a
	// call within this one, were there ever one, would get its own.
	buf := s.argBuf
	s.argBuf = nil
	if cap(buf) < n {
		buf = make([]string, max(n, 8))
	}
	args := buf[:n]
	defer func() {
		clear(args)
		s.argBuf = buf
	}()
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args[i-1] = string(v)
		case lua.LNumber:
			args[i-1] = formatCallNumber(float64(v))
		default:
			return fail(luaErrArgType)
		}
	}
	sc := s.e.scriptCmdFor(args[0])
	info := sc.info
	if info != nil && info.Container {
		info = lookupCommand(args) // the subcommand decides
	}
	if info == nil {
		return refuse(luaErrUnknownCommand)
	}
	if !info.ArityOK(n) {
		return refuse(luaErrWrongArity)
	}
	if info.Flags.Has(commands.NoScript) && !s.e.noScriptAllowed(info) {
		return refuse(luaErrNotAllowed)
	}
	if msg := s.e.aclInScript(r, args); msg != "" {
		return refuse(msg)
	}
	name, _, _ := strings.Cut(info.Name, "|")
	if (name == "xread" || name == "xreadgroup") && hasBlockOption(args) {
		// Redis's own text has no ERR code; luaPushError adds it.
		return refuse(strings.Replace(luaErrXreadBlock, "xread", args[0], 1))
	}
	if info.Flags.Has(commands.Write) {
		if r.readOnly {
			return refuse("-" + miniredis.MsgWriteFromReadOnly)
		}
		if msg := s.e.refusalInScript(r, info); msg != "" {
			return refuse("-" + msg)
		}
		r.wrote.Store(true)
		if r.journal != nil {
			s.e.record(r.journal, miniredis.PeerDB(s.e.inner), args)
		}
	}
	out := s.e.dispatchToLua(L, sc, args, r.resp3)
	if isEmptyingStore(name) {
		s.e.dropEmpty(args[1])
	}
	switch {
	case !out.done:
		return fail("ERR incomplete reply from " + args[0])
	case out.isErr && raise:
		L.Error(out.value, 0)
		return 0
	}
	L.Push(out.value)
	return 1
}

func hasBlockOption(args []string) bool {
	for _, a := range args[1:] {
		switch strings.ToLower(a) {
		case "block":
			return true
		case "streams":
			return false
		}
	}
	return false
}

// formatCallNumber is how redis.call turns a Lua number into an argument:
// C's "%.17g", whose NaN keeps its sign ("-nan" for 0/0 on x86-64).
func formatCallNumber(f float64) string { return lua.FormatNumber(f, 17) }

// callArgs is redis.call's arguments after the command name, as far as
// they are strings: enough to name a subcommand.
func callArgs(L *lua.LState, n int) []string {
	if n < 2 {
		return nil
	}
	if sub, ok := L.Get(2).(lua.LString); ok {
		return []string{string(sub)}
	}
	return nil
}
