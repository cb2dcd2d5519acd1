package transactional

import (
	"fmt"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// scriptCommands are the commands the engine serves instead of miniredis.
var scriptCommands = map[string]bool{
	"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true,
	"SCRIPT": true, "FUNCTION": true, "FCALL": true, "FCALL_RO": true,
}

// hook is miniredis's pre-hook: it runs before every command of every
// connection (and of redis.call, which it lets through untouched).
func (e *Engine) hook(c *server.Peer, cmd string, args ...string) bool {
	if c == e.inner {
		// A script's own command: miniredis's copy checks it (its
		// strict.go), and call.go mends what the engine mends after it.
		return false
	}
	if e.opts.realTime && e.running.Load() == nil && !e.followWallClockFor(c) {
		return true
	}
	if e.opts.password != "" && !miniredis.PeerAuthenticated(c) {
		// Redis reads nothing while a script runs, until the busy
		// threshold; then it refuses before it answers BUSY.
		if r := e.running.Load(); r != nil && r.caller != c {
			e.waitBusy(r)
		}
		if e.refuseUnauthenticated(c, cmd, args) {
			c.MarkRejected()
			return true
		}
	}
	if r := e.running.Load(); r != nil && r.caller != c {
		if e.whileBusy(c, r, cmd, args) {
			return true
		}
	}
	if e.refuseACL(c, cmd, args) || e.refuseWrite(c, cmd, args) {
		c.MarkRejected()
		return true
	}
	if !scriptCommands[cmd] {
		return e.redisWay(c, cmd, args)
	}
	e.scriptCommand(c, cmd, args)
	return true
}

// redisWay answers, as Redis does, the client commands whose outcome the
// engine mends after miniredis (inner.go), and reports whether it did;
// everything else is miniredis's, whose copy checks arguments as Redis
// does itself (its strict.go).
func (e *Engine) redisWay(c *server.Peer, cmd string, args []string) bool {
	return e.storeDropsEmpty(c, cmd, args)
}

// whileBusy answers commands that arrive while a script runs: SCRIPT KILL
// and FUNCTION KILL at once, and after the busy threshold everything else
// with BUSY, as Redis does. It reports whether it replied.
func (e *Engine) whileBusy(c *server.Peer, r *run, cmd string, args []string) bool {
	sub := ""
	if len(args) > 0 {
		sub = strings.ToUpper(args[0])
	}
	if (cmd == "SCRIPT" || cmd == "FUNCTION") && sub == "KILL" && len(args) == 1 {
		switch {
		case (cmd == "SCRIPT") == r.function:
			if r.function {
				writeError(c, miniredis.MsgBusyFunction)
			} else {
				writeError(c, miniredis.MsgBusy)
			}
		case r.wrote.Load():
			writeError(c, miniredis.MsgUnkillable)
		default:
			if r.function {
				r.kill(killFunction)
			} else {
				r.kill(killScript)
			}
			c.WriteOK()
		}
		return true
	}
	if !e.waitBusy(r) {
		return false
	}
	if cmd == "FUNCTION" && sub == "STATS" && len(args) == 1 && !r.loading {
		// Served while the script runs, without miniredis's lock, which
		// the script holds: the libraries cannot change meanwhile.
		if !r.function {
			writeError(c, miniredis.MsgBusy)
			return true
		}
		w := resp.Writer{Resp3: c.Resp3}
		e.funcs.stats(&w, r)
		c.WriteRaw(string(w.Buf))
		return true
	}
	if info := lookupCommand(append([]string{cmd}, args...)); info != nil && info.Flags.Has(commands.AllowBusy) {
		return false
	}
	c.MarkRejected() // processCommand's refusal: INFO commandstats' rejected_calls
	if r.function {
		writeError(c, miniredis.MsgBusyFunction)
	} else {
		writeError(c, miniredis.MsgBusy)
	}
	return true
}

// busyCheck is whileBusy for a command that passed the hook while no
// script ran, and then found miniredis's lock held: a script may have
// started in between, and a client waiting for the lock must get BUSY once
// that script passes the busy threshold, not wait for its end.
func (e *Engine) busyCheck(c *server.Peer, cmd string, args []string) bool {
	r := e.running.Load()
	return r != nil && r.caller != c && e.whileBusy(c, r, cmd, args)
}

// busyWhileWaiting is busyCheck for miniredis's own commands, which reach
// the lock without their name: whileBusy answers any but the engine's
// commands with BUSY.
func (e *Engine) busyWhileWaiting(c *server.Peer) bool { return e.busyCheck(c, "", nil) }

// waitBusy waits, as Redis does, for whichever comes first: r's end, or
// the busy threshold, after which Redis answers everyone with BUSY. It
// reports whether r still runs.
func (e *Engine) waitBusy(r *run) bool {
	wait := e.busyThreshold() - r.since()
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-r.finishedChan():
		return false
	case <-t.C:
		return true
	}
}

// scriptCommand validates one of our commands as Redis does before running
// it (arity, AUTH, pub/sub mode, MULTI queueing), then runs it under
// miniredis's lock.
func (e *Engine) scriptCommand(c *server.Peer, cmd string, args []string) {
	if _, ok := checkArity(c, cmd, args); !ok {
		return
	}
	if e.opts.password != "" && !miniredis.PeerAuthenticated(c) {
		writeError(c, miniredis.MsgNoAuth)
		return
	}
	if miniredis.PeerSubscribed(c) {
		writeError(c, fmt.Sprintf(miniredis.MsgPubsubContext, strings.ToLower(cmd)))
		return
	}
	if cmd == "SCRIPT" && strings.EqualFold(args[0], "KILL") || cmd == "FUNCTION" && strings.EqualFold(args[0], "KILL") {
		// Nothing runs (whileBusy catches a running script): Redis's reply.
		writeError(c, miniredis.MsgNotBusy)
		return
	}
	if miniredis.PeerInMulti(c) {
		miniredis.QueuePeer(c, func(p *server.Peer) { e.runCommand(p, cmd, args) })
		c.WriteInline("QUEUED")
		return
	}
	if !e.m.LockFor(c, func(c *server.Peer) bool { return e.busyCheck(c, cmd, args) }) {
		return
	}
	defer e.m.Unlock()
	e.runCommand(c, cmd, args)
}

// checkArity looks a command of Redis's table up and answers, as Redis does
// before anything else, an unknown subcommand or a wrong number of
// arguments; ok is false when it replied.
func checkArity(c *server.Peer, cmd string, args []string) (info *commands.Command, ok bool) {
	info = lookupName(cmd, args)
	if info != nil && info.ArityOK(len(args)+1) {
		return info, true
	}
	lower := strings.ToLower(cmd)
	if info == nil {
		miniredis.MarkPeerDirty(c)
		if len(args) == 0 {
			writeError(c, fmt.Sprintf(miniredis.MsgWrongNumber, lower))
		} else {
			writeError(c, fmt.Sprintf(miniredis.MsgUnknownSubcommand, strings.ToLower(args[0]), cmd))
		}
		return nil, false
	}
	miniredis.MarkPeerDirty(c)
	name := lower
	if strings.Contains(info.Name, "|") {
		name = lower + "|" + strings.ToLower(args[0])
	}
	writeError(c, fmt.Sprintf(miniredis.MsgWrongNumber, name))
	return nil, false
}

// refuseUnauthenticated answers a connection that has not passed AUTH as
// Redis's processCommand does, and reports whether it replied: an unknown
// command is miniredis's to refuse, a bad subcommand or arity gets its
// error, and everything but AUTH, HELLO, QUIT and RESET (Redis's no-auth
// commands) gets NOAUTH. It runs before the busy check because Redis
// refuses before it: SCRIPT KILL from a stranger must not stop a script.
func (e *Engine) refuseUnauthenticated(c *server.Peer, cmd string, args []string) bool {
	if lookupCommand([]string{cmd}) == nil {
		return false
	}
	info, ok := checkArity(c, cmd, args)
	if !ok {
		return true
	}
	if info.Flags.Has(commands.NoAuth) {
		return false
	}
	writeError(c, miniredis.MsgNoAuth)
	return true
}

// validateSubcommand checks SCRIPT FLUSH's and FUNCTION FLUSH's
// arguments as their commands do when they run: in a transaction the
// command is queued and fails at EXEC, as in Redis.
func validateSubcommand(cmd string, args []string) string {
	if cmd != "SCRIPT" && cmd != "FUNCTION" || !strings.EqualFold(args[0], "FLUSH") {
		return ""
	}
	if cmd == "FUNCTION" && len(args) > 2 {
		return fmt.Sprintf(msgSubcommandSyntax, args[0])
	}
	if len(args) > 2 || len(args) == 2 && !strings.EqualFold(args[1], "SYNC") && !strings.EqualFold(args[1], "ASYNC") {
		if cmd == "SCRIPT" {
			return miniredis.MsgScriptFlushOpt
		}
		return miniredis.MsgFunctionFlushOpt
	}
	return ""
}

// runCommand runs one of our commands; the caller holds miniredis's lock.
func (e *Engine) runCommand(c *server.Peer, cmd string, args []string) {
	// A unit of replication: a script propagates the effects of the
	// commands it called, wrapped in MULTI/EXEC when more than one, and
	// never itself (Redis 7's script.c, preventCommandPropagation).
	// redis.set_repl lasts one script; runScriptCommand recovers panics.
	defer e.m.SetReplicate(true)
	if !e.m.Replicating() {
		e.runScriptCommand(c, cmd, args) // no closure for the unit
		return
	}
	e.m.Unit(cmd, func() { e.runScriptCommand(c, cmd, args) })
}

func (e *Engine) runScriptCommand(c *server.Peer, cmd string, args []string) {
	defer e.recoverInto(c)
	switch cmd {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO":
		e.cmdEval(c, cmd, args)
	case "SCRIPT":
		e.cmdScript(c, args)
	case "FUNCTION":
		e.cmdFunction(c, args)
	case "FCALL", "FCALL_RO":
		e.cmdFcall(c, cmd, args)
	}
}

// recoverInto turns a panic in the engine into an error reply: a bug in the
// sandbox must not take the keyspace (and miniredis's lock) down with it.
func (e *Engine) recoverInto(c *server.Peer) {
	if v := recover(); v != nil {
		e.clearRunning()
		writeError(c, fmt.Sprintf(msgInternal, v))
	}
}

// clearRunning forgets the script a panic interrupted.
func (e *Engine) clearRunning() {
	e.running.Store(nil)
	e.eval.run = nil
	e.funcs.sandbox.run = nil
}
