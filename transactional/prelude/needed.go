package prelude

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"

	"github.com/scriptgen/scriptgen/internal/commands"
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
// named at run time, `redis` used other than as redis.NAME(...), a global
// other than Redis's libraries, goto, and the commands the runtime refuses
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
	return analyze(code).needed
}

// analysis is what the proof found in a script: whether it needs the
// runtime, its redis.call and redis.pcall sites in source order, and the
// writes among them that are the last thing of their run that can fail
// (those need no journal even when others do).
type analysis struct {
	needed bool
	sites  []*ast.FuncCallExpr
	final  map[*ast.FuncCallExpr]bool
	// plans: when every write that is not final has one (and the script
	// never switches to RESP3), the script needs no runtime but the undo
	// of those writes (see Wrap).
	plans map[*ast.FuncCallExpr]*plan
	// For Explain: what refuted each write that is not final (writes in
	// a function body have none), and why the proof gave up.
	why    map[*ast.FuncCallExpr]failure
	nested map[*ast.FuncCallExpr]bool
	gaveUp *failure
}

func analyze(code string) analysis {
	chunk, err := parse.Parse(strings.NewReader(code), "<script>")
	if err != nil {
		return analysis{needed: true} // Redis will report it; the runtime changes nothing
	}
	a := &analyzer{volatile: map[string]bool{}, assigned: map[string]bool{}, writes: map[*ast.FuncCallExpr]bool{},
		escapes: map[string]bool{}, handed: map[string]bool{}, stored: map[string]bool{}, indexed: map[string]bool{},
		ctors: map[*ast.TableExpr][]typ{}, loopElems: map[string][]string{}, plans: map[*ast.FuncCallExpr]*plan{}}
	a.scan(chunk, newNames(nil), nil, false)
	if a.giveUp {
		return analysis{needed: true, gaveUp: &a.gaveUp}
	}
	a.refuted = map[*ast.FuncCallExpr]bool{}
	a.why = map[*ast.FuncCallExpr]failure{}
	a.opened = map[*ast.FuncCallExpr]bool{}
	a.callNums = map[*ast.FuncCallExpr]num{}
	a.syms = map[ast.Stmt]string{}
	a.loopIndex = map[ast.Stmt]*local{}
	st := newState()
	a.block(chunk, st, &scope{vars: map[string]*local{}})
	if a.giveUp {
		return analysis{needed: true, gaveUp: &a.gaveUp}
	}
	out := analysis{sites: a.sites, final: map[*ast.FuncCallExpr]bool{}, plans: map[*ast.FuncCallExpr]*plan{},
		why: a.why, nested: map[*ast.FuncCallExpr]bool{}}
	for w, nested := range a.writes {
		if nested {
			out.nested[w] = true
		}
	}
	planned := !a.setresp
	for w, nested := range a.writes {
		switch {
		case nested || a.refuted[w]:
			out.needed = true
			if p := a.plans[w]; p != nil && a.opened[w] {
				out.plans[w] = p
			} else {
				planned = false
			}
		case a.opened[w]:
			out.final[w] = true
		}
	}
	if !planned {
		out.plans = nil
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

var numeral = regexp.MustCompile(`^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$`)

// ---------------------------------------------------------------------------
// The scan: everything but the flow. Resolves names, finds the writes,
// gives up on what the flow analysis does not model.

// names is a lexical scope of the scan: the names declared in it.
type names struct {
	parent *names
	set    map[string]bool
}

func newNames(parent *names) *names { return &names{parent: parent, set: map[string]bool{}} }

func (n *names) has(name string) bool {
	for s := n; s != nil; s = s.parent {
		if s.set[name] {
			return true
		}
	}
	return false
}

type analyzer struct {
	giveUp    bool
	gaveUp    failure         // why
	volatile  map[string]bool // assigned inside a function that does not declare them
	assigned  map[string]bool // assigned by some assignment statement
	writes    map[*ast.FuncCallExpr]bool
	refuted   map[*ast.FuncCallExpr]bool    // writes something may fail after
	why       map[*ast.FuncCallExpr]failure // the first thing that refuted each
	opened    map[*ast.FuncCallExpr]bool    // writes the main chunk's flow ran
	escapes   map[string]bool               // names whose value is handed on or changed in place
	handed    map[string]bool               // names whose value is handed on (not only looked at or stored into)
	indexed   map[string]bool               // names read as t[k] (not stored into, not looped over)
	loopElems map[string][]string           // table names: the element names of the ipairs and pairs loops over them
	ctors     map[*ast.TableExpr][]typ      // what each field of a constructor evaluated to, last time
	stored    map[string]bool               // names of tables a function body stores into
	setresp   bool                          // the script calls redis.setresp
	plans     map[*ast.FuncCallExpr]*plan   // writes whose undo the script's own read gives
	sites     []*ast.FuncCallExpr           // redis.call and redis.pcall, in source order
	depth     int
	frame     *frame                    // the local function being followed, if any
	callNums  map[*ast.FuncCallExpr]num // what calls of local functions returned, when numbers
	syms      map[ast.Stmt]string       // ipairs(KEYS) loops: the name of their element's key
	// loopIndex: the index local of a generic for, as its last iteration
	// analyzed made it.
	loopIndex map[ast.Stmt]*local
}

// isBuiltin: e names one of the builtins names, not shadowed.
func isBuiltin(e ast.Expr, sc *names, names ...string) bool {
	id, ok := e.(*ast.IdentExpr)
	return ok && !sc.has(id.Value) && slices.Contains(names, id.Value)
}

// lookOnly are builtins that neither change their arguments nor return
// one of them (ipairs and pairs return theirs: see the generic for).
var lookOnly = map[string]bool{"tonumber": true, "tostring": true, "type": true, "unpack": true, "next": true}

// pureBuiltins call nothing of the script's (a script cannot set a
// metatable: setmetatable is not among the globals it may read).
var pureBuiltins = map[string]bool{
	"tonumber": true, "tostring": true, "type": true, "unpack": true, "select": true,
	"ipairs": true, "pairs": true, "next": true, "error": true, "assert": true,
}

// globals a script may read: Redis's libraries and builtins.
var globals = map[string]bool{
	"redis": true, "KEYS": true, "ARGV": true, "math": true, "string": true, "table": true,
	"tonumber": true, "tostring": true, "type": true, "unpack": true, "select": true,
	"ipairs": true, "pairs": true, "next": true, "error": true, "assert": true,
	"pcall": true, "xpcall": true, "cjson": true, "cmsgpack": true, "bit": true, "struct": true,
}

// fn is the function the scan is in (nil: the main chunk); declared, the
// names it declares anywhere inside.
func (a *analyzer) scan(stmts []ast.Stmt, sc *names, declared map[string]bool, nested bool) {
	for _, s := range stmts {
		a.scanStmt(s, sc, declared, nested)
	}
}

func (a *analyzer) declare(sc *names, declared map[string]bool, ns ...string) {
	for _, n := range ns {
		if n == "redis" || globals[n] && (n == "math" || n == "tonumber" || n == "tostring" || n == "type") {
			a.quit(nil, "a local named redis, math, tonumber, tostring or type, which the proof trusts to be Redis's")
		}
		sc.set[n] = true
		if declared != nil {
			declared[n] = true
		}
	}
}

func (a *analyzer) scanStmt(s ast.Stmt, sc *names, declared map[string]bool, nested bool) {
	switch s := s.(type) {
	case *ast.LocalAssignStmt:
		a.scanExprs(s.Exprs, sc, declared, nested)
		a.declare(sc, declared, s.Names...)
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.IdentExpr); ok {
				if !sc.has(id.Value) {
					a.quit(l, "an assignment to the global "+id.Value)
				}
				a.assigned[id.Value] = true
				if declared != nil && !declared[id.Value] {
					a.volatile[id.Value] = true
				}
				continue
			}
			if attr, ok := l.(*ast.AttrGetExpr); ok {
				if id, ok := attr.Object.(*ast.IdentExpr); ok {
					a.escapes[id.Value] = true // t[k] = v changes t
					if nested {
						a.stored[id.Value] = true
					}
					if !isRedis(id, sc) {
						a.scanOperand(id, sc, declared, nested)
						a.scanExpr(attr.Key, sc, declared, nested)
						continue
					}
				}
			}
			a.scanExpr(l, sc, declared, nested)
		}
		a.scanExprs(s.Rhs, sc, declared, nested)
	case *ast.FuncCallStmt:
		a.scanExpr(s.Expr, sc, declared, nested)
	case *ast.DoBlockStmt:
		a.scan(s.Stmts, newNames(sc), declared, nested)
	case *ast.WhileStmt:
		a.scanExpr(s.Condition, sc, declared, nested)
		a.scan(s.Stmts, newNames(sc), declared, nested)
	case *ast.RepeatStmt:
		inner := newNames(sc)
		a.scan(s.Stmts, inner, declared, nested)
		a.scanExpr(s.Condition, inner, declared, nested)
	case *ast.IfStmt:
		a.scanExpr(s.Condition, sc, declared, nested)
		a.scan(s.Then, newNames(sc), declared, nested)
		a.scan(s.Else, newNames(sc), declared, nested)
	case *ast.NumberForStmt:
		a.scanExprs([]ast.Expr{s.Init, s.Limit}, sc, declared, nested)
		if s.Step != nil {
			a.scanExpr(s.Step, sc, declared, nested)
		}
		inner := newNames(sc)
		a.declare(inner, declared, s.Name)
		a.scan(s.Stmts, inner, declared, nested)
	case *ast.GenericForStmt:
		if call, ok := s.Exprs[0].(*ast.FuncCallExpr); ok && len(s.Exprs) == 1 && len(call.Args) == 1 && isBuiltin(call.Func, sc, "ipairs", "pairs") {
			// for … in ipairs(t) only looks at t: the loop keeps the
			// iterator's state to itself.
			a.scanExpr(call.Func, sc, declared, nested)
			a.scanOperand(call.Args[0], sc, declared, nested)
			if t, ok := call.Args[0].(*ast.IdentExpr); ok && len(s.Names) > 1 {
				a.loopElems[t.Value] = append(a.loopElems[t.Value], s.Names[1])
			}
		} else {
			a.scanExprs(s.Exprs, sc, declared, nested)
		}
		inner := newNames(sc)
		a.declare(inner, declared, s.Names...)
		a.scan(s.Stmts, inner, declared, nested)
	case *ast.FuncDefStmt:
		// function name() … end assigns a global or a table's field.
		if id, ok := s.Name.Func.(*ast.IdentExpr); ok && s.Name.Receiver == nil {
			if !sc.has(id.Value) {
				a.quit(s, "function "+id.Value+"() defines a global")
			}
			a.assigned[id.Value] = true
			if declared != nil && !declared[id.Value] {
				a.volatile[id.Value] = true
			}
		} else {
			a.quit(s, "a function defined as a table's field")
		}
		a.scanExpr(s.Func, sc, declared, nested)
	case *ast.ReturnStmt:
		a.scanExprs(s.Exprs, sc, declared, nested)
	case *ast.BreakStmt:
	default: // goto, labels
		a.quit(s, "goto or a label")
	}
}

func (a *analyzer) scanExprs(es []ast.Expr, sc *names, declared map[string]bool, nested bool) {
	for _, e := range es {
		a.scanExpr(e, sc, declared, nested)
	}
}

func (a *analyzer) scanExpr(e ast.Expr, sc *names, declared map[string]bool, nested bool) {
	switch e := e.(type) {
	case *ast.IdentExpr:
		a.scanName(e, sc)
		a.escapes[e.Value] = true // its value goes where it may be changed
		a.handed[e.Value] = true
	case *ast.AttrGetExpr:
		if isRedis(e.Object, sc) {
			a.quit(e, "redis."+attrName(keyString(e.Key))+" used as a value: the proof sees only calls")
			return
		}
		a.scanOperand(e.Object, sc, declared, nested)
		a.scanExpr(e.Key, sc, declared, nested)
		if id, ok := e.Object.(*ast.IdentExpr); ok {
			a.indexed[id.Value] = true
		}
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				a.scanExpr(f.Key, sc, declared, nested)
			}
			a.scanExpr(f.Value, sc, declared, nested)
		}
	case *ast.FuncCallExpr:
		if attr, ok := e.Func.(*ast.AttrGetExpr); ok && isRedis(attr.Object, sc) {
			key, ok := attr.Key.(*ast.StringExpr)
			if !ok {
				a.quit(e, "a redis function named at run time")
				return
			}
			if key.Value == "setresp" {
				a.setresp = true
			}
			if key.Value == "call" || key.Value == "pcall" {
				// Before the arguments: source order.
				a.sites = append(a.sites, e)
				if a.isWrite(e.Args) {
					a.writes[e] = nested
				}
			}
			a.scanExprs(e.Args, sc, declared, nested)
			return
		}
		if e.Receiver != nil {
			a.scanExpr(e.Receiver, sc, declared, nested)
		} else {
			a.scanExpr(e.Func, sc, declared, nested)
		}
		if !e.AdjustRet && oneResult(e, sc) {
			// It returns one value, as if in parentheses: the proof can
			// count the arguments it ends. The AST is the proof's own.
			e.AdjustRet = true
		}
		if id, ok := e.Func.(*ast.IdentExpr); ok && e.Receiver == nil && lookOnly[id.Value] && !sc.has(id.Value) {
			for _, arg := range e.Args {
				a.scanOperand(arg, sc, declared, nested)
				if t, ok := arg.(*ast.IdentExpr); ok && (id.Value == "unpack" || id.Value == "next") {
					a.indexed[t.Value] = true // its values go out
				}
			}
			return
		}
		a.scanExprs(e.Args, sc, declared, nested)
	case *ast.LogicalOpExpr:
		a.scanOperand(e.Lhs, sc, declared, nested)
		a.scanOperand(e.Rhs, sc, declared, nested)
		// `x and t` is t itself: an alias the escapes above do not see.
		for _, o := range []ast.Expr{e.Lhs, e.Rhs} {
			if id, ok := o.(*ast.IdentExpr); ok {
				a.handed[id.Value] = true
			}
		}
	case *ast.RelationalOpExpr:
		a.scanOperand(e.Lhs, sc, declared, nested)
		a.scanOperand(e.Rhs, sc, declared, nested)
	case *ast.StringConcatOpExpr:
		a.scanExprs([]ast.Expr{e.Lhs, e.Rhs}, sc, declared, nested)
	case *ast.ArithmeticOpExpr:
		a.scanExprs([]ast.Expr{e.Lhs, e.Rhs}, sc, declared, nested)
	case *ast.UnaryMinusOpExpr:
		a.scanExpr(e.Expr, sc, declared, nested)
	case *ast.UnaryNotOpExpr:
		a.scanOperand(e.Expr, sc, declared, nested)
	case *ast.UnaryLenOpExpr:
		a.scanOperand(e.Expr, sc, declared, nested)
	case *ast.FunctionExpr:
		inner := newNames(sc)
		own := map[string]bool{}
		a.declare(inner, own, e.ParList.Names...)
		collectDeclared(e.Stmts, own)
		a.scan(e.Stmts, inner, own, true)
	}
}

// oneResult: e calls a library function of Lua 5.1 that returns exactly
// one value (when it returns), its name not shadowed.
func oneResult(e *ast.FuncCallExpr, sc *names) bool {
	if e.Receiver != nil {
		return false
	}
	switch f := e.Func.(type) {
	case *ast.IdentExpr:
		return !sc.has(f.Value) && (f.Value == "tostring" || f.Value == "tonumber" || f.Value == "type")
	case *ast.AttrGetExpr:
		lib, ok := f.Object.(*ast.IdentExpr)
		fn, isStr := f.Key.(*ast.StringExpr)
		if !ok || !isStr || sc.has(lib.Value) {
			return false
		}
		return oneResultFns[lib.Value+"."+fn.Value]
	}
	return false
}

var oneResultFns = map[string]bool{
	"string.format": true, "string.sub": true, "string.lower": true, "string.upper": true, "string.len": true,
	"string.rep": true, "string.reverse": true, "string.char": true,
	"math.floor": true, "math.ceil": true, "math.abs": true, "math.min": true, "math.max": true, "math.sqrt": true,
	"math.fmod": true, "math.pow": true, "math.exp": true, "math.log": true, "math.log10": true,
}

// scanName checks that a name is a local or a global a script may read.
func (a *analyzer) scanName(e *ast.IdentExpr, sc *names) {
	if !sc.has(e.Value) && (!globals[e.Value] || e.Value == "redis") {
		a.quit(e, e.Value+": an unknown global, or redis used as a value")
	}
}

// scanOperand scans an expression whose value is only looked at (indexed,
// compared, tested), not handed on.
func (a *analyzer) scanOperand(e ast.Expr, sc *names, declared map[string]bool, nested bool) {
	if id, ok := e.(*ast.IdentExpr); ok {
		a.scanName(id, sc)
		return
	}
	a.scanExpr(e, sc, declared, nested)
}

// eachStmt calls fn for every statement of stmts and of the blocks nested
// in them, function bodies excepted.
func eachStmt(stmts []ast.Stmt, fn func(ast.Stmt)) {
	for _, s := range stmts {
		fn(s)
		switch s := s.(type) {
		case *ast.DoBlockStmt:
			eachStmt(s.Stmts, fn)
		case *ast.WhileStmt:
			eachStmt(s.Stmts, fn)
		case *ast.RepeatStmt:
			eachStmt(s.Stmts, fn)
		case *ast.IfStmt:
			eachStmt(s.Then, fn)
			eachStmt(s.Else, fn)
		case *ast.NumberForStmt:
			eachStmt(s.Stmts, fn)
		case *ast.GenericForStmt:
			eachStmt(s.Stmts, fn)
		}
	}
}

// collectDeclared adds the names declared anywhere in stmts.
func collectDeclared(stmts []ast.Stmt, into map[string]bool) {
	eachStmt(stmts, func(s ast.Stmt) {
		switch s := s.(type) {
		case *ast.LocalAssignStmt:
			for _, n := range s.Names {
				into[n] = true
			}
		case *ast.NumberForStmt:
			into[s.Name] = true
		case *ast.GenericForStmt:
			for _, n := range s.Names {
				into[n] = true
			}
		}
	})
}

func isRedis(e ast.Expr, sc *names) bool {
	id, ok := e.(*ast.IdentExpr)
	return ok && id.Value == "redis" && !sc.has("redis")
}

// isWrite: the command of a redis.call may write (unknown: yes). The
// commands the runtime refuses make the runtime needed.
func (a *analyzer) isWrite(args []ast.Expr) bool {
	if len(args) == 0 {
		return false // raises before it runs
	}
	lit, ok := args[0].(*ast.StringExpr)
	if !ok {
		return true
	}
	c := commands.Lookup(lit.Value)
	if c == nil {
		return true
	}
	if refused[c.Name] || c.Name == "copy" {
		a.quit(args[0], strings.ToUpper(c.Name)+", which a journal cannot undo")
		return true
	}
	if c.Container {
		for _, sub := range commands.All() {
			if strings.HasPrefix(sub.Name, c.Name+"|") && sub.Flags.Has(commands.Write) {
				return true
			}
		}
		return false
	}
	return c.Flags.Has(commands.Write)
}

// ---------------------------------------------------------------------------
// The flow.

// local is one declared local variable; fn is its function when it is
// declared by `local function` (or `local f = function`) and never assigned.
type local struct {
	name    string
	fn      *ast.FunctionExpr
	fnScope *scope
	read    *read  // the local holds this read's reply
	key     string // the local is set to KEYS[n] (keyOf says whether it stays so)
	// keysIndex: the index of a loop over ipairs(KEYS), 1 … #KEYS.
	keysIndex bool
	// elemOf: the local is the element of a loop over ipairs of this
	// table local.
	elemOf *local
}

// tabFact is what is known of the values a table local holds, for a table
// only this local names and only the main chunk changes (owned): each value
// is of type t (0: none yet; nil is never a value), a number within n when
// a number; filled: t[i] is a value for every i in 1 … #KEYS (a loop over
// ipairs(KEYS) stored one at its index on every path through its body).
type tabFact struct {
	t      typ
	n      num
	filled bool
	// recs: every value is a table made by a constructor of named fields
	// (records), whose fields state.fields knows.
	recs bool
}

// fieldKey names a field of the records an owned table holds.
type fieldKey struct {
	t    *local
	name string
}

// fieldFact is what is known of that field in every record: of type t
// (nil where a record lacks it), a number within n when a number.
type fieldFact struct {
	t typ
	n num
}

func (f fieldFact) join(g fieldFact) fieldFact {
	return fieldFact{t: f.t | g.t, n: joinValues(f.t, f.n, g.t, g.n)}
}

// joinValues joins what is known of the numbers among values of types ft
// and gt: only one side's when the other holds none.
func joinValues(ft typ, fn num, gt typ, gn num) num {
	switch {
	case ft&tNum == 0:
		return gn
	case gt&tNum == 0:
		return fn
	}
	return fn.join(gn)
}

func (f tabFact) join(g tabFact) tabFact {
	return tabFact{t: f.t | g.t, n: joinValues(f.t, f.n, g.t, g.n), filled: f.filled && g.filled, recs: f.recs && g.recs}
}

// add is f after a store of a value of type t, a number within n.
func (f tabFact) add(t typ, n num) tabFact {
	g := tabFact{t: t &^ tNil, n: n, filled: true, recs: true}
	out := f.join(g)
	out.filled = f.filled && t&tNil == 0
	return out
}

// read is a local set to the reply of HMGET or HGET of KEYS[key], made
// before any write of the run: the values of those fields before the run.
type read struct {
	key    string
	fields []string // HGET: one, the reply itself
	hget   bool
}

// plan is how a hash write's undo is found without a read of its own: the
// fields' values before the run, from the script's own read held by local.
type plan struct {
	key   string
	local string
	refs  []string // per field written: Lua for its old value
	names []string // the fields, as Lua string literals
}

type scope struct {
	parent *scope
	vars   map[string]*local
}

func (s *scope) lookup(name string) *local {
	for c := s; c != nil; c = c.parent {
		if l, ok := c.vars[name]; ok {
			return l
		}
	}
	return nil
}

// state is what holds at a point of the main chunk on the paths reaching
// it: the types of locals (absent: any), the writes that may have run and
// that nothing has been seen to possibly fail after (open), and whether the
// point is reachable at all.
type state struct {
	env  map[*local]typ
	nums map[*local]num // what is known of a local's value when it is a number (absent: nothing)
	tabs map[*local]tabFact
	// fields: what the records of owned tables hold (see tabFact.recs).
	fields map[fieldKey]fieldFact
	// fill: the owned table stored a value at the index of this loop over
	// ipairs(KEYS) in the current iteration, on every path here.
	fill  map[*local]*local
	keys  map[string]keyFact
	open  map[*ast.FuncCallExpr]bool
	dead  bool
	wrote bool // a write may have run
	// deleted: a write that may have deleted some key may have run; until
	// one has, every KEYS element is stable (the node ran the script, so
	// each exists or its slot is not migrating).
	deleted bool
}

func newState() *state {
	return &state{env: map[*local]typ{}, nums: map[*local]num{}, tabs: map[*local]tabFact{}, fill: map[*local]*local{}, fields: map[fieldKey]fieldFact{},
		keys: map[string]keyFact{}, open: map[*ast.FuncCallExpr]bool{}}
}

func (s *state) clone() *state {
	c := &state{env: maps.Clone(s.env), nums: maps.Clone(s.nums), tabs: maps.Clone(s.tabs), fill: maps.Clone(s.fill), fields: maps.Clone(s.fields), keys: maps.Clone(s.keys),
		open: make(map[*ast.FuncCallExpr]bool, len(s.open)), dead: s.dead, wrote: s.wrote, deleted: s.deleted}
	for k := range s.open {
		c.open[k] = true
	}
	return c
}

// join merges b into a (the paths of both reach the point).
func (a *state) join(b *state) {
	if b.dead {
		return
	}
	if a.dead {
		*a = *b.clone()
		return
	}
	// What is known of a number joins with nothing where the local holds
	// no number on the other path (nil before an `if` sets it).
	noNum := func(s *state, l *local) bool { t, ok := s.env[l]; return ok && t&tNum == 0 }
	for k, v := range a.nums {
		if w, ok := b.nums[k]; ok {
			a.nums[k] = v.join(w)
		} else if !noNum(b, k) {
			delete(a.nums, k)
		}
	}
	for k, w := range b.nums {
		if _, ok := a.nums[k]; !ok && noNum(a, k) {
			a.nums[k] = w
		}
	}
	for k, v := range a.env {
		if w, ok := b.env[k]; ok {
			a.env[k] = v | w
		} else {
			delete(a.env, k)
		}
	}
	// A field one side's records lack is nil there; a side with no
	// records yet adds nothing.
	nilField := fieldFact{t: tNil}
	for k, v := range a.fields {
		if w, ok := b.fields[k]; ok {
			a.fields[k] = v.join(w)
		} else if f := b.tabs[k.t]; f.recs && f.t != 0 {
			a.fields[k] = v.join(nilField)
		} else if !f.recs {
			delete(a.fields, k)
		}
	}
	for k, w := range b.fields {
		if _, ok := a.fields[k]; !ok {
			if f := a.tabs[k.t]; f.recs && f.t != 0 {
				a.fields[k] = w.join(nilField)
			} else if f.recs {
				a.fields[k] = w
			}
		}
	}
	for k, v := range a.tabs {
		if w, ok := b.tabs[k]; ok {
			a.tabs[k] = v.join(w)
		} else {
			delete(a.tabs, k)
		}
	}
	for k, v := range a.fill {
		if b.fill[k] != v {
			delete(a.fill, k)
		}
	}
	for k, v := range a.keys {
		if w, ok := b.keys[k]; ok {
			a.keys[k] = v.join(w)
		} else {
			delete(a.keys, k)
		}
	}
	for k := range b.open {
		a.open[k] = true
	}
	a.wrote = a.wrote || b.wrote
	a.deleted = a.deleted || b.deleted
}

// frame follows a call into a local function: whether something in it may
// fail, and what it returns.
type frame struct {
	raises bool
	why    string // the first thing in it that may fail
	wrote  bool
	rets   typ
	nums   *num // what its numbers returned are, if any
}

// mayFail records that an operation at st may raise: every write that may
// have run before it is not the run's last failure point. at and why say
// where and what, for Explain.
func (a *analyzer) mayFail(st *state, at ast.PositionHolder, why string) {
	if st.dead {
		return
	}
	for w := range st.open {
		if !a.refuted[w] {
			a.refuted[w] = true
			a.why[w] = failure{line: at.Line(), why: why}
		}
	}
	if a.frame != nil {
		if !a.frame.raises {
			a.frame.why = fmt.Sprintf("line %d, %s", at.Line(), why)
		}
		a.frame.raises = true
	}
}

// failure is what refuted a write: the line of an operation after it that
// may fail, and what that operation is.
type failure struct {
	line int
	why  string
}

// quit gives up the proof, saying where and why, for Explain.
func (a *analyzer) quit(at ast.PositionHolder, why string) {
	if !a.giveUp {
		a.gaveUp = failure{why: why}
		if at != nil {
			a.gaveUp.line = at.Line()
		}
	}
	a.giveUp = true
}

func keyString(e ast.Expr) *ast.StringExpr {
	k, _ := e.(*ast.StringExpr)
	return k
}

func attrName(k *ast.StringExpr) string {
	if k == nil {
		return "?"
	}
	return k.Value
}

func (a *analyzer) typeOf(st *state, l *local) typ {
	if l == nil || a.volatile[l.name] {
		return tAny
	}
	if t, ok := st.env[l]; ok {
		return t
	}
	return tAny
}

// narrowable is the local e names, when what it holds may be narrowed on
// this path: a live path, and a local no function changes behind it.
func (a *analyzer) narrowable(e ast.Expr, st *state, sc *scope) *local {
	id, ok := e.(*ast.IdentExpr)
	if !ok || st.dead {
		return nil
	}
	if l := sc.lookup(id.Value); l != nil && !a.volatile[l.name] {
		return l
	}
	return nil
}

// refine narrows what an identifier holds after something showed it fits.
func (a *analyzer) refine(e ast.Expr, st *state, sc *scope, to func(typ) typ) {
	l := a.narrowable(e, st, sc)
	if l == nil {
		return
	}
	if t := to(a.typeOf(st, l)); t != 0 {
		st.env[l] = t
	}
}

func (a *analyzer) block(stmts []ast.Stmt, st *state, sc *scope) {
	for _, s := range stmts {
		if st.dead || a.giveUp {
			return
		}
		a.stmt(s, st, sc)
	}
}

func (a *analyzer) stmt(s ast.Stmt, st *state, sc *scope) {
	switch s := s.(type) {
	case *ast.LocalAssignStmt:
		ts := a.exprList(s.Exprs, len(s.Names), st, sc)
		ns := a.numsOf(s.Exprs, ts, st, sc)
		for i, n := range s.Names {
			l := &local{name: n}
			sc.vars[n] = l
			st.env[l] = ts[i]
			a.setNums(l, ns[i], st)
			if i < len(s.Exprs) && !st.dead {
				if t, ok := s.Exprs[i].(*ast.TableExpr); ok && a.owned(n) {
					st.tabs[l] = a.constructed(t, st, sc)
				}
			}
			if len(s.Names) == 1 && len(s.Exprs) == 1 {
				l.key = keyRef(s.Exprs[0])
				if !st.wrote && a.frame == nil {
					l.read = hashRead(s.Exprs[0])
				}
			}
			if i < len(s.Exprs) {
				if f, ok := s.Exprs[i].(*ast.FunctionExpr); ok && !a.assigned[n] {
					// The body sees the names declared so far (and, for
					// local function, itself), not the ones after.
					l.fn, l.fnScope = f, &scope{parent: sc.parent, vars: maps.Clone(sc.vars)}
				}
			}
		}
	case *ast.AssignStmt:
		ts := a.exprList(s.Rhs, len(s.Lhs), st, sc)
		ns := a.numsOf(s.Rhs, ts, st, sc)
		for i, lhs := range s.Lhs {
			switch lhs := lhs.(type) {
			case *ast.IdentExpr:
				if l := sc.lookup(lhs.Value); l != nil && !st.dead {
					st.env[l] = ts[i]
					a.setNums(l, ns[i], st)
					forgetScore(l, st)
				}
			case *ast.AttrGetExpr:
				// t[k] = v raises unless t is a table and k neither nil
				// nor NaN.
				obj := a.expr(lhs.Object, st, sc)
				key := a.expr(lhs.Key, st, sc)
				if !obj.within(tTable) || !a.safeKey(lhs.Key, key, st, sc) {
					a.mayFail(st, lhs, "t[k] = v where t may not be a table, or k nil or NaN")
				}
				a.store(lhs, exprAt(s.Rhs, i), ts[i], ns[i], st, sc)
			default:
				a.quit(lhs, "an assignment to something other than a local or a table's field")
			}
		}
	case *ast.FuncCallStmt:
		a.expr(s.Expr, st, sc)
	case *ast.DoBlockStmt:
		a.block(s.Stmts, st, &scope{parent: sc, vars: map[string]*local{}})
	case *ast.IfStmt:
		t, f, _ := a.cond(s.Condition, st, sc)
		a.block(s.Then, t, &scope{parent: sc, vars: map[string]*local{}})
		a.block(s.Else, f, &scope{parent: sc, vars: map[string]*local{}})
		t.join(f)
		*st = *t
	case *ast.WhileStmt, *ast.RepeatStmt, *ast.NumberForStmt, *ast.GenericForStmt:
		a.loop(s, st, sc)
	case *ast.ReturnStmt:
		ts := a.exprList(s.Exprs, max(1, len(s.Exprs)), st, sc)
		if a.frame != nil && !st.dead {
			a.frame.rets |= ts[0]
			if ts[0]&tNum != 0 {
				n := anyNum
				if len(s.Exprs) > 0 {
					n = a.numOf(s.Exprs[0], st, sc)
				}
				if a.frame.nums != nil {
					n = n.join(*a.frame.nums)
				}
				a.frame.nums = &n
			}
		}
		st.dead = true
	case *ast.BreakStmt:
		// Inside loops only, which the flow treats as a whole.
		st.dead = true
	case *ast.FuncDefStmt:
		// function f() … end of an existing local: a new function value.
		if id, ok := s.Name.Func.(*ast.IdentExpr); ok {
			if l := sc.lookup(id.Value); l != nil {
				st.env[l] = tFunc
			}
		}
	default:
		a.quit(s, "a statement the proof does not model")
	}
}

// mayCallBack: a library function given these arguments (of types ts) may
// call a function of the script that runs a command: some argument may be
// a function, other than a function literal that calls nothing (the
// comparator of a table.sort).
func mayCallBack(es []ast.Expr, ts []typ) bool {
	for i, t := range ts {
		if t&(tFunc|tOther) == 0 {
			continue
		}
		f, ok := es[i].(*ast.FunctionExpr)
		if !ok || callsAnything(f.Stmts) {
			return true
		}
	}
	return lastMulti(es)
}

// callsAnything: a call anywhere in stmts, nested functions included.
func callsAnything(stmts []ast.Stmt) bool {
	found := false
	var expr func(ast.Expr)
	var block func([]ast.Stmt)
	expr = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.FuncCallExpr:
			found = true
		case *ast.AttrGetExpr:
			expr(e.Object)
			expr(e.Key)
		case *ast.TableExpr:
			for _, f := range e.Fields {
				if f.Key != nil {
					expr(f.Key)
				}
				expr(f.Value)
			}
		case *ast.ArithmeticOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.StringConcatOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.RelationalOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.LogicalOpExpr:
			expr(e.Lhs)
			expr(e.Rhs)
		case *ast.UnaryMinusOpExpr:
			expr(e.Expr)
		case *ast.UnaryNotOpExpr:
			expr(e.Expr)
		case *ast.UnaryLenOpExpr:
			expr(e.Expr)
		case *ast.FunctionExpr:
			block(e.Stmts)
		case *ast.IdentExpr, *ast.NumberExpr, *ast.StringExpr, *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.Comma3Expr:
		default:
			found = true // an expression this walk does not know
		}
	}
	block = func(stmts []ast.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *ast.ReturnStmt:
				for _, e := range s.Exprs {
					expr(e)
				}
			case *ast.LocalAssignStmt:
				for _, e := range s.Exprs {
					expr(e)
				}
			case *ast.AssignStmt:
				for _, e := range s.Lhs {
					expr(e)
				}
				for _, e := range s.Rhs {
					expr(e)
				}
			case *ast.IfStmt:
				expr(s.Condition)
				block(s.Then)
				block(s.Else)
			default:
				found = true // loops and the rest: not a comparator's shape
			}
		}
	}
	block(stmts)
	return found
}

// codec: e is cjson's or cmsgpack's encoder or decoder, which call no Lua
// function.
func codec(e ast.Expr, sc *scope) bool {
	attr, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return false
	}
	lib, ok := attr.Object.(*ast.IdentExpr)
	fn, isStr := attr.Key.(*ast.StringExpr)
	if !ok || !isStr || sc.lookup(lib.Value) != nil {
		return false
	}
	switch lib.Value + "." + fn.Value {
	case "cjson.decode", "cjson.encode", "cmsgpack.pack", "cmsgpack.unpack":
		return true
	}
	return false
}

// owned: the table a local of this name holds is named by it alone and
// changed by the main chunk only (t[k] = v), so the flow sees every store.
func (a *analyzer) owned(name string) bool {
	return !a.handed[name] && !a.stored[name] && !a.assigned[name] && !a.volatile[name]
}

// constructed is what a table constructor holds: known for literals and
// locals (the constructor has been evaluated; nothing is evaluated again).
func (a *analyzer) constructed(t *ast.TableExpr, st *state, sc *scope) tabFact {
	f := tabFact{recs: len(t.Fields) == 0}
	for i, fl := range t.Fields {
		ty := a.peekType(fl.Value, st, sc)
		if lit, isStr := fl.Value.(*ast.StringExpr); isStr {
			ty = tStr
			if numeral.MatchString(lit.Value) {
				ty = tNumStr
			}
		}
		if i == len(t.Fields)-1 && multi(fl.Value) {
			ty = tAny
		}
		f = f.add(ty, a.numOf(fl.Value, st, sc))
	}
	f.filled, f.recs = false, len(t.Fields) == 0
	return f
}

// tableOf is the owned table local e names with what is known of it, if any.
func (a *analyzer) tableOf(e ast.Expr, st *state, sc *scope) (*local, tabFact, bool) {
	id, ok := e.(*ast.IdentExpr)
	if !ok || st.dead {
		return nil, tabFact{}, false
	}
	l := sc.lookup(id.Value)
	if l == nil || !a.owned(l.name) {
		return nil, tabFact{}, false
	}
	f, ok := st.tabs[l]
	return l, f, ok
}

// keysIndex is the local e names when it is the index of a loop over
// ipairs(KEYS) that the body does not assign.
func (a *analyzer) keysIndex(e ast.Expr, sc *scope) *local {
	id, ok := e.(*ast.IdentExpr)
	if !ok {
		return nil
	}
	if l := sc.lookup(id.Value); l != nil && l.keysIndex && !a.assigned[l.name] && !a.volatile[l.name] {
		return l
	}
	return nil
}

// store records t[k] = v (v of type ty, n if a number known) in what is
// known of t, if t is an owned table.
func (a *analyzer) store(lhs *ast.AttrGetExpr, rhs ast.Expr, ty typ, n *num, st *state, sc *scope) {
	l, f, ok := a.tableOf(lhs.Object, st, sc)
	if !ok {
		return
	}
	v := anyNum
	if n != nil {
		v = *n
	}
	rec := a.record(rhs, st, sc)
	if f.recs && rec != nil {
		for k, old := range st.fields {
			if k.t != l {
				continue
			}
			if nf, ok := rec[k.name]; ok {
				st.fields[k] = old.join(nf)
			} else {
				st.fields[k] = old.join(fieldFact{t: tNil})
			}
		}
		for name, nf := range rec {
			k := fieldKey{l, name}
			if _, ok := st.fields[k]; !ok {
				if f.t != 0 {
					nf = nf.join(fieldFact{t: tNil}) // records stored before lack it
				}
				st.fields[k] = nf
			}
		}
	} else {
		for k := range st.fields {
			if k.t == l {
				delete(st.fields, k)
			}
		}
	}
	f = f.add(ty, v)
	f.recs = f.recs && rec != nil
	st.tabs[l] = f
	if ty&tNil != 0 {
		delete(st.fill, l) // t[i] may be nil again
		return
	}
	if k := a.keysIndex(lhs.Key, sc); k != nil {
		st.fill[l] = k
	}
}

// record is what the fields of e hold, when e is a constructor of named
// fields only, each once (it has been evaluated: a.ctors has their types).
func (a *analyzer) record(e ast.Expr, st *state, sc *scope) map[string]fieldFact {
	t, ok := e.(*ast.TableExpr)
	if !ok {
		return nil
	}
	ts := a.ctors[t]
	if len(ts) != len(t.Fields) {
		return nil
	}
	out := map[string]fieldFact{}
	for i, f := range t.Fields {
		k, ok := f.Key.(*ast.StringExpr)
		if !ok {
			return nil
		}
		if _, dup := out[k.Value]; dup {
			return nil
		}
		n := anyNum
		if ts[i]&tNum != 0 {
			n = a.numOf(f.Value, st, sc)
		}
		out[k.Value] = fieldFact{t: ts[i], n: n}
	}
	return out
}

// recordsOnly: the records in t, a table local, are changed by nothing the
// flow does not see: t is owned, never read as t[k] or handed to unpack or
// next (its records reach locals only as the elements of ipairs loops), and
// the elements of those loops are only looked at.
func (a *analyzer) recordsOnly(t *local) bool {
	if !a.owned(t.name) || a.indexed[t.name] {
		return false
	}
	for _, e := range a.loopElems[t.name] {
		if a.escapes[e] || a.assigned[e] || a.volatile[e] {
			return false
		}
	}
	return true
}

// recordField is what is known of e, c.name where c is the element of a
// loop over ipairs(t) and t holds records.
func (a *analyzer) recordField(e *ast.AttrGetExpr, st *state, sc *scope) (fieldFact, bool) {
	id, ok := e.Object.(*ast.IdentExpr)
	name, isStr := e.Key.(*ast.StringExpr)
	if !ok || !isStr || st.dead {
		return fieldFact{}, false
	}
	c := sc.lookup(id.Value)
	if c == nil || c.elemOf == nil || !a.recordsOnly(c.elemOf) {
		return fieldFact{}, false
	}
	if f, ok := st.tabs[c.elemOf]; !ok || !f.recs {
		return fieldFact{}, false
	}
	if f, ok := st.fields[fieldKey{c.elemOf, name.Value}]; ok {
		return f, true
	}
	return fieldFact{t: tNil}, true
}

// element is the type of t[k], when t is an owned table: one of its
// values, or nil unless the table is filled and k a KEYS index.
func (a *analyzer) element(e *ast.AttrGetExpr, st *state, sc *scope) (typ, bool) {
	_, f, ok := a.tableOf(e.Object, st, sc)
	if !ok {
		return 0, false
	}
	if f.filled && f.t != 0 && a.keysIndex(e.Key, sc) != nil {
		return f.t, true
	}
	return f.t | tNil, true
}

// loop analyzes a loop to a fixed point: the state at the top of the
// body is the join of the state before the loop and at the end of the
// body, until it no longer changes. If it does not settle in a few rounds,
// or a break leaves from the middle of the body, every local the loop
// assigns is taken as unknown instead: what holds then holds on each
// iteration. After the loop holds what held at the top of its body.
func (a *analyzer) loop(s ast.Stmt, st *state, sc *scope) {
	var body []ast.Stmt
	switch s := s.(type) {
	case *ast.WhileStmt:
		body = s.Stmts
	case *ast.RepeatStmt:
		body = s.Stmts
	case *ast.NumberForStmt:
		body = s.Stmts
	case *ast.GenericForStmt:
		body = s.Stmts
	}
	entry := st.clone()
	settled := false
	var end *state
	if !hasBreak(body) {
		// The writes an iteration opened are open at the top of the next:
		// what may fail early in the body refutes them.
		for round := 0; round < 6 && !settled; round++ {
			end = a.iteration(s, body, entry.clone(), sc)
			next := entry.clone()
			next.join(end)
			settled = sameEnv(next, entry) && maps.Equal(next.open, entry.open)
			entry = next
		}
	}
	if !settled {
		assigned := map[string]bool{}
		collectAssigned(body, assigned)
		entry = st.clone()
		for l := range entry.env {
			if assigned[l.name] {
				delete(entry.env, l)
			}
		}
		for l := range entry.nums {
			if assigned[l.name] {
				delete(entry.nums, l)
			}
		}
		stores := map[string]bool{}
		collectStores(body, stores)
		for l := range entry.tabs {
			if stores[l.name] {
				delete(entry.tabs, l)
			}
		}
		for k := range entry.fields {
			if stores[k.t.name] {
				delete(entry.fields, k)
			}
		}
		clear(entry.fill)
		// Unless an iteration from there leaves the keys as they were (a
		// body that writes nothing and calls nothing that may, such as a
		// search that breaks), the body may have written: nothing is
		// known of the keys.
		probe := a.iteration(s, body, entry.clone(), sc)
		same := probe.wrote == entry.wrote && probe.deleted == entry.deleted
		for k, f := range entry.keys {
			if g, ok := probe.keys[k]; !ok || g != f {
				same = false
			}
		}
		if !same {
			entry.keys = map[string]keyFact{}
			entry.deleted = true
		}
		// Run it twice: the second time with the writes the first opened
		// open from the top, as they are on every later iteration.
		end := a.iteration(s, body, entry.clone(), sc)
		for w := range end.open {
			entry.open[w] = true
		}
		end = a.iteration(s, body, entry.clone(), sc)
		for w := range end.open {
			entry.open[w] = true
		}
	}
	// A loop over every KEYS element that wrote nothing, before any write,
	// showed what each element holds.
	if sym := a.syms[s]; settled && sym != "" && !st.wrote && !end.wrote && !end.dead {
		if f, ok := end.keys[sym]; ok && f.fam != "" && f.stable {
			entry.keys[everyKey] = keyFact{fam: f.fam, stable: !entry.deleted}
		}
	}
	// A loop over ipairs(KEYS) that stored in a table at its index on
	// every path through its body filled the table.
	if idx := a.loopIndex[s]; settled && idx != nil && idx.keysIndex && !end.dead {
		for t, k := range end.fill {
			if f, ok := entry.tabs[t]; ok && k == idx {
				f.filled = true
				entry.tabs[t] = f
			}
		}
	}
	// After the loop holds what held at the top of its body; the writes
	// the body opened are open, the loop may have run them last. A repeat
	// loop leaves at the end of its body, after one iteration at least.
	if _, ok := s.(*ast.RepeatStmt); ok && settled {
		*st = *end
		return
	}
	*st = *entry
}

// collectStores adds the names of the tables t[k] = v stores into.
func collectStores(stmts []ast.Stmt, into map[string]bool) {
	eachStmt(stmts, func(s ast.Stmt) {
		if s, ok := s.(*ast.AssignStmt); ok {
			for _, l := range s.Lhs {
				if attr, ok := l.(*ast.AttrGetExpr); ok {
					if id, ok := attr.Object.(*ast.IdentExpr); ok {
						into[id.Value] = true
					}
				}
			}
		}
	})
}

// iteration runs one iteration of a loop from in and returns the state at
// the end of its body.
func (a *analyzer) iteration(s ast.Stmt, body []ast.Stmt, in *state, sc *scope) *state {
	inner := &scope{parent: sc, vars: map[string]*local{}}
	switch s := s.(type) {
	case *ast.WhileStmt:
		in, _, _ = a.cond(s.Condition, in, sc)
	case *ast.NumberForStmt:
		for _, e := range []ast.Expr{s.Init, s.Limit, s.Step} {
			if e != nil && !a.expr(e, in, sc).within(tArith) {
				a.mayFail(in, e, "a for loop whose bounds may not be numbers")
			}
		}
		l := &local{name: s.Name}
		inner.vars[s.Name] = l
		in.env[l] = tNum
	case *ast.GenericForStmt:
		ok := false
		if call, isCall := s.Exprs[0].(*ast.FuncCallExpr); isCall && len(s.Exprs) == 1 && len(call.Args) == 1 {
			// ipairs only: pairs raises if the body adds fields.
			if id, isID := call.Func.(*ast.IdentExpr); isID && id.Value == "ipairs" && sc.lookup(id.Value) == nil {
				ok = a.expr(call.Args[0], in, sc).within(tTable)
			}
		}
		if !ok {
			a.exprList(s.Exprs, len(s.Exprs), in, sc)
			a.mayFail(in, s.Exprs[0], "a for loop other than ipairs over a table")
		}
		sym := a.keysLoop(s, sc)
		var elems *tabFact
		var over *local
		if call, isCall := s.Exprs[0].(*ast.FuncCallExpr); ok && isCall {
			if t, f, known := a.tableOf(call.Args[0], in, sc); known && f.t != 0 {
				elems, over = &f, t
			}
		}
		for i, n := range s.Names {
			l := &local{name: n}
			inner.vars[n] = l
			if i == 0 && ok {
				in.env[l] = tNum
				l.keysIndex = sym != ""
				a.loopIndex[s] = l
			}
			if i == 1 && elems != nil && !in.dead {
				// ipairs stops at the first nil.
				in.env[l] = elems.t
				if elems.recs {
					l.elemOf = over
				}
				if elems.t&tNum != 0 {
					in.nums[l] = elems.n
				}
			}
			if i == 1 && sym != "" && !in.dead {
				// A new element each iteration: what is known of it is what
				// is known of every element.
				l.key = sym
				in.env[l] = tStr | tNumStr
				f, known := in.keys[everyKey]
				in.keys[sym] = keyFact{fam: f.fam, stable: (!known || f.stable) && !in.deleted}
			}
		}
	}
	a.block(body, in, inner)
	if r, ok := s.(*ast.RepeatStmt); ok && !in.dead {
		a.cond(r.Condition, in, inner)
	}
	return in
}

func sameEnv(a, b *state) bool {
	if a.dead != b.dead || a.wrote != b.wrote || a.deleted != b.deleted || len(a.env) != len(b.env) || !maps.Equal(a.nums, b.nums) ||
		!maps.Equal(a.keys, b.keys) || !maps.Equal(a.tabs, b.tabs) || !maps.Equal(a.fill, b.fill) || !maps.Equal(a.fields, b.fields) {
		return false
	}
	for k, v := range a.env {
		if w, ok := b.env[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// hasBreak: a break leaves this loop from within its body.
func hasBreak(stmts []ast.Stmt) bool {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.BreakStmt:
			return true
		case *ast.DoBlockStmt:
			if hasBreak(s.Stmts) {
				return true
			}
		case *ast.IfStmt:
			if hasBreak(s.Then) || hasBreak(s.Else) {
				return true
			}
		}
	}
	return false
}

func collectAssigned(stmts []ast.Stmt, into map[string]bool) {
	eachStmt(stmts, func(s ast.Stmt) {
		switch s := s.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.IdentExpr); ok {
					into[id.Value] = true
				}
			}
		case *ast.LocalAssignStmt:
			for _, n := range s.Names {
				into[n] = true
			}
		case *ast.FuncDefStmt:
			if id, ok := s.Name.Func.(*ast.IdentExpr); ok {
				into[id.Value] = true
			}
		}
	})
}

// exprList evaluates es for n targets: the types of the first n values.
func (a *analyzer) exprList(es []ast.Expr, n int, st *state, sc *scope) []typ {
	ts := make([]typ, n)
	for i := range ts {
		ts[i] = tNil
	}
	for i, e := range es {
		t := a.expr(e, st, sc)
		if i < n {
			ts[i] = t
		}
		if i == len(es)-1 && multi(e) {
			for j := i + 1; j < n; j++ {
				ts[j] = tAny
			}
		}
	}
	return ts
}

// multi: e may stand for any number of values, none included (a call or
// ... not in parentheses).
func multi(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FuncCallExpr:
		return !e.AdjustRet
	case *ast.Comma3Expr:
		return !e.AdjustRet
	}
	return false
}

// lastMulti: the last of es may stand for no value at all.
func lastMulti(es []ast.Expr) bool { return len(es) > 0 && multi(es[len(es)-1]) }

// cond evaluates a condition at st and returns two new states, where it
// held and where it did not, and the types of its value.
func (a *analyzer) cond(e ast.Expr, st *state, sc *scope) (t, f *state, ty typ) {
	switch e := e.(type) {
	case *ast.UnaryNotOpExpr:
		t, f, _ = a.cond(e.Expr, st, sc)
		return f, t, tBool
	case *ast.LogicalOpExpr:
		lt, lf, l := a.cond(e.Lhs, st, sc)
		if e.Operator == "and" {
			rt, rf, r := a.cond(e.Rhs, lt, sc)
			rf.join(lf)
			return rt, rf, l&tFalsy | r
		}
		rt, rf, r := a.cond(e.Rhs, lf, sc)
		lt.join(rt)
		return lt, rf, l&^tFalsy | r
	case *ast.IdentExpr:
		ty = a.expr(e, st, sc)
		t, f = st.clone(), st.clone()
		a.refine(e, t, sc, func(x typ) typ { return x &^ tFalsy })
		a.refine(e, f, sc, func(x typ) typ { return x & tFalsy })
		return t, f, ty
	case *ast.RelationalOpExpr:
		ty = a.expr(e, st, sc)
		t, f = st.clone(), st.clone()
		if _, isNil := e.Rhs.(*ast.NilExpr); isNil && (e.Operator == "==" || e.Operator == "~=") {
			eq, ne := t, f
			if e.Operator == "~=" {
				eq, ne = f, t
			}
			a.refine(e.Lhs, eq, sc, func(x typ) typ { return x & tNil })
			a.refine(e.Lhs, ne, sc, func(x typ) typ { return x &^ tNil })
		}
		a.narrowCompare(e, t, f, sc)
		a.narrowType(e, t, f, sc)
		return t, f, ty
	case *ast.FuncCallExpr:
		if _, w := a.writes[e]; w && setNX(e) {
			// A SET NX or XX that replies nil wrote nothing.
			ty = a.expr(e, st, sc)
			t, f = st.clone(), st.clone()
			delete(f.open, e)
			return t, f, ty
		}
	}
	ty = a.expr(e, st, sc)
	return st.clone(), st.clone(), ty
}

// setNX: a SET with NX or XX and without GET, spelled in literals.
func setNX(e *ast.FuncCallExpr) bool {
	if cmd, ok := e.Args[0].(*ast.StringExpr); !ok || strings.ToLower(cmd.Value) != "set" {
		return false
	}
	cond := false
	for _, arg := range e.Args[1:] {
		switch v := arg.(type) {
		case *ast.StringExpr:
			switch strings.ToLower(v.Value) {
			case "nx", "xx":
				cond = true
			case "get":
				return false
			}
		case *ast.Comma3Expr:
			return false
		case *ast.FuncCallExpr:
			return false // may expand to anything, GET included
		}
	}
	return cond
}

// expr evaluates e at st: the types its value may have. An operation that
// may raise calls mayFail; operations that succeed refine their operands.
func (a *analyzer) expr(e ast.Expr, st *state, sc *scope) typ {
	switch e := e.(type) {
	case *ast.NilExpr:
		return tNil
	case *ast.TrueExpr:
		return tTrue
	case *ast.FalseExpr:
		return tFalse
	case *ast.NumberExpr:
		return tNum
	case *ast.StringExpr:
		if numeral.MatchString(e.Value) {
			return tNumStr
		}
		return tStr
	case *ast.Comma3Expr:
		return tAny
	case *ast.IdentExpr:
		if l := sc.lookup(e.Value); l != nil {
			return a.typeOf(st, l)
		}
		if e.Value == "KEYS" || e.Value == "ARGV" {
			return tTable
		}
		return tOther // a library
	case *ast.FunctionExpr:
		return tFunc
	case *ast.AttrGetExpr:
		obj := a.expr(e.Object, st, sc)
		a.expr(e.Key, st, sc)
		if id, ok := e.Object.(*ast.IdentExpr); ok && sc.lookup(id.Value) == nil {
			switch id.Value {
			case "KEYS", "ARGV":
				return tStr | tNumStr | tNil
			case "math":
				if k, ok := e.Key.(*ast.StringExpr); ok && (k.Value == "huge" || k.Value == "pi") {
					return tNum
				}
				return tFunc
			}
			return tAny // a library's field
		}
		if !obj.within(tTable | tText) {
			a.mayFail(st, e, "indexing what may not be a table or a string")
		}
		a.refine(e.Object, st, sc, func(x typ) typ { return x & (tTable | tText) })
		if ty, ok := a.element(e, st, sc); ok {
			return ty
		}
		if f, ok := a.recordField(e, st, sc); ok {
			return f.t
		}
		return tAny
	case *ast.TableExpr:
		ts := make([]typ, len(e.Fields))
		for i, f := range e.Fields {
			if f.Key != nil {
				k := a.expr(f.Key, st, sc)
				if !a.safeKey(f.Key, k, st, sc) {
					a.mayFail(st, f.Key, "a table key that may be nil or NaN")
				}
			}
			ts[i] = a.expr(f.Value, st, sc)
		}
		a.ctors[e] = ts
		return tTable
	case *ast.LogicalOpExpr:
		// The right side runs on some paths only.
		t, f, ty := a.cond(e, st, sc)
		t.join(f)
		*st = *t
		return ty
	case *ast.RelationalOpExpr:
		l := a.expr(e.Lhs, st, sc)
		r := a.expr(e.Rhs, st, sc)
		if e.Operator == "==" || e.Operator == "~=" {
			return tBool
		}
		switch {
		case l.within(tNum) && r.within(tNum), l.within(tText) && r.within(tText):
		default:
			a.mayFail(st, e, "comparing what may not be two numbers or two strings")
		}
		// It succeeded: both numbers or both strings.
		if l.within(tNum) {
			a.refine(e.Rhs, st, sc, func(x typ) typ { return x & tNum })
		} else if l.within(tText) {
			a.refine(e.Rhs, st, sc, func(x typ) typ { return x & tText })
		}
		if r.within(tNum) {
			a.refine(e.Lhs, st, sc, func(x typ) typ { return x & tNum })
		} else if r.within(tText) {
			a.refine(e.Lhs, st, sc, func(x typ) typ { return x & tText })
		}
		return tBool
	case *ast.ArithmeticOpExpr:
		a.arith(st, sc, e.Lhs, e.Rhs)
		return tNum
	case *ast.UnaryMinusOpExpr:
		a.arith(st, sc, e.Expr)
		return tNum
	case *ast.StringConcatOpExpr:
		l := a.expr(e.Lhs, st, sc)
		r := a.expr(e.Rhs, st, sc)
		if !l.within(tNum|tText) || !r.within(tNum|tText) {
			a.mayFail(st, e, "concatenating what may not be a string or a number")
		}
		return tStr
	case *ast.UnaryNotOpExpr:
		a.expr(e.Expr, st, sc)
		return tBool
	case *ast.UnaryLenOpExpr:
		if !a.expr(e.Expr, st, sc).within(tTable | tText) {
			a.mayFail(st, e, "the length of what may not be a table or a string")
		}
		return tNum
	case *ast.FuncCallExpr:
		return a.call(e, st, sc)
	}
	a.quit(e, "an expression the proof does not model")
	return tAny
}

// arith evaluates operands of arithmetic: it may raise unless all convert
// to numbers, and after it they do.
func (a *analyzer) arith(st *state, sc *scope, operands ...ast.Expr) {
	ok := true
	for _, o := range operands {
		if !a.expr(o, st, sc).within(tArith) {
			ok = false
		}
	}
	if !ok {
		a.mayFail(st, operands[0], "arithmetic on what may not be a number")
	}
	for _, o := range operands {
		a.refine(o, st, sc, func(x typ) typ {
			if x&(tStr|tNumStr) != 0 {
				return x&tNum | tNumStr
			}
			return x & tNum
		})
	}
}

// integerReply are commands whose reply is an integer whatever their
// arguments (in RESP2 and RESP3), which Lua receives as a number.
var integerReply = map[string]bool{
	"APPEND": true, "BITCOUNT": true, "DBSIZE": true, "DECR": true, "DECRBY": true, "DEL": true,
	"EXISTS": true, "EXPIRE": true, "EXPIREAT": true, "EXPIRETIME": true, "GETBIT": true,
	"HDEL": true, "HEXISTS": true, "HINCRBY": true, "HLEN": true, "HSET": true, "HSETNX": true,
	"HSTRLEN": true, "INCR": true, "INCRBY": true, "LLEN": true, "LPUSH": true, "LPUSHX": true,
	"LREM": true, "PERSIST": true, "PEXPIRE": true, "PEXPIREAT": true, "PEXPIRETIME": true,
	"PTTL": true, "RPUSH": true, "RPUSHX": true, "SADD": true, "SCARD": true, "SETBIT": true,
	"SETRANGE": true, "SISMEMBER": true, "SMOVE": true, "SREM": true, "STRLEN": true, "TOUCH": true,
	"TTL": true, "UNLINK": true, "XDEL": true, "XLEN": true, "ZCARD": true, "ZCOUNT": true,
	"ZLEXCOUNT": true, "ZREM": true, "ZREMRANGEBYLEX": true, "ZREMRANGEBYRANK": true,
	"ZREMRANGEBYSCORE": true,
}

// mathFns are math's functions that, given numbers, return a number and
// cannot raise.
var mathFns = map[string]bool{
	"abs": true, "ceil": true, "floor": true, "max": true, "min": true, "sqrt": true, "exp": true,
	"log": true, "log10": true, "pow": true, "fmod": true, "modf": true, "sin": true, "cos": true,
	"tan": true, "asin": true, "acos": true, "atan": true, "atan2": true, "sinh": true, "cosh": true,
	"tanh": true, "deg": true, "rad": true, "frexp": true, "ldexp": true,
}

func (a *analyzer) call(e *ast.FuncCallExpr, st *state, sc *scope) typ {
	if e.Receiver != nil {
		a.expr(e.Receiver, st, sc)
		a.exprList(e.Args, len(e.Args), st, sc)
		a.mayFail(st, e, "a method call")
		a.callsBack(st)
		return tAny
	}
	// redis.call and its kin.
	if attr, ok := e.Func.(*ast.AttrGetExpr); ok {
		if obj, ok := attr.Object.(*ast.IdentExpr); ok && sc.lookup(obj.Value) == nil {
			key, _ := attr.Key.(*ast.StringExpr)
			args := a.exprList(e.Args, len(e.Args), st, sc)
			switch {
			case obj.Value == "redis" && (key.Value == "error_reply" || key.Value == "status_reply"):
				if len(args) != 1 || !args[0].within(tText) {
					a.mayFail(st, e, "redis."+key.Value+" of what may not be a string")
				}
				return tTable
			case obj.Value == "redis":
				if ok, why := a.sure(e, args, st, sc); !ok {
					a.mayFail(st, e, why)
				}
				ty := tAny
				if integerReply[literalCommand(e)] {
					// A reply that returns is an integer; pcall returns an
					// error as a table.
					ty = tNum
					if key.Value == "pcall" {
						ty |= tTable
					}
				}
				_, w := a.writes[e]
				if w && !st.dead {
					st.open[e] = true
					if a.frame == nil {
						a.opened[e] = true
					}
					a.planWrite(e, key.Value, st, sc)
					a.wrote(st)
				}
				a.ran(e, key.Value == "call", w, args, st, sc)
				return ty
			case obj.Value == "math" && key != nil && mathFns[key.Value]:
				ok := len(args) > 0 && !lastMulti(e.Args)
				for _, t := range args {
					if !t.within(tArith) {
						ok = false
					}
				}
				if !ok {
					a.mayFail(st, e, "math."+key.Value+" of what may not be a number")
				}
				return tNum
			case obj.Value == "string" && key != nil && stringCallSafe(key.Value, e.Args, args):
				if key.Value == "len" {
					return tNum
				}
				return tStr
			}
			a.mayFail(st, e, "a call of "+obj.Value+"."+attrName(key))
			if obj.Value != "math" && obj.Value != "string" && mayCallBack(e.Args, args) {
				a.callsBack(st) // table.sort may call back into the script
			}
			return tAny
		}
	}
	if id, ok := e.Func.(*ast.IdentExpr); ok {
		l := sc.lookup(id.Value)
		args := a.exprList(e.Args, len(e.Args), st, sc)
		if l == nil && len(args) == 1 && !lastMulti(e.Args) {
			switch id.Value {
			case "tonumber":
				return tNum | tNil
			case "tostring":
				return tText
			case "type":
				return tStr
			}
		}
		if l == nil && id.Value == "pcall" && len(e.Args) > 0 && codec(e.Args[0], sc) {
			// pcall(cjson.decode, s): the error is caught, and a codec
			// calls nothing of the script's.
			return tAny
		}
		if l == nil {
			a.mayFail(st, e, "a call of "+id.Value)
			if id.Value == "error" {
				st.dead = true
			}
			if !pureBuiltins[id.Value] {
				a.callsBack(st) // pcall and xpcall run what they are given
			}
			return tAny
		}
		if l.fn != nil && !a.volatile[l.name] {
			return a.follow(e, l, args, st, sc)
		}
	} else {
		a.expr(e.Func, st, sc)
		a.exprList(e.Args, len(e.Args), st, sc)
	}
	a.mayFail(st, e, "a call of a function the proof does not follow")
	a.callsBack(st)
	return tAny
}

// safeKey: e, of type ty at st, can index a table (neither nil nor NaN).
func (a *analyzer) safeKey(e ast.Expr, ty typ, st *state, sc *scope) bool {
	if _, lit := e.(*ast.NumberExpr); lit || ty.within(tText|tBool|tTable) {
		return true
	}
	return ty.within(tText|tBool|tTable|tNum) && !a.numOf(e, st, sc).nan
}

// callsBack records that code the flow does not follow may have run at st
// (a function handed to pcall, table.sort's comparator, …): it may have
// written anything.
func (a *analyzer) callsBack(st *state) {
	a.wrote(st)
	if !st.dead {
		st.keys = map[string]keyFact{}
		st.deleted = true
	}
}

// wrote records that a write may have run at st.
func (a *analyzer) wrote(st *state) {
	st.wrote = true
	if a.frame != nil {
		a.frame.wrote = true
	}
}

// exprAt is the expression that gives the i-th of the values es make, nil
// when that value comes from a call's or ...'s expansion.
func exprAt(es []ast.Expr, i int) ast.Expr {
	if i < len(es) && (i < len(es)-1 || !multi(es[i])) {
		return es[i]
	}
	if i == len(es)-1 {
		return es[i] // a call's first value
	}
	return nil
}

// hashRead: e is redis.call of HMGET or HGET on KEYS[n] of literal
// fields.
func hashRead(e ast.Expr) *read {
	call, ok := e.(*ast.FuncCallExpr)
	if !ok || !isRedisCall(call, "call") || len(call.Args) < 3 {
		return nil
	}
	cmd, ok := call.Args[0].(*ast.StringExpr)
	if !ok {
		return nil
	}
	r := &read{key: keyRef(call.Args[1])}
	switch strings.ToUpper(cmd.Value) {
	case "HMGET":
	case "HGET":
		r.hget = true
		if len(call.Args) != 3 {
			return nil
		}
	default:
		return nil
	}
	for _, f := range call.Args[2:] {
		lit, ok := f.(*ast.StringExpr)
		if !ok || !plainLiteral.MatchString(lit.Value) {
			return nil
		}
		r.fields = append(r.fields, lit.Value)
	}
	if r.key == "" {
		return nil
	}
	return r
}

var (
	plainLiteral = regexp.MustCompile(`^[A-Za-z0-9_:.{}-]+$`)
	keyIndex     = regexp.MustCompile(`^[1-9][0-9]*$`)
)

// keyRef is "KEYS[n]" for that expression with n a literal integer, else "".
func keyRef(e ast.Expr) string {
	attr, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return ""
	}
	id, ok := attr.Object.(*ast.IdentExpr)
	n, isNum := attr.Key.(*ast.NumberExpr)
	if !ok || id.Value != "KEYS" || !isNum || !keyIndex.MatchString(n.Value) {
		return ""
	}
	return "KEYS[" + n.Value + "]"
}

func isRedisCall(e *ast.FuncCallExpr, fn string) bool {
	attr, ok := e.Func.(*ast.AttrGetExpr)
	if !ok {
		return false
	}
	id, ok := attr.Object.(*ast.IdentExpr)
	key, isStr := attr.Key.(*ast.StringExpr)
	return ok && isStr && id.Value == "redis" && key.Value == fn
}

// planWrite finds, for a hash write HSET or HMSET of literal fields on
// KEYS[n], a local in scope holding a read of those fields made before any
// write: its undo is then known without a read. Every visit of a site must
// find the same plan (loops are visited more than once); one that does not
// has none.
func (a *analyzer) planWrite(e *ast.FuncCallExpr, fn string, st *state, sc *scope) {
	p := a.findPlan(e, fn, sc)
	if old, seen := a.plans[e]; seen && (old == nil || p == nil || old.local != p.local || strings.Join(old.refs, ",") != strings.Join(p.refs, ",")) {
		p = nil
	}
	if a.frame != nil {
		p = nil
	}
	a.plans[e] = p
}

func (a *analyzer) findPlan(e *ast.FuncCallExpr, fn string, sc *scope) *plan {
	cmd, ok := e.Args[0].(*ast.StringExpr)
	if fn != "call" || !ok || len(e.Args) < 4 || len(e.Args)%2 != 0 || lastMulti(e.Args) {
		return nil
	}
	if c := strings.ToUpper(cmd.Value); c != "HSET" && c != "HMSET" {
		return nil
	}
	key := keyRef(e.Args[1])
	if key == "" || a.escapes["KEYS"] {
		return nil
	}
	var fields []string
	for i := 2; i < len(e.Args); i += 2 {
		lit, ok := e.Args[i].(*ast.StringExpr)
		if !ok || !plainLiteral.MatchString(lit.Value) {
			return nil
		}
		fields = append(fields, lit.Value)
	}
	for c := sc; c != nil; c = c.parent {
	candidates:
		for _, name := range slices.Sorted(maps.Keys(c.vars)) {
			l := c.vars[name]
			r := l.read
			if r == nil || r.key != key || a.escapes[name] || a.assigned[name] || a.volatile[name] || sc.lookup(name) != l {
				continue
			}
			p := &plan{key: key, local: name}
			for _, f := range fields {
				i := slices.Index(r.fields, f)
				if i < 0 {
					continue candidates
				}
				ref := fmt.Sprintf("%s[%d]", name, i+1)
				if r.hget {
					ref = name
				}
				p.refs = append(p.refs, ref)
				p.names = append(p.names, "'"+f+"'")
			}
			return p
		}
	}
	return nil
}

// follow analyzes a call of the script's own local function with these
// argument types: whether anything in it may raise, and what it returns.
// Its writes are never the last failure point (the scan saw to that).
func (a *analyzer) follow(call *ast.FuncCallExpr, l *local, args []typ, st *state, callerScope *scope) typ {
	argExprs := call.Args
	if a.depth >= 8 {
		a.mayFail(st, call, "a call of "+l.name+", nested too deep to follow")
		return tAny
	}
	f := l.fn
	sc := &scope{parent: l.fnScope, vars: map[string]*local{}}
	in := &state{env: maps.Clone(st.env), nums: maps.Clone(st.nums), keys: maps.Clone(st.keys), open: map[*ast.FuncCallExpr]bool{}}
	for i, n := range f.ParList.Names {
		p := &local{name: n}
		sc.vars[n] = p
		in.env[p] = tNil
		switch {
		case i >= len(args)-1 && lastMulti(argExprs):
			in.env[p] = tAny // what the last argument expands to
		case i < len(args):
			in.env[p] = args[i]
			if args[i]&tNum != 0 {
				in.nums[p] = a.numOf(argExprs[i], st, callerScope)
			}
		}
	}
	outer := a.frame
	fr := &frame{}
	a.frame, a.depth = fr, a.depth+1
	a.block(f.Stmts, in, sc)
	a.frame, a.depth = outer, a.depth-1
	if !in.dead {
		fr.rets |= tNil
	}
	if fr.raises {
		a.mayFail(st, call, l.name+"(…) may fail: "+fr.why)
	}
	if fr.wrote {
		a.callsBack(st)
	}
	if fr.nums != nil {
		n := *fr.nums
		if old, ok := a.callNums[call]; ok {
			n = n.join(old)
		}
		a.callNums[call] = n
	}
	if fr.rets == 0 {
		return tNil
	}
	return fr.rets
}
