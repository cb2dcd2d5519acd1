package luaflow

import (
	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// An alias is a name every declaration of which is `local N = redis.call`
// (or every one redis.pcall): BullMQ's and Bull's `local rcall =
// redis.call`. Never assigned and used only as a call's function, such a
// local holds Redis's own function wherever it is read, so `rcall(…)` is
// `redis.call(…)`: the scan reads it so where the name is in scope (a
// use outside is a global's), and the prelude edits its site as it edits a
// `redis.call(` (Flow.Offsets finds it by name).
type alias struct {
	fn  string // "call" or "pcall"
	bad ast.PositionHolder
	why string // the first declaration or use that makes it no alias
}

// findAliases reads chunk for the names declared as aliases of redis.call
// or redis.pcall; those that are not aliases after all (handed on, as in
// pcall(rcall, …), assigned, or declared as something else too) keep
// where and why.
func findAliases(chunk []ast.Stmt) map[string]*alias {
	out := map[string]*alias{}
	refuse := func(n string, at ast.PositionHolder, why string) {
		if al := out[n]; al == nil {
			out[n] = &alias{bad: at, why: why}
		} else if al.bad == nil {
			al.bad, al.why = at, why
		}
	}
	declare := func(n, fn string, at ast.PositionHolder) {
		switch al := out[n]; {
		case fn == "" || al != nil && al.fn != fn:
			refuse(n, at, n+" is declared again, other than as redis.call's alias")
		case al == nil:
			out[n] = &alias{fn: fn}
		}
	}
	script.Inspect(chunk, func(n, parent ast.PositionHolder) {
		switch n := n.(type) {
		case *ast.LocalAssignStmt:
			for i, name := range n.Names {
				fn := ""
				if i < len(n.Exprs) {
					fn = redisFn(n.Exprs[i])
				}
				declare(name, fn, n)
			}
		case *ast.NumberForStmt:
			declare(n.Name, "", n)
		case *ast.GenericForStmt:
			for _, name := range n.Names {
				declare(name, "", n)
			}
		case *ast.FunctionExpr:
			for _, name := range n.ParList.Names {
				declare(name, "", n)
			}
		case *ast.IdentExpr:
			if out[n.Value] == nil {
				return // a global's use: a local's comes after its declaration
			}
			switch p := parent.(type) {
			case *ast.FuncCallExpr:
				if p.Func == ast.Expr(n) && p.Receiver == nil {
					return // a call of it
				}
			case *ast.AssignStmt, *ast.FuncDefStmt:
				if lhs(p, n) {
					refuse(n.Value, n, n.Value+" is assigned")
					return
				}
			}
			refuse(n.Value, n, n.Value+", redis.call's alias, is used other than as a call's function: the proof sees only calls")
		}
	})
	for n, al := range out {
		if al.fn == "" {
			delete(out, n) // never declared an alias
		}
	}
	return out
}

// lhs: id is assigned by s, an assignment or `function id() … end`.
func lhs(s ast.PositionHolder, id *ast.IdentExpr) bool {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			if l == ast.Expr(id) {
				return true
			}
		}
	case *ast.FuncDefStmt:
		return s.Name.Func == ast.Expr(id)
	}
	return false
}

// redisFn is "call" or "pcall" when e is redis.call or redis.pcall (no
// local may be named redis: see declare).
func redisFn(e ast.Expr) string {
	attr, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return ""
	}
	if id, ok := attr.Object.(*ast.IdentExpr); !ok || id.Value != "redis" {
		return ""
	}
	if k := keyString(attr.Key); k != nil && (k.Value == "call" || k.Value == "pcall") {
		return k.Value
	}
	return ""
}

// unalias makes e, a call of an alias in scope, the call of the function
// the alias holds, in the proof's own AST.
func (a *analyzer) unalias(e *ast.FuncCallExpr, sc *names) {
	id, ok := e.Func.(*ast.IdentExpr)
	if !ok || e.Receiver != nil || !sc.lookup(id.Value) {
		return
	}
	if al := a.aliases[id.Value]; al != nil && al.bad == nil {
		redis := &ast.IdentExpr{Value: "redis"}
		redis.SetLine(id.Line())
		redis.SetColumn(id.Column())
		e.Func = &ast.AttrGetExpr{Object: redis, Key: &ast.StringExpr{Value: al.fn}}
	}
}
