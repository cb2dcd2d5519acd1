package transactional

import (
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// journal is the write journal of one transactional run: each key's
// complete state (type, value, expiry, or absence) before the run's first
// write to it. On error every journaled key is put back; on success the
// journal is dropped. Snapshots are deep copies of miniredis's own values
// (miniredis.KeySnapshot), so every type it holds is covered, HyperLogLogs and hash
// field expiries included.
type journal struct {
	entries []journalEntry
	seen    map[journalKey]struct{}
	// refused are the lower-case commands the run refuses before they
	// run; "copy" stands for COPY with a DB option.
	refused map[string]bool
}

type journalKey struct {
	db  int
	key string
}

type journalEntry struct {
	journalKey
	snap miniredis.KeySnapshot
}

// allRefused is what a run started with DoTransactional refuses: every
// write whose effect reaches beyond the keys of the current database.
var allRefused = map[string]bool{"flushall": true, "flushdb": true, "swapdb": true, "move": true, "select": true, "copy": true}

func newJournal(refused map[string]bool) *journal {
	return &journal{seen: map[journalKey]struct{}{}, refused: refused}
}

// refusal returns the error a journaled run raises instead of running args,
// or "". It is the prelude's check, made where the prelude makes it: before
// any of Redis's own checks, on the command name only.
func (j *journal) refusal(L *lua.LState) string {
	name, ok := L.Get(1).(lua.LString)
	if !ok || len(j.refused) == 0 {
		return ""
	}
	lower := strings.ToLower(string(name))
	if !j.refused[lower] {
		return ""
	}
	if lower != "copy" {
		return "scriptgen transactional: " + string(name) + " cannot be rolled back"
	}
	for i := 4; i <= L.GetTop(); i++ {
		if a, ok := L.Get(i).(lua.LString); ok && strings.EqualFold(string(a), "db") {
			return "scriptgen transactional: COPY ... DB cannot be rolled back"
		}
	}
	return ""
}

// record snapshots the keys of a write command line about to run in db,
// those not journaled yet.
func (e *Engine) record(j *journal, db int, args []string) {
	c := commands.Find(args)
	if c == nil {
		return
	}
	pos, err := c.Keys(args)
	if err != nil {
		// The command will fail on its own arguments and change nothing.
		return
	}
	dbv := e.m.DBLocked(db)
	for _, p := range pos {
		k := journalKey{db, args[p]}
		if _, ok := j.seen[k]; ok {
			continue
		}
		j.seen[k] = struct{}{}
		j.entries = append(j.entries, journalEntry{k, dbv.Snapshot(k.key)})
	}
}

// rollback puts every journaled key back as it was, newest first, and
// tells the replicas (whose stream has the writes undone) what each key
// is again.
func (e *Engine) rollback(j *journal) {
	for i := len(j.entries) - 1; i >= 0; i-- {
		en := j.entries[i]
		e.m.DBLocked(en.db).RestoreSnapshot(en.key, en.snap)
		e.m.PropagateKey(en.db, en.key)
	}
	j.entries = nil
}

// absorb hands a nested run's snapshots to the enclosing run: a key the
// inner run wrote first is, for the outer run, as it was before both.
func (j *journal) absorb(inner *journal) {
	for _, en := range inner.entries {
		if _, ok := j.seen[en.journalKey]; ok {
			continue
		}
		j.seen[en.journalKey] = struct{}{}
		j.entries = append(j.entries, en)
	}
}

// hosting is how a script or library that prelude.Wrap or prelude.Declare
// produced runs on the engine: compiled with the prelude's declaration
// swapped for prelude.Hosted's, whose run comes back here.
type hosting struct {
	refused map[string]bool
}

// hostScript returns the text the engine compiles for src, an EVAL body
// after its shebang, and whether it is a hosted prelude script. After a
// shebang, src starts with the newline parseShebang keeps for the line
// numbers, and gen's text for a transactional script with Redis flags is
// a shebang line and then the wrapped code: the newline stays, the rest is
// recognised.
func hostScript(src string) (string, *hosting) {
	nl := ""
	if strings.HasPrefix(src, "\n") {
		nl = "\n"
	}
	body, rest, ok := prelude.Unwrap(src[len(nl):])
	if !ok {
		return src, nil
	}
	return nl + prelude.Hosted(false) + rest, &hosting{refused: prelude.Refused(body)}
}

// hostLibrary is hostScript for a library's code.
func hostLibrary(code string) (string, *hosting) {
	head, rest, ok := prelude.SplitDeclared(code)
	if !ok {
		return code, nil
	}
	return head + prelude.Hosted(true) + "\n" + rest, &hosting{refused: prelude.Refused(rest)}
}

// pushHosted pushes the three arguments a hosted chunk takes: the
// journaling call and pcall (redis.call and redis.pcall themselves, which
// journal while a run has a journal) and run.
func (s *sandbox) pushHosted(L *lua.LState) {
	L.Push(s.redis.RawGetString("call"))
	L.Push(s.redis.RawGetString("pcall"))
	L.Push(s.hostedRun)
}

// runHosted is the prelude's run(body) with the engine's journal: it calls
// body under a journal and returns true and body's first result, or rolls
// back and returns false and the error, as the prelude's xpcall sees it.
func (s *sandbox) runHosted(L *lua.LState) int {
	body := L.Get(1)
	r := s.run
	var outer, j *journal
	if r != nil {
		outer = r.journal
		refused := r.refused
		if refused == nil {
			refused = map[string]bool{}
		}
		j = newJournal(refused)
		r.journal = j
	}
	L.SetTop(0)
	L.Push(body)
	err := L.PCall(0, 1, s.pcallfn)
	if r != nil {
		r.journal = outer
	}
	if err == nil {
		if outer != nil {
			outer.absorb(j)
		}
		res := L.Get(-1)
		L.SetTop(0)
		L.Push(lua.LTrue)
		L.Push(res)
		return 2
	}
	if j != nil {
		s.e.rollback(j)
	}
	var obj lua.LValue = lua.LString(err.Error())
	if aerr, ok := err.(*lua.ApiError); ok {
		obj = aerr.Object
	}
	L.SetTop(0)
	L.Push(lua.LFalse)
	L.Push(obj)
	return 2
}

// startJournal gives r a journal for the whole run when DoTransactional
// sent it.
func (e *Engine) startJournal(c *server.Peer, r *run) {
	if c == e.doPeer && e.doJournal {
		r.refused = allRefused
		r.journal = newJournal(allRefused)
	}
}

// DoTransactional is Do for EVAL, EVALSHA, FCALL and their _RO forms with
// all-or-nothing semantics for a script that is not wrapped in the
// prelude: the run is journaled and, if it raises an error, every key it
// wrote is put back before the error is returned. This is the journal the
// engine uses for prelude-wrapped scripts (gen's bundles), offered to Go
// tests of plain scripts; like the prelude it refuses FLUSHALL, FLUSHDB,
// SWAPDB, MOVE, SELECT and COPY … DB.
func (e *Engine) DoTransactional(args ...string) (any, error) {
	if len(args) == 0 || !transactionalCommands[strings.ToUpper(args[0])] {
		return nil, &Error{Msg: "ERR DoTransactional runs EVAL, EVALSHA, FCALL and their _RO forms"}
	}
	return e.do(true, args)
}

var transactionalCommands = map[string]bool{"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "EVALSHA_RO": true, "FCALL": true, "FCALL_RO": true}
