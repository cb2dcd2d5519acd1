package prelude

import (
	"fmt"
	"sort"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/luaflow"
)

// Failure injection, a test aid: the text the bundler ships for a script,
// with its k-th redis.call or redis.pcall raising an error instead of
// running, as a Redis command that fails changes nothing. Only the script's
// own calls count, not the journal's reads: the counter shadows the redis
// the body sees (and the runtime's rawName), inside the runtime's run, so
// the journal, declared before it, still calls Redis's own.
//
// The error is InjectedError; when a write the journal does not undo (a
// final write: rawName under the runtime, any write in a script shipped
// unwrapped or under the inline journal) has already run, it ends with
// BeyondProof. The proof says nothing can fail after a final write, so such
// an injection is outside its model: a keyspace that differs then is not a
// rollback's fault. (Under the inline journal, the hash writes it plans
// count as final here too: a conservative reading, which only moves
// injections out of the model.)
//
// The text is recognised by no host (Unwrap): an engine runs it as the
// Lua it is, the runtime included.

// InjectedError starts the error an injected failure raises.
const InjectedError = "ERR scriptgen injected failure"

// BeyondProof ends it when a final write ran before it.
const BeyondProof = "after a final write"

// Inject is Ship(src) with the script's k-th call failing (k ≥ 1).
func Inject(src string, k int) string { return inject(ShipParts(src), src, k) }

// InjectJournaled is Inject for src under the runtime with every write
// journaled, none taken as final: what tells a final write that needed an
// undo (the proof's mistake) from a handler's.
func InjectJournaled(src string, k int) string {
	an := luaflow.Analyze(src)
	an.Final, an.Plans = nil, nil
	return inject(wrapped(src, an), src, k)
}

func inject(w Shipped, src string, k int) string {
	hook := injector(src, k, w.Runtime)
	if !w.Runtime {
		// The body is the chunk itself (unwrapped, or inline journal
		// first): shadowing at its top reaches the helpers too.
		if strings.HasPrefix(w.Rest, inlineHead) {
			// An EVAL script's body is xpcall's function where it
			// stands (inlineEval): the hook goes first in it, so the
			// undos after it call Redis's own redis.
			if i := strings.Index(w.Rest, inlineBody); i >= 0 {
				i += len(inlineBody)
				return w.Rest[:i] + hook + w.Rest[i:]
			}
			i := strings.Index(w.Rest, " "+inlinePrefix)
			return w.Rest[:i] + " " + hook + w.Rest[i:]
		}
		return hook + w.Rest
	}
	i := strings.Index(w.Rest, runPrefix) + len(runPrefix)
	return w.Head + w.Rest[:i] + hook + w.Rest[i:]
}

// InjectPlain is src as is with the same failure: what a run of the script
// without any journal leaves (every write counts as undone by nothing).
func InjectPlain(src string, k int) string {
	return injector(src, k, false) + src
}

// injector is a line-free statement that shadows redis (and, under the
// runtime, rawName) with counting tables. Under the runtime only rawName
// calls are final (not its trimName's, see direct); otherwise every write
// named in src is.
func injector(src string, k int, runtime bool) string {
	writes := "{}"
	if !runtime {
		var ws []string
		for name := range spellingsOf(src) {
			if c := commands.Lookup(name); c != nil && c.Flags.Has(commands.Write) {
				ws = append(ws, fmt.Sprintf("[%q] = true", name))
			}
		}
		sort.Strings(ws)
		writes = "{" + strings.Join(ws, ", ") + "}"
	}
	raw := "nil"
	if runtime {
		raw = "__scriptgen_i(" + rawName + ", true)"
	}
	return fmt.Sprintf("local __scriptgen_i do local n, fin, w = 0, false, %s "+
		"__scriptgen_i = function(r, final) if not r then return r end "+
		"local function hook(f, final) return function(cmd, ...) n = n + 1 "+
		"if n == %d then error({err = '%s at call ' .. n .. (fin and ' %s' or '')}) end "+
		"if final or type(cmd) == 'string' and w[string.lower(cmd)] then fin = true end "+
		"return f(cmd, ...) end end "+
		"local t = r.%s "+
		"return setmetatable({call = hook(r.call, final), pcall = hook(r.pcall, final), %s = t and {call = hook(t.call, false)}}, {__index = r}) end end "+
		"local redis, %s = __scriptgen_i(redis, false), %s ",
		writes, k, InjectedError, BeyondProof, trimName, trimName, rawName, raw)
}
