package transactional

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// What CONFIG and DEBUG (served by miniredis's copy: cmd_config.go,
// cmd_debug.go) change in the engine: the busy threshold, maxmemory's
// denial of writes, and the function libraries DEBUG RELOAD carries.

// adminState is what other goroutines read of CONFIG's settings without
// miniredis's lock, which a running script holds.
type adminState struct {
	busyThreshold atomic.Int64 // nanoseconds; busy-reply-threshold (lua-time-limit)
	maxmemory     atomic.Int64 // bytes; 0: no limit
	minReplicas   atomic.Int64 // min-replicas-to-write while min-replicas-max-lag is set
}

// Redis's reply to a command that may grow memory past maxmemory
// (shared.oomerr), and to a script whose flags do not allow it
// (scriptPrepareForRun).
const msgOOM = "OOM command not allowed when used memory > 'maxmemory'."

// Redis's reply to a write while fewer replicas than min-replicas-to-write
// are connected (shared.noreplicaserr): serve has none.
const msgNoReplicas = "NOREPLICAS Not enough good replicas to write."

// wireAdmin connects CONFIG SET and DEBUG RELOAD to the engine; New calls
// it once, before anyone else can reach miniredis.
func (e *Engine) wireAdmin() {
	e.admin.busyThreshold.Store(int64(e.opts.busyThreshold))
	e.m.Lock()
	_ = e.m.SetConfig("busy-reply-threshold", strconv.FormatInt(e.opts.busyThreshold.Milliseconds(), 10))
	e.m.Unlock()
	e.m.OnConfigSet(func(name, value string) {
		n, _ := strconv.ParseInt(value, 10, 64)
		switch name {
		case "busy-reply-threshold":
			e.admin.busyThreshold.Store(int64(time.Duration(n) * time.Millisecond))
		case "maxmemory":
			e.admin.maxmemory.Store(n)
		case "min-replicas-to-write", "min-replicas-max-lag":
			// checkGoodReplicasStatus: both must be set to count.
			n = e.m.ConfigInt("min-replicas-to-write")
			if e.m.ConfigInt("min-replicas-max-lag") == 0 {
				n = 0
			}
			e.admin.minReplicas.Store(n)
		}
	})
	e.m.SetReloadHooks(miniredis.ReloadHooks{
		Save: func() any {
			var codes []string
			for _, lib := range e.funcs.libs {
				codes = append(codes, lib.code)
			}
			return codes
		},
		Flush: func() { e.funcs = newFunctionRegistry(e) },
		Load: func(saved any, merge bool) error {
			codes, _ := saved.([]string)
			for _, code := range codes {
				if _, msg := e.funcs.load(e.doPeer, code, merge); msg != "" {
					return errString(msg)
				}
			}
			return nil
		},
	})
}

type errString string

func (e errString) Error() string { return string(e) }

// busyThreshold is how long a script runs before others get BUSY.
func (e *Engine) busyThreshold() time.Duration {
	return time.Duration(e.admin.busyThreshold.Load())
}

// refuseWrite answers, as processCommand does, a command refused for
// memory or replicas, and reports whether it did: past maxmemory, one that
// may grow memory (denyoom, or anything queued in MULTI) gets OOM; with
// min-replicas-to-write set, a write gets NOREPLICAS unless that many
// replicas acknowledged the stream within min-replicas-max-lag. A script's own flags decide for EVAL, EVALSHA and FCALL:
// without a shebang a script is let in (its commands are checked inside,
// refusalInScript); with one it needs no-writes, or allow-oom for memory.
func (e *Engine) refuseWrite(c *server.Peer, cmd string, args []string) bool {
	limit, replicas := e.admin.maxmemory.Load(), e.admin.minReplicas.Load()
	if limit == 0 && replicas == 0 {
		return false
	}
	e.m.Lock()
	defer e.m.Unlock()
	denyOOM, write := e.commandFlags(cmd, args)
	if miniredis.PeerInMulti(c) && cmd != "EXEC" && cmd != "DISCARD" && cmd != "QUIT" && cmd != "RESET" {
		denyOOM = true
	}
	msg := ""
	switch {
	case limit > 0 && denyOOM && e.m.UsedMemory() > limit:
		msg = msgOOM
	case replicas > 0 && write && e.tooFewReplicas(replicas):
		msg = msgNoReplicas
	default:
		return false
	}
	miniredis.MarkPeerDirty(c)
	writeError(c, msg)
	return true
}

// tooFewReplicas says whether fewer than n replicas acknowledged the
// stream within min-replicas-max-lag seconds; the caller holds
// miniredis's lock.
func (e *Engine) tooFewReplicas(n int64) bool {
	return int64(e.m.GoodReplicas(e.m.ConfigInt("min-replicas-max-lag"))) < n
}

// commandFlags says whether Redis flags this call denyoom and write
// (getCommandFlags, with a script's flags for the script commands); the
// caller holds miniredis's lock.
func (e *Engine) commandFlags(cmd string, args []string) (denyOOM, write bool) {
	var flags scriptFlags
	switch cmd {
	case "EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO", "FCALL", "FCALL_RO":
		if len(args) == 0 {
			return false, false
		}
		flags = scriptCompat
		switch {
		case strings.HasPrefix(cmd, "EVALSHA"):
			if sc := e.script(args[0]); sc != nil {
				flags = sc.flags
			}
		case strings.HasPrefix(cmd, "EVAL"):
			if f, _, err := parseShebang(args[0]); err == nil {
				flags = f
			}
		default:
			if f, ok := e.funcs.funcs[args[0]]; ok {
				flags = f.flags
			}
		}
	default:
		info := lookupCommand(append([]string{cmd}, args...))
		return info != nil && info.Flags.Has(commands.DenyOOM), info != nil && info.Flags.Has(commands.Write)
	}
	if flags&scriptCompat != 0 || flags&scriptNoWrites != 0 {
		return false, false
	}
	return flags&scriptAllowOOM == 0, true
}

// refusalInScript is scriptVerifyWriteCommandAllow's replica check and
// scriptVerifyOOM, for a write command a script calls: NOREPLICAS with
// min-replicas-to-write set; OOM past maxmemory for a denyoom command as
// the script's first write, unless it has allow-oom. The caller holds
// miniredis's lock.
func (e *Engine) refusalInScript(r *run, info *commands.Command) string {
	if n := e.admin.minReplicas.Load(); n > 0 && e.tooFewReplicas(n) {
		return msgNoReplicas
	}
	limit := e.admin.maxmemory.Load()
	if limit == 0 || r.flags&scriptAllowOOM != 0 || r.wrote.Load() || !info.Flags.Has(commands.DenyOOM) {
		return ""
	}
	if e.m.UsedMemory() > limit {
		return msgOOM
	}
	return ""
}

// noScriptAllowed says whether DEBUG set-disable-deny-scripts lets
// scripts call commands flagged noscript; the caller holds miniredis's
// lock.
func (e *Engine) noScriptAllowed(info *commands.Command) bool {
	// Redis's switch spares nothing. The engine cannot run a script within
	// a script, and miniredis would block a blocking command with the
	// keyspace locked where Redis answers as if it timed out at once: those
	// stay refused.
	name, _, _ := strings.Cut(info.Name, "|")
	return e.m.DisableDenyScripts() && !info.Flags.Has(commands.Blocking) && !scriptCommands[strings.ToUpper(name)]
}

// Redis's refusals of a command the connection's ACL user may not run
// (processCommand), and of one a script's caller may not (scriptVerifyACL).
const (
	msgNoPermCmd     = "NOPERM this user has no permissions to run the '%s' command"
	msgNoPermKey     = "NOPERM this user has no permissions to access one of the keys used as arguments"
	msgScriptNoCmd   = "The user executing the script can't run this command or subcommand"
	msgScriptNoKey   = "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	aclDeniedCommand = "cmd"
)

// refuseACL answers a command the connection's ACL user (ACL SETUSER,
// AUTH user pass) may not run, and reports whether it did. Connections of
// the default user, all of them unless ACL is used, skip the lock.
func (e *Engine) refuseACL(c *server.Peer, cmd string, args []string) bool {
	if miniredis.PeerUser(c) == "" {
		return false
	}
	argv := append([]string{cmd}, args...)
	e.m.Lock()
	denial := e.m.ACLDenial(c, argv)
	e.m.Unlock()
	switch denial {
	case "":
		return false
	case aclDeniedCommand:
		name := strings.ToLower(cmd)
		if info := lookupCommand(argv); info != nil {
			name = info.Name
		}
		writeError(c, fmt.Sprintf(msgNoPermCmd, name))
	default:
		writeError(c, msgNoPermKey)
	}
	miniredis.MarkPeerDirty(c)
	return true
}

// aclInScript is scriptVerifyACL for a command a script calls, as the
// script's caller; the caller holds miniredis's lock.
func (e *Engine) aclInScript(r *run, args []string) string {
	if r.caller == nil {
		return ""
	}
	switch e.m.ACLDenial(r.caller, args) {
	case "":
		return ""
	case aclDeniedCommand:
		return msgScriptNoCmd
	}
	return msgScriptNoKey
}
