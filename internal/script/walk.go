package script

import "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

// Inspect calls f for every statement and expression of stmts, depth
// first, with the node that holds it (nil at the top): gopher-lua has no
// walker of its own, and contract inference reads a use by its parent
// (`tonumber(ARGV[1])`, `local job_key = KEYS[1]`).
func Inspect(stmts []ast.Stmt, f func(n, parent ast.PositionHolder)) {
	w := walker{f}
	w.stmts(stmts, nil)
}

type walker struct {
	f func(n, parent ast.PositionHolder)
}

func (w walker) stmts(ss []ast.Stmt, parent ast.PositionHolder) {
	for _, s := range ss {
		w.stmt(s, parent)
	}
}

func (w walker) exprs(es []ast.Expr, parent ast.PositionHolder) {
	for _, e := range es {
		w.expr(e, parent)
	}
}

func (w walker) stmt(s ast.Stmt, parent ast.PositionHolder) {
	w.f(s, parent)
	switch s := s.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Lhs, s)
		w.exprs(s.Rhs, s)
	case *ast.LocalAssignStmt:
		w.exprs(s.Exprs, s)
	case *ast.FuncCallStmt:
		w.expr(s.Expr, s)
	case *ast.DoBlockStmt:
		w.stmts(s.Stmts, s)
	case *ast.WhileStmt:
		w.expr(s.Condition, s)
		w.stmts(s.Stmts, s)
	case *ast.RepeatStmt:
		w.stmts(s.Stmts, s)
		w.expr(s.Condition, s)
	case *ast.IfStmt:
		w.expr(s.Condition, s)
		w.stmts(s.Then, s)
		w.stmts(s.Else, s)
	case *ast.NumberForStmt:
		w.expr(s.Init, s)
		w.expr(s.Limit, s)
		w.expr(s.Step, s)
		w.stmts(s.Stmts, s)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs, s)
		w.stmts(s.Stmts, s)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			w.expr(s.Name.Func, s)
			w.expr(s.Name.Receiver, s)
		}
		w.expr(s.Func, s)
	case *ast.ReturnStmt:
		w.exprs(s.Exprs, s)
	}
}

func (w walker) expr(e ast.Expr, parent ast.PositionHolder) {
	if e == nil {
		return
	}
	w.f(e, parent)
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		w.expr(e.Object, e)
		w.expr(e.Key, e)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			w.expr(f.Key, e)
			w.expr(f.Value, e)
		}
	case *ast.FuncCallExpr:
		w.expr(e.Func, e)
		w.expr(e.Receiver, e)
		w.exprs(e.Args, e)
	case *ast.LogicalOpExpr:
		w.expr(e.Lhs, e)
		w.expr(e.Rhs, e)
	case *ast.RelationalOpExpr:
		w.expr(e.Lhs, e)
		w.expr(e.Rhs, e)
	case *ast.StringConcatOpExpr:
		w.expr(e.Lhs, e)
		w.expr(e.Rhs, e)
	case *ast.ArithmeticOpExpr:
		w.expr(e.Lhs, e)
		w.expr(e.Rhs, e)
	case *ast.UnaryMinusOpExpr:
		w.expr(e.Expr, e)
	case *ast.UnaryNotOpExpr:
		w.expr(e.Expr, e)
	case *ast.UnaryLenOpExpr:
		w.expr(e.Expr, e)
	case *ast.FunctionExpr:
		w.stmts(e.Stmts, e)
	}
}
