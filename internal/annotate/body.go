package annotate

import (
	"strconv"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// writes reports whether a run of s may write: true unless every
// redis.call and redis.pcall in the script and its includes names, as a
// literal, a command Redis does not flag write. Anything else (a command
// in a variable, redis.call passed around) counts as a write: no-writes
// is a promise the server enforces, so it is written only when proven.
func writes(s *script.Script) bool {
	luas := []*script.Lua{s.Lua}
	script.LoaderOf([]*script.Script{s}).Walk(s.Lua, map[string]bool{}, func(_ *script.Lua, _ script.Include, to *script.Lua, err error) {
		if err == nil {
			luas = append(luas, to)
		}
	})
	// local rcall = redis.call, in the script or any include: BullMQ's
	// helpers call the script's alias.
	aliases := map[string]bool{}
	for _, l := range luas {
		if l == nil || l.AST == nil {
			return true
		}
		script.Inspect(l.AST, func(n, _ ast.PositionHolder) {
			if la, ok := n.(*ast.LocalAssignStmt); ok {
				for i, e := range la.Exprs {
					if isRedisCall(e, nil) && i < len(la.Names) {
						aliases[la.Names[i]] = true
					}
				}
			}
		})
	}
	for _, l := range luas {
		if bodyWrites(l.AST, aliases) {
			return true
		}
	}
	return false
}

func bodyWrites(stmts []ast.Stmt, aliases map[string]bool) bool {
	w := false
	script.Inspect(stmts, func(n, parent ast.PositionHolder) {
		e, ok := n.(ast.Expr)
		if w || !ok || !isRedisCall(e, aliases) {
			return
		}
		if _, ok := parent.(*ast.LocalAssignStmt); ok && !isIdent(e) {
			return // the alias itself, read above
		}
		call, ok := parent.(*ast.FuncCallExpr)
		if !ok || call.Func != e || len(call.Args) == 0 {
			w = true
			return
		}
		var argv []string
		for _, a := range call.Args[:min(2, len(call.Args))] {
			if s, ok := a.(*ast.StringExpr); ok {
				argv = append(argv, s.Value)
			}
		}
		c := commands.Find(argv)
		w = len(argv) == 0 || c == nil || c.Flags.Has(commands.Write) || c.Container
	})
	return w
}

func isIdent(e ast.Expr) bool {
	_, ok := e.(*ast.IdentExpr)
	return ok
}

// isRedisCall reports whether e is redis.call, redis.pcall or an alias.
func isRedisCall(e ast.Expr, aliases map[string]bool) bool {
	switch e := e.(type) {
	case *ast.IdentExpr:
		return aliases[e.Value]
	case *ast.AttrGetExpr:
		obj, ok1 := e.Object.(*ast.IdentExpr)
		key, ok2 := e.Key.(*ast.StringExpr)
		return ok1 && ok2 && obj.Value == "redis" && (key.Value == "call" || key.Value == "pcall")
	}
	return false
}

// returns is the reply type when it is evident: the main chunk ends in a
// return, and every return outside functions gives one literal, all
// integers or all strings.
func returns(s *script.Script) script.Type {
	stmts := s.Lua.AST
	if len(stmts) == 0 {
		return ""
	}
	if _, ok := stmts[len(stmts)-1].(*ast.ReturnStmt); !ok {
		return ""
	}
	var got script.Type
	ok := true
	var visit func([]ast.Stmt)
	visit = func(ss []ast.Stmt) {
		for _, st := range ss {
			switch st := st.(type) {
			case *ast.ReturnStmt:
				t := literal(st.Exprs)
				if t == "" || (got != "" && got != t) {
					ok = false
				}
				got = t
			case *ast.DoBlockStmt:
				visit(st.Stmts)
			case *ast.IfStmt:
				visit(st.Then)
				visit(st.Else)
			case *ast.WhileStmt:
				visit(st.Stmts)
			case *ast.RepeatStmt:
				visit(st.Stmts)
			case *ast.NumberForStmt:
				visit(st.Stmts)
			case *ast.GenericForStmt:
				visit(st.Stmts)
			}
		}
	}
	visit(stmts)
	if !ok {
		return ""
	}
	return got
}

// literal is the type of a return list holding one integer or string
// literal.
func literal(es []ast.Expr) script.Type {
	if len(es) != 1 {
		return ""
	}
	e := es[0]
	if m, ok := e.(*ast.UnaryMinusOpExpr); ok {
		e = m.Expr
	}
	switch e := e.(type) {
	case *ast.NumberExpr:
		// Redis truncates a Lua number to an integer reply: only whole
		// literals are evidently int.
		if _, err := strconv.ParseInt(e.Value, 0, 64); err == nil {
			return script.Int
		}
	case *ast.StringExpr:
		if _, neg := es[0].(*ast.UnaryMinusOpExpr); !neg {
			return script.String
		}
	}
	return ""
}
