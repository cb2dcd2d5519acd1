package luaflow

import "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

// An alias is a name every declaration of which is `local N = redis.call`
// (or every one redis.pcall): BullMQ's and Bull's `local rcall =
// redis.call`. Never assigned and used only as a call's function, such a
// local holds Redis's own function wherever it is read, so `rcall(…)` is
// `redis.call(…)`: the proof reads it so (unalias), and the prelude edits
// its site as it edits a `redis.call(` (SiteOffsets finds it by name).
type alias struct {
	fn    string // "call" or "pcall"
	bad   ast.PositionHolder
	why   string // the first use that makes it no alias
	decls []*ast.LocalAssignStmt
	calls []*ast.FuncCallExpr
}

// aliasReader finds the aliases of a chunk: what each name's declarations
// and uses are, with the scopes resolved (a use before any declaration of
// the name in scope is a global's, none of the alias's).
type aliasReader struct {
	byName map[string]*alias
	order  []string
}

// unalias rewrites, in chunk (the proof's own AST), every call of an alias
// into the redis.call or redis.pcall it stands for, and each alias's
// declaration into `local N = nil`, as nothing reads N any more. It returns
// the names rewritten and, for the first alias that is not one (handed to
// pcall or a function, assigned, shadowed), where and why, for Explain.
func unalias(chunk []ast.Stmt) (map[string]string, ast.PositionHolder, string) {
	r := &aliasReader{byName: map[string]*alias{}}
	r.block(chunk, newScope[bool](nil))
	out := map[string]string{}
	var bad ast.PositionHolder
	var why string
	for _, n := range r.order {
		al := r.byName[n]
		if al.fn == "" || len(al.decls) == 0 {
			continue
		}
		if al.bad != nil {
			if bad == nil {
				bad, why = al.bad, al.why
			}
			continue
		}
		out[n] = al.fn
		for _, d := range al.decls {
			for i, name := range d.Names {
				if name == n {
					d.Exprs[i] = &ast.NilExpr{}
				}
			}
		}
		for _, c := range al.calls {
			redis := &ast.IdentExpr{Value: "redis"}
			redis.SetLine(c.Func.Line())
			redis.SetColumn(c.Func.Column())
			c.Func = &ast.AttrGetExpr{Object: redis, Key: &ast.StringExpr{Value: al.fn}}
		}
	}
	return out, bad, why
}

// redisFn is "call" or "pcall" when e is redis.call or redis.pcall, redis
// not shadowed.
func redisFn(e ast.Expr, sc *names) string {
	attr, ok := e.(*ast.AttrGetExpr)
	if !ok || !isRedis(attr.Object, sc) {
		return ""
	}
	if k := keyString(attr.Key); k != nil && (k.Value == "call" || k.Value == "pcall") {
		return k.Value
	}
	return ""
}

func (r *aliasReader) name(n string) *alias {
	al := r.byName[n]
	if al == nil {
		al = &alias{}
		r.byName[n] = al
		r.order = append(r.order, n)
	}
	return al
}

// declare records a declaration of n: an alias's when fn is not "".
func (r *aliasReader) declare(sc *names, at ast.PositionHolder, n, fn string, d *ast.LocalAssignStmt) {
	sc.vars[n] = true
	al := r.name(n)
	switch {
	case fn == "" || al.fn != "" && al.fn != fn:
		r.refuse(al, at, n+" is declared again, other than as redis.call's alias")
	case al.fn == "":
		al.fn = fn
		fallthrough
	default:
		al.decls = append(al.decls, d)
	}
}

func (r *aliasReader) refuse(al *alias, at ast.PositionHolder, why string) {
	if al.bad == nil {
		al.bad, al.why = at, why
	}
}

func (r *aliasReader) block(stmts []ast.Stmt, sc *names) {
	for _, s := range stmts {
		r.stmt(s, sc)
	}
}

func (r *aliasReader) stmt(s ast.Stmt, sc *names) {
	switch s := s.(type) {
	case *ast.LocalAssignStmt:
		fns := make([]string, len(s.Names))
		for i, e := range s.Exprs {
			if i < len(fns) {
				fns[i] = redisFn(e, sc)
			}
			if i >= len(fns) || fns[i] == "" {
				r.expr(e, sc)
			}
		}
		for i, n := range s.Names {
			r.declare(sc, s, n, fns[i], s)
		}
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.IdentExpr); ok {
				if sc.lookup(id.Value) {
					r.refuse(r.name(id.Value), s, id.Value+" is assigned")
				}
				continue
			}
			r.expr(l, sc)
		}
		r.exprs(s.Rhs, sc)
	case *ast.FuncCallStmt:
		r.expr(s.Expr, sc)
	case *ast.DoBlockStmt:
		r.block(s.Stmts, newScope(sc))
	case *ast.WhileStmt:
		r.expr(s.Condition, sc)
		r.block(s.Stmts, newScope(sc))
	case *ast.RepeatStmt:
		inner := newScope(sc)
		r.block(s.Stmts, inner)
		r.expr(s.Condition, inner)
	case *ast.IfStmt:
		r.expr(s.Condition, sc)
		r.block(s.Then, newScope(sc))
		r.block(s.Else, newScope(sc))
	case *ast.NumberForStmt:
		r.exprs([]ast.Expr{s.Init, s.Limit, s.Step}, sc)
		inner := newScope(sc)
		r.declare(inner, s, s.Name, "", nil)
		r.block(s.Stmts, inner)
	case *ast.GenericForStmt:
		r.exprs(s.Exprs, sc)
		inner := newScope(sc)
		for _, n := range s.Names {
			r.declare(inner, s, n, "", nil)
		}
		r.block(s.Stmts, inner)
	case *ast.FuncDefStmt:
		if id, ok := s.Name.Func.(*ast.IdentExpr); ok && s.Name.Receiver == nil {
			if sc.lookup(id.Value) {
				r.refuse(r.name(id.Value), s, id.Value+" is assigned")
			}
		} else {
			r.expr(s.Name.Func, sc)
			r.expr(s.Name.Receiver, sc)
		}
		r.expr(s.Func, sc)
	case *ast.ReturnStmt:
		r.exprs(s.Exprs, sc)
	}
}

func (r *aliasReader) exprs(es []ast.Expr, sc *names) {
	for _, e := range es {
		r.expr(e, sc)
	}
}

func (r *aliasReader) expr(e ast.Expr, sc *names) {
	switch e := e.(type) {
	case *ast.IdentExpr:
		if al := r.byName[e.Value]; al != nil && al.fn != "" && sc.lookup(e.Value) {
			r.refuse(al, e, e.Value+", redis."+al.fn+"'s alias, is used other than as a call's function: the proof sees only calls")
		}
	case *ast.FuncCallExpr:
		if id, ok := e.Func.(*ast.IdentExpr); ok && e.Receiver == nil && sc.lookup(id.Value) {
			al := r.name(id.Value)
			al.calls = append(al.calls, e)
		} else {
			r.expr(e.Func, sc)
			r.expr(e.Receiver, sc)
		}
		r.exprs(e.Args, sc)
	case *ast.AttrGetExpr:
		r.expr(e.Object, sc)
		r.expr(e.Key, sc)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			r.expr(f.Key, sc)
			r.expr(f.Value, sc)
		}
	case *ast.LogicalOpExpr:
		r.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.RelationalOpExpr:
		r.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.StringConcatOpExpr:
		r.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.ArithmeticOpExpr:
		r.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.UnaryMinusOpExpr:
		r.expr(e.Expr, sc)
	case *ast.UnaryNotOpExpr:
		r.expr(e.Expr, sc)
	case *ast.UnaryLenOpExpr:
		r.expr(e.Expr, sc)
	case *ast.FunctionExpr:
		inner := newScope(sc)
		for _, n := range e.ParList.Names {
			r.declare(inner, e, n, "", nil)
		}
		r.block(e.Stmts, inner)
	}
}
