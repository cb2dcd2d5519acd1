package luaflow

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// Needed reports whether code, an EVAL body (helpers included) or the body
// of a library function, needs the rollback runtime to be all-or-nothing.
// It does not when every write it can make is the last thing in its run
// that can fail: a run that raises has then either written nothing yet or
// failed in that write, and a Redis command that fails changes nothing.
// gcra (one SET, then a reply built from numbers) and queue (one XADD) are
// such scripts; they run unwrapped, at Redis's own cost.
//
// The answer is a proof on the source, conservative: any doubt, and the
// runtime is needed. Writes inside a function body, a command
// named at run time, `redis` used other than as redis.NAME(...) (or as
// `local rcall = redis.call`, an alias only ever called), a global other
// than Redis's libraries, goto, and the commands the runtime refuses
// (FLUSHALL … , COPY) all make it needed. After a write, an operation can
// fail unless its operands' types are known to suit it: a forward pass over
// the main chunk tracks, for each local, the set of Lua types it may hold,
// narrowed by the conditions a path passed (`if not n then return end`
// leaves n a number when n came from tonumber) and by operations that
// succeeded (after `x < 1`, x is a number), and follows calls into the
// script's own local functions. A SET NX or XX whose reply is tested by an
// `if` wrote nothing on the path where the reply is false.
//
// Errors a Redis script cannot meet after a write are not considered: a
// script that has written cannot be killed (SCRIPT KILL refuses it), and a
// command is not refused for OOM once the script has written.
func Needed(code string) bool {
	return Analyze(code).Needed
}

// A Flow is what the proof found in a script: whether it needs the
// runtime, its redis.call and redis.pcall sites in source order, and the
// writes among them that are the last thing of their run that can fail
// (those need no journal even when others do).
type Flow struct {
	Needed bool
	Sites  []*ast.FuncCallExpr
	Final  map[*ast.FuncCallExpr]bool
	// Plans: when every write that is not final has one (and the script
	// never switches to RESP3), the script needs no runtime but the undo
	// of those writes (the prelude's inline journal).
	Plans map[*ast.FuncCallExpr]*Plan
	// Dropped: the sites that are statements of their own, whose reply
	// the code never sees (the prelude defers such a site's XTRIM).
	Dropped map[*ast.FuncCallExpr]bool
	// For Explain: what refuted each write that is not final (writes in
	// a function body have none), and why the proof gave up.
	why    map[*ast.FuncCallExpr]failure
	nested map[*ast.FuncCallExpr]bool
	gaveUp *failure
	// aliases: the names of redis.call and redis.pcall the proof
	// followed (see findAliases), each with the function it stands for.
	aliases map[string]string
}

// Analyze runs the proof on code, as Needed does, and returns all it found.
func Analyze(code string) Flow {
	chunk, err := parse.Parse(strings.NewReader(code), "<script>")
	if err != nil {
		return Flow{Needed: true} // Redis will report it; the runtime changes nothing
	}
	a := &analyzer{volatile: map[string]bool{}, assigned: map[string]bool{}, writes: map[*ast.FuncCallExpr]bool{},
		escapes: map[string]bool{}, handed: map[string]bool{}, stored: map[string]bool{}, indexed: map[string]bool{},
		ctors: map[*ast.TableExpr][]typ{}, loopElems: map[string][]string{}, plans: map[*ast.FuncCallExpr]*Plan{}, stmtCalls: map[*ast.FuncCallExpr]bool{}}
	a.aliases = findAliases(chunk)
	a.scan(chunk, newScope[bool](nil), nil, false)
	if a.giveUp {
		return Flow{Needed: true, gaveUp: &a.gaveUp}
	}
	a.refuted = map[*ast.FuncCallExpr]bool{}
	a.why = map[*ast.FuncCallExpr]failure{}
	a.opened = map[*ast.FuncCallExpr]bool{}
	a.callNums = map[*ast.FuncCallExpr]num{}
	a.syms = map[ast.Stmt]string{}
	a.loopIndex = map[ast.Stmt]*local{}
	st := newState()
	a.block(chunk, st, newScope[*local](nil))
	if a.giveUp {
		return Flow{Needed: true, gaveUp: &a.gaveUp}
	}
	out := Flow{Sites: a.sites, Final: map[*ast.FuncCallExpr]bool{}, Plans: map[*ast.FuncCallExpr]*Plan{},
		Dropped: map[*ast.FuncCallExpr]bool{},
		why:     a.why, nested: map[*ast.FuncCallExpr]bool{}, aliases: map[string]string{}}
	for _, site := range a.sites {
		if a.stmtCalls[site] {
			out.Dropped[site] = true
		}
	}
	for n, al := range a.aliases {
		out.aliases[n] = al.fn
	}
	for w, nested := range a.writes {
		if nested {
			out.nested[w] = true
		}
	}
	planned := !a.setresp
	for w, nested := range a.writes {
		switch {
		case nested || a.refuted[w]:
			out.Needed = true
			if p := a.plans[w]; p != nil && a.opened[w] {
				out.Plans[w] = p
			} else {
				planned = false
			}
		case a.opened[w]:
			out.Final[w] = true
		}
	}
	if !planned {
		out.Plans = nil
	}
	return out
}

// typ is the set of Lua types a value may have.
type typ uint16

const (
	tNil typ = 1 << iota
	tFalse
	tTrue
	tNum
	tNumStr // a string that converts to a number
	tStr    // any string
	tTable
	tFunc
	tOther // anything else (userdata of the libraries …)

	tAny   = tNil | tFalse | tTrue | tNum | tNumStr | tStr | tTable | tFunc | tOther
	tBool  = tFalse | tTrue
	tFalsy = tNil | tFalse
	tArith = tNum | tNumStr // arithmetic works
	tText  = tStr | tNumStr
)

func (t typ) within(u typ) bool { return t != 0 && t&^u == 0 }
