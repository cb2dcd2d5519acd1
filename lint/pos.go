package lint

import (
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"

	"github.com/scriptgen/scriptgen/internal/script"
)

// positions gives AST nodes the columns gopher-lua's AST lacks.
//
// The file is lexed again with gopher-lua's own scanner, so tokens and nodes
// come from the same reading of the text. Tokens are queued by kind and text
// (a name that is a variable, a string's value, a number, a keyword); a walk
// of the AST in source order then takes, for each node, the next token of
// its queue on the node's line. Matching by line keeps one mismatch (a
// construct the walk does not know) from shifting every later column.
type positions struct {
	queues map[string]*queue
	at     map[any]int // node (or nameRef) → column
}

type queue struct {
	toks []ast.Position
	next int
}

// nameRef identifies the i-th name a statement or function declares.
type nameRef struct {
	node any
	i    int
}

func newPositions(src string, chunk []ast.Stmt) *positions {
	p := &positions{queues: map[string]*queue{}, at: map[any]int{}}
	p.lex(src)
	p.block(chunk)
	return p
}

func (p *positions) lex(src string) {
	toks := script.Tokens(src)
	var braces []int // the bracket each open bracket expects
	for i, t := range toks {
		var key string
		switch t.Type {
		case '{', '(', '[':
			braces = append(braces, t.Type)
		case '}', ')', ']':
			if len(braces) > 0 {
				braces = braces[:len(braces)-1]
			}
		}
		switch t.Type {
		case parse.TIdent:
			prev, next := 0, 0
			if i > 0 {
				prev = toks[i-1].Type
			}
			if i+1 < len(toks) {
				next = toks[i+1].Type
			}
			inTable := len(braces) > 0 && braces[len(braces)-1] == '{'
			switch {
			case prev == '.' || prev == ':' || prev == parse.TGoto || prev == parse.T2Colon:
				continue // a field, method or label name
			case inTable && next == '=':
				continue // a table constructor's field name
			}
			key = "n" + t.Str
		case parse.TString:
			key = "s" + t.Str
		case parse.TNumber:
			key = "d" + t.Str
		case parse.TNil, parse.TTrue, parse.TFalse, parse.TFunction, parse.TGoto, parse.T2Colon, parse.T3Comma, '{':
			key = "k" + t.Str
			if t.Type == '{' {
				key = "k{"
			}
		default:
			continue
		}
		q := p.queues[key]
		if q == nil {
			q = &queue{}
			p.queues[key] = q
		}
		q.toks = append(q.toks, t.Pos)
	}
}

// take assigns node the column of the next token key on line.
func (p *positions) take(node any, key string, line int) {
	q := p.queues[key]
	if q == nil {
		return
	}
	for q.next < len(q.toks) && q.toks[q.next].Line < line {
		q.next++
	}
	if q.next < len(q.toks) && q.toks[q.next].Line == line {
		p.at[node] = q.toks[q.next].Column
		q.next++
	}
}

// col is the column of node's first token, 0 when unknown.
func (p *positions) col(node any) int {
	if e, ok := node.(ast.Expr); ok {
		node = first(e)
	}
	return p.at[node]
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

func (p *positions) block(stmts []ast.Stmt) {
	for _, st := range stmts {
		p.stmt(st)
	}
}

func (p *positions) names(node any, names []string, line int) {
	for i, n := range names {
		p.take(nameRef{node, i}, "n"+n, line)
	}
}

func (p *positions) stmt(st ast.Stmt) {
	switch st := st.(type) {
	case *ast.LocalAssignStmt:
		p.names(st, st.Names, st.Line())
		p.exprs(st.Exprs)
	case *ast.AssignStmt:
		p.exprs(st.Lhs)
		p.exprs(st.Rhs)
	case *ast.FuncCallStmt:
		p.expr(st.Expr)
	case *ast.DoBlockStmt:
		p.block(st.Stmts)
	case *ast.WhileStmt:
		p.expr(st.Condition)
		p.block(st.Stmts)
	case *ast.RepeatStmt:
		p.block(st.Stmts)
		p.expr(st.Condition)
	case *ast.IfStmt:
		p.expr(st.Condition)
		p.block(st.Then)
		p.block(st.Else)
	case *ast.NumberForStmt:
		p.names(st, []string{st.Name}, st.Line())
		p.exprs([]ast.Expr{st.Init, st.Limit, st.Step})
		p.block(st.Stmts)
	case *ast.GenericForStmt:
		p.names(st, st.Names, st.Line())
		p.exprs(st.Exprs)
		p.block(st.Stmts)
	case *ast.FuncDefStmt:
		p.take(st, "kfunction", st.Line())
		p.expr(st.Name.Func)
		p.expr(st.Name.Receiver)
		p.function(st.Func, false)
	case *ast.ReturnStmt:
		p.exprs(st.Exprs)
	case *ast.LabelStmt:
		p.take(st, "k::", st.Line())
	}
}

func (p *positions) exprs(es []ast.Expr) {
	for _, e := range es {
		p.expr(e)
	}
}

// function takes the function keyword unless the statement already did.
func (p *positions) function(f *ast.FunctionExpr, keyword bool) {
	if keyword {
		p.take(f, "kfunction", f.Line())
	}
	p.names(f, f.ParList.Names, f.Line())
	if f.ParList.HasVargs {
		p.take(f.ParList, "k...", f.Line())
	}
	p.block(f.Stmts)
}

func (p *positions) expr(e ast.Expr) {
	switch e := e.(type) {
	case nil:
	case *ast.IdentExpr:
		p.take(e, "n"+e.Value, e.Line())
	case *ast.StringExpr:
		p.take(e, "s"+e.Value, e.Line())
	case *ast.NumberExpr:
		p.take(e, "d"+e.Value, e.Line())
	case *ast.NilExpr:
		p.take(e, "knil", e.Line())
	case *ast.TrueExpr:
		p.take(e, "ktrue", e.Line())
	case *ast.FalseExpr:
		p.take(e, "kfalse", e.Line())
	case *ast.Comma3Expr:
		p.take(e, "k...", e.Line())
	case *ast.AttrGetExpr:
		p.expr(e.Object)
		// `t.name` holds its name as a string that is no string token.
		if s, ok := e.Key.(*ast.StringExpr); !ok || !isName(s.Value) {
			p.expr(e.Key)
		}
	case *ast.FuncCallExpr:
		p.expr(e.Func)
		p.expr(e.Receiver)
		p.exprs(e.Args)
	case *ast.TableExpr:
		p.take(e, "k{", e.Line())
		for _, f := range e.Fields {
			if s, ok := f.Key.(*ast.StringExpr); !ok || !isName(s.Value) {
				p.expr(f.Key)
			}
			p.expr(f.Value)
		}
	case *ast.LogicalOpExpr:
		p.expr(e.Lhs)
		p.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		p.expr(e.Lhs)
		p.expr(e.Rhs)
	case *ast.StringConcatOpExpr:
		p.expr(e.Lhs)
		p.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		p.expr(e.Lhs)
		p.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		p.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		p.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		p.expr(e.Expr)
	case *ast.FunctionExpr:
		p.function(e, true)
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
