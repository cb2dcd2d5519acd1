package luaflow

import (
	"regexp"
	"slices"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

var numeral = regexp.MustCompile(`^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$`)

// ---------------------------------------------------------------------------
// The scan: everything but the flow. Resolves names, finds the writes,
// gives up on what the flow analysis does not model.

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
	plans     map[*ast.FuncCallExpr]*Plan   // writes whose undo the script's own read gives
	stmtCalls map[*ast.FuncCallExpr]bool    // calls that are statements of their own
	sites     []*ast.FuncCallExpr           // redis.call and redis.pcall, in source order
	aliases   map[string]*alias             // names declared as redis.call's or redis.pcall's alias
	frame     *frame                        // the local function being followed, if any
	callNums  map[*ast.FuncCallExpr]num     // what calls of local functions returned, when numbers
	syms      map[ast.Stmt]string           // ipairs(KEYS) loops: the name of their element's key
	// loopIndex: the index local of a generic for, as its last iteration
	// analyzed made it.
	loopIndex map[ast.Stmt]*local
}

// isBuiltin: e names one of the builtins names, not shadowed.
func isBuiltin(e ast.Expr, sc *names, names ...string) bool {
	id, ok := e.(*ast.IdentExpr)
	return ok && !sc.lookup(id.Value) && slices.Contains(names, id.Value)
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
		sc.vars[n] = true
		if declared != nil {
			declared[n] = true
		}
	}
}

func (a *analyzer) scanStmt(s ast.Stmt, sc *names, declared map[string]bool, nested bool) {
	switch s := s.(type) {
	case *ast.LocalAssignStmt:
		for i, n := range s.Names {
			switch al := a.aliases[n]; {
			case al == nil:
			case al.bad != nil:
				a.quit(al.bad, al.why)
			case i < len(s.Exprs):
				s.Exprs[i] = &ast.NilExpr{} // nothing reads it: its calls are redis.call's
			}
		}
		if localFunction(s) {
			// `local function f` is in scope in its own body: BullMQ's
			// includes recurse (removeParentDependencyKey).
			a.declare(sc, declared, s.Names...)
		}
		a.scanExprs(s.Exprs, sc, declared, nested)
		a.declare(sc, declared, s.Names...)
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.IdentExpr); ok {
				if !sc.lookup(id.Value) {
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
		if c, ok := s.Expr.(*ast.FuncCallExpr); ok {
			a.stmtCalls[c] = true
		}
		a.scanExpr(s.Expr, sc, declared, nested)
	case *ast.DoBlockStmt:
		a.scan(s.Stmts, newScope(sc), declared, nested)
	case *ast.WhileStmt:
		a.scanExpr(s.Condition, sc, declared, nested)
		a.scan(s.Stmts, newScope(sc), declared, nested)
	case *ast.RepeatStmt:
		inner := newScope(sc)
		a.scan(s.Stmts, inner, declared, nested)
		a.scanExpr(s.Condition, inner, declared, nested)
	case *ast.IfStmt:
		a.scanExpr(s.Condition, sc, declared, nested)
		a.scan(s.Then, newScope(sc), declared, nested)
		a.scan(s.Else, newScope(sc), declared, nested)
	case *ast.NumberForStmt:
		a.scanExprs([]ast.Expr{s.Init, s.Limit}, sc, declared, nested)
		if s.Step != nil {
			a.scanExpr(s.Step, sc, declared, nested)
		}
		inner := newScope(sc)
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
		inner := newScope(sc)
		a.declare(inner, declared, s.Names...)
		a.scan(s.Stmts, inner, declared, nested)
	case *ast.FuncDefStmt:
		// function name() … end assigns a global or a table's field.
		if id, ok := s.Name.Func.(*ast.IdentExpr); ok && s.Name.Receiver == nil {
			if !sc.lookup(id.Value) {
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
		a.unalias(e, sc)
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
		if id, ok := e.Func.(*ast.IdentExpr); ok && e.Receiver == nil && lookOnly[id.Value] && !sc.lookup(id.Value) {
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
		inner := newScope(sc)
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
		return !sc.lookup(f.Value) && (f.Value == "tostring" || f.Value == "tonumber" || f.Value == "type")
	case *ast.AttrGetExpr:
		lib, ok := f.Object.(*ast.IdentExpr)
		fn, isStr := f.Key.(*ast.StringExpr)
		if !ok || !isStr || sc.lookup(lib.Value) {
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
	if !sc.lookup(e.Value) && (!globals[e.Value] || e.Value == "redis") {
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

// localFunction: s is `local function f … end`, not `local f = function
// … end` (in whose body f is not yet declared), which gopher-lua's AST
// tells apart only by where the function's keyword stands: before the
// name.
func localFunction(s *ast.LocalAssignStmt) bool {
	if len(s.Names) != 1 || len(s.Exprs) != 1 || len(s.NameColumns) != 1 {
		return false
	}
	f, ok := s.Exprs[0].(*ast.FunctionExpr)
	return ok && f.Line() == s.Line() && f.Column() < s.NameColumns[0]
}

func isRedis(e ast.Expr, sc *names) bool {
	id, ok := e.(*ast.IdentExpr)
	return ok && id.Value == "redis" && !sc.lookup("redis")
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
	if BeyondKeys(c.Name) || c.Name == "copy" {
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

// beyondKeys are writes whose effect reaches beyond the keys of the current
// database (or all of it): a per-key journal cannot undo them, so a
// transactional run raises before executing them.
var beyondKeys = map[string]bool{"flushall": true, "flushdb": true, "swapdb": true, "move": true, "select": true}

// BeyondKeys reports whether the command name (lower case) writes beyond
// the keys of the current database: no per-key journal undoes it.
func BeyondKeys(name string) bool { return beyondKeys[name] }
