package lint

import (
	"fmt"
	"strconv"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

	"github.com/scriptgen/scriptgen/internal/script"
)

// RuleOptionalArg is about an optional arg before a required one, or one
// whose default is "": the wrappers send "" for it when absent
// (script.Script.Padded), so a script
// that reads it without ever comparing it with the empty string takes "" for a value:
// tonumber("") is nil, and "" is a valid member, field or key suffix.
const RuleOptionalArg = "optional-arg"

// optionalArgs reports, for each padded arg the script reads, the first
// read when the body never compares the arg, or the local it is assigned
// to, with the empty string.
func (a *checker) optionalArgs() {
	s := a.u.s
	padded := map[int]string{}
	for i, arg := range s.Args {
		if s.Padded(i) || (arg.HasDefault && arg.Default == "" && arg.Type != script.String) {
			padded[i+1] = arg.Name
		}
	}
	if len(padded) == 0 || a.u.library {
		return
	}
	c := a.u.chunks[len(a.u.chunks)-1]
	first := map[int]*ast.AttrGetExpr{}
	alias := map[string]int{}
	checked := map[int]bool{}
	parent := map[ast.PositionHolder]ast.PositionHolder{}
	var idents []*ast.IdentExpr
	script.Inspect(c.stmts, func(n, p ast.PositionHolder) {
		parent[n] = p
		switch n := n.(type) {
		case *ast.AttrGetExpr:
			if i := argvIndex(n); padded[i] != "" && first[i] == nil {
				first[i] = n
			}
		case *ast.IdentExpr:
			idents = append(idents, n)
		case *ast.LocalAssignStmt:
			for j, e := range n.Exprs {
				if i := argvIndex(e); padded[i] != "" && j < len(n.Names) {
					alias[n.Names[j]] = i
				}
			}
		}
	})
	for i, e := range first {
		checked[i] = checked[i] || comparedWithEmpty(e, parent)
	}
	for _, id := range idents {
		if i, ok := alias[id.Value]; ok && comparedWithEmpty(id, parent) {
			checked[i] = true
		}
	}
	for i, e := range first {
		if !checked[i] {
			a.emit(c, e.Line(), max(column(e), 1), RuleOptionalArg, fmt.Sprintf(
				"arg %s (ARGV[%d]) is sent as \"\" when absent (optional before a required arg, or defaulted to \"\"); the script never compares it with '': test `ARGV[%d] == ''` before using it", padded[i], i, i))
		}
	}
}

// argvIndex is n of ARGV[n], 0 for any other expression.
func argvIndex(e ast.Expr) int {
	g, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return 0
	}
	id, ok1 := g.Object.(*ast.IdentExpr)
	num, ok2 := g.Key.(*ast.NumberExpr)
	if !ok1 || !ok2 || id.Value != "ARGV" {
		return 0
	}
	n, err := strconv.Atoi(num.Value)
	if err != nil {
		return 0
	}
	return n
}

// comparedWithEmpty reports whether e is one side of an equality test with the empty string,
// or the operand of # in `#e == 0`.
func comparedWithEmpty(e ast.Expr, parent map[ast.PositionHolder]ast.PositionHolder) bool {
	var side ast.PositionHolder = e
	if l, ok := parent[e].(*ast.UnaryLenOpExpr); ok {
		side = l
	}
	r, ok := parent[side].(*ast.RelationalOpExpr)
	if !ok || (r.Operator != "==" && r.Operator != "~=") {
		return false
	}
	other := r.Rhs
	if other == side {
		other = r.Lhs
	}
	switch o := other.(type) {
	case *ast.StringExpr:
		return o.Value == ""
	case *ast.NumberExpr:
		return side != ast.PositionHolder(e) && o.Value == "0"
	}
	return false
}
