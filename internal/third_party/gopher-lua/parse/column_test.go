package parse

import (
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// TestColumns holds the columns the parser gives nodes and declared names
// (scriptgen) to the lexer's token columns.
func TestColumns(t *testing.T) {
	src := "local a, b = 1, 'x'\n" +
		"  for i = 1, #t do f(i) end\n" +
		"for k, v in pairs(t) do local function g(p, ...) return -(k) end end\n" +
		"x.y = {n = nil} ::done::\n"
	chunk, err := Parse(strings.NewReader(src), "c.lua")
	if err != nil {
		t.Fatal(err)
	}
	local := chunk[0].(*ast.LocalAssignStmt)
	numFor := chunk[1].(*ast.NumberForStmt)
	genFor := chunk[2].(*ast.GenericForStmt)
	fn := genFor.Stmts[0].(*ast.LocalAssignStmt)
	fexpr := fn.Exprs[0].(*ast.FunctionExpr)
	neg := fexpr.Stmts[0].(*ast.ReturnStmt).Exprs[0].(*ast.UnaryMinusOpExpr)
	assign := chunk[3].(*ast.AssignStmt)
	table := assign.Rhs[0].(*ast.TableExpr)
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"local", local.Column(), 1},
		{"local names", local.NameColumns[1], 10},
		{"number", local.Exprs[0].Column(), 14},
		{"string", local.Exprs[1].Column(), 17},
		{"for", numFor.Column(), 3},
		{"for name", numFor.NameColumn, 7},
		{"length", numFor.Limit.Column(), 14},
		{"call statement", numFor.Stmts[0].Column(), 20},
		{"generic for names", genFor.NameColumns[1], 8},
		{"local function name", fn.NameColumns[0], 40},
		{"function keyword", fexpr.Column(), 31},
		{"parameters", fexpr.ParList.NameColumns[0], 42},
		{"varargs", fexpr.ParList.VarargsColumn, 45},
		{"unary minus", neg.Column(), 57},
		{"parenthesised", neg.Expr.Column(), 59},
		{"assignment", assign.Column(), 1},
		{"table", table.Column(), 7},
		{"field name", table.Fields[0].Key.Column(), 8},
		{"nil", table.Fields[0].Value.Column(), 12},
		{"label", chunk[4].Column(), 17},
	} {
		if c.got != c.want {
			t.Errorf("%s: column %d, want %d", c.what, c.got, c.want)
		}
	}
}
