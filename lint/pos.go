package lint

import (
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

	"github.com/scriptgen/scriptgen/internal/luaflow"
)

// position is the line and column of node's first token; line when the
// node has none of its own (a declared name): a key argument of a call
// spread over lines is on its own line, not the call's.
func position(node any, line int) (int, int) {
	if e, ok := node.(ast.Expr); ok {
		if f := first(e); f != nil && f.Line() > 0 {
			return f.Line(), f.Column()
		}
	}
	return line, column(node)
}

// column is where a finding at node (an ast node, or a luaflow.NameRef for
// a declared name, which is no node) points: the
// column the parser gave the node's first token, 0 when unknown.
func column(node any) int {
	switch n := node.(type) {
	case luaflow.NameRef:
		return nameColumn(n)
	case ast.Expr:
		if f := first(n); f != nil {
			return f.Column()
		}
	case ast.PositionHolder:
		return n.Column()
	}
	return 0
}

func nameColumn(r luaflow.NameRef) int {
	var cols []int
	switch n := r.Node.(type) {
	case *ast.LocalAssignStmt:
		cols = n.NameColumns
	case *ast.GenericForStmt:
		cols = n.NameColumns
	case *ast.NumberForStmt:
		cols = []int{n.NameColumn}
	case *ast.FunctionExpr:
		cols = n.ParList.NameColumns
	}
	if r.I < 0 || r.I >= len(cols) {
		return 0 // a method's self, written nowhere
	}
	return cols[r.I]
}

// first is the leftmost sub-expression of e, whose token starts e.
func first(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.AttrGetExpr:
			e = x.Object
		case *ast.FuncCallExpr:
			if x.Receiver != nil {
				e = x.Receiver
			} else {
				e = x.Func
			}
		case *ast.LogicalOpExpr:
			e = x.Lhs
		case *ast.RelationalOpExpr:
			e = x.Lhs
		case *ast.StringConcatOpExpr:
			e = x.Lhs
		case *ast.ArithmeticOpExpr:
			e = x.Lhs
		case *ast.UnaryMinusOpExpr:
			e = x.Expr
		case *ast.UnaryNotOpExpr:
			e = x.Expr
		case *ast.UnaryLenOpExpr:
			e = x.Expr
		default:
			return e
		}
		if e == nil {
			return nil
		}
	}
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
