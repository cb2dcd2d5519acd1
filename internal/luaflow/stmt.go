package luaflow

import (
	"maps"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

func (a *analyzer) block(stmts []ast.Stmt, st *state, sc *flowScope) {
	for _, s := range stmts {
		if st.dead || a.giveUp {
			return
		}
		a.stmt(s, st, sc)
	}
}

func (a *analyzer) stmt(s ast.Stmt, st *state, sc *flowScope) {
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
					l.got = stringRead(s.Exprs[0])
				}
			}
			if i < len(s.Exprs) {
				if f, ok := s.Exprs[i].(*ast.FunctionExpr); ok && !a.assigned[n] {
					// The body sees the names declared so far (and, for
					// local function, itself), not the ones after.
					l.fn, l.fnScope = f, &flowScope{parent: sc.parent, vars: maps.Clone(sc.vars)}
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
		if c, ok := s.Expr.(*ast.FuncCallExpr); ok {
			a.stmtCalls[c] = true
		}
		a.expr(s.Expr, st, sc)
	case *ast.DoBlockStmt:
		a.block(s.Stmts, st, newScope(sc))
	case *ast.IfStmt:
		t, f, _ := a.cond(s.Condition, st, sc)
		a.block(s.Then, t, newScope(sc))
		a.block(s.Else, f, newScope(sc))
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
func codec(e ast.Expr, sc *flowScope) bool {
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
