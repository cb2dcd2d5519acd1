package luaflow

import (
	"maps"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// loop analyzes a loop to a fixed point: the state at the top of the
// body is the join of the state before the loop and at the end of the
// body, until it no longer changes. If it does not settle in a few rounds,
// or a break leaves from the middle of the body, every local the loop
// assigns is taken as unknown instead: what holds then holds on each
// iteration. After the loop holds what held at the top of its body.
func (a *analyzer) loop(s ast.Stmt, st *state, sc *flowScope) {
	var body []ast.Stmt
	switch s := s.(type) {
	case *ast.WhileStmt:
		body = s.Stmts
	case *ast.RepeatStmt:
		body = s.Stmts
	case *ast.NumberForStmt:
		body = s.Stmts
	case *ast.GenericForStmt:
		body = s.Stmts
	}
	entry := st.clone()
	settled := false
	var end *state
	if !hasBreak(body) {
		// The writes an iteration opened are open at the top of the next:
		// what may fail early in the body refutes them.
		for round := 0; round < 6 && !settled; round++ {
			end = a.iteration(s, body, entry.clone(), sc)
			next := entry.clone()
			next.join(end)
			settled = sameEnv(next, entry) && maps.Equal(next.open, entry.open)
			entry = next
		}
	}
	if !settled {
		assigned := map[string]bool{}
		collectAssigned(body, assigned)
		entry = st.clone()
		for l := range entry.env {
			if assigned[l.name] {
				delete(entry.env, l)
			}
		}
		for l := range entry.nums {
			if assigned[l.name] {
				delete(entry.nums, l)
			}
		}
		stores := map[string]bool{}
		collectStores(body, stores)
		for l := range entry.tabs {
			if stores[l.name] {
				delete(entry.tabs, l)
			}
		}
		for k := range entry.fields {
			if stores[k.t.name] {
				delete(entry.fields, k)
			}
		}
		clear(entry.fill)
		// Unless an iteration from there leaves the keys as they were (a
		// body that writes nothing and calls nothing that may, such as a
		// search that breaks), the body may have written: nothing is
		// known of the keys.
		probe := a.iteration(s, body, entry.clone(), sc)
		same := probe.wrote == entry.wrote && probe.deleted == entry.deleted
		for k, f := range entry.keys {
			if g, ok := probe.keys[k]; !ok || g != f {
				same = false
			}
		}
		if !same {
			entry.keys = map[string]keyFact{}
			entry.deleted = true
		}
		// Run it twice: the second time with the writes the first opened
		// open from the top, as they are on every later iteration.
		end := a.iteration(s, body, entry.clone(), sc)
		for w := range end.open {
			entry.open[w] = true
		}
		end = a.iteration(s, body, entry.clone(), sc)
		for w := range end.open {
			entry.open[w] = true
		}
	}
	// A loop over every KEYS element that wrote nothing, before any write,
	// showed what each element holds.
	if sym := a.syms[s]; settled && sym != "" && !st.wrote && !end.wrote && !end.dead {
		if f, ok := end.keys[sym]; ok && f.fam != "" && f.stable {
			entry.keys[everyKey] = keyFact{fam: f.fam, stable: !entry.deleted}
		}
	}
	// A loop over ipairs(KEYS) that stored in a table at its index on
	// every path through its body filled the table.
	if idx := a.loopIndex[s]; settled && idx != nil && idx.keysIndex && !end.dead {
		for t, k := range end.fill {
			if f, ok := entry.tabs[t]; ok && k == idx {
				f.filled = true
				entry.tabs[t] = f
			}
		}
	}
	// After the loop holds what held at the top of its body; the writes
	// the body opened are open, the loop may have run them last. A repeat
	// loop leaves at the end of its body, after one iteration at least.
	if _, ok := s.(*ast.RepeatStmt); ok && settled {
		*st = *end
		return
	}
	*st = *entry
}

// collectStores adds the names of the tables t[k] = v stores into.
func collectStores(stmts []ast.Stmt, into map[string]bool) {
	eachStmt(stmts, func(s ast.Stmt) {
		if s, ok := s.(*ast.AssignStmt); ok {
			for _, l := range s.Lhs {
				if attr, ok := l.(*ast.AttrGetExpr); ok {
					if id, ok := attr.Object.(*ast.IdentExpr); ok {
						into[id.Value] = true
					}
				}
			}
		}
	})
}

// iteration runs one iteration of a loop from in and returns the state at
// the end of its body.
func (a *analyzer) iteration(s ast.Stmt, body []ast.Stmt, in *state, sc *flowScope) *state {
	inner := newScope(sc)
	switch s := s.(type) {
	case *ast.WhileStmt:
		in, _, _ = a.cond(s.Condition, in, sc)
	case *ast.NumberForStmt:
		for _, e := range []ast.Expr{s.Init, s.Limit, s.Step} {
			if e != nil && !a.expr(e, in, sc).within(tArith) {
				a.mayFail(in, e, "a for loop whose bounds may not be numbers")
			}
		}
		l := &local{name: s.Name}
		inner.vars[s.Name] = l
		in.env[l] = tNum
	case *ast.GenericForStmt:
		ok := false
		if call, isCall := s.Exprs[0].(*ast.FuncCallExpr); isCall && len(s.Exprs) == 1 && len(call.Args) == 1 {
			// ipairs only: pairs raises if the body adds fields.
			if id, isID := call.Func.(*ast.IdentExpr); isID && id.Value == "ipairs" && sc.lookup(id.Value) == nil {
				ok = a.expr(call.Args[0], in, sc).within(tTable)
			}
		}
		if !ok {
			a.exprList(s.Exprs, len(s.Exprs), in, sc)
			a.mayFail(in, s.Exprs[0], "a for loop other than ipairs over a table")
		}
		sym := a.keysLoop(s, sc)
		var elems *tabFact
		var over *local
		if call, isCall := s.Exprs[0].(*ast.FuncCallExpr); ok && isCall {
			if t, f, known := a.tableOf(call.Args[0], in, sc); known && f.t != 0 {
				elems, over = &f, t
			}
		}
		for i, n := range s.Names {
			l := &local{name: n}
			inner.vars[n] = l
			if i == 0 && ok {
				in.env[l] = tNum
				l.keysIndex = sym != ""
				a.loopIndex[s] = l
			}
			if i == 1 && elems != nil && !in.dead {
				// ipairs stops at the first nil.
				in.env[l] = elems.t
				if elems.recs {
					l.elemOf = over
				}
				if elems.t&tNum != 0 {
					in.nums[l] = elems.n
				}
			}
			if i == 1 && sym != "" && !in.dead {
				// A new element each iteration: what is known of it is what
				// is known of every element.
				l.key = sym
				in.env[l] = tStr | tNumStr
				f, known := in.keys[everyKey]
				in.keys[sym] = keyFact{fam: f.fam, stable: (!known || f.stable) && !in.deleted}
			}
		}
	}
	a.block(body, in, inner)
	if r, ok := s.(*ast.RepeatStmt); ok && !in.dead {
		a.cond(r.Condition, in, inner)
	}
	return in
}

func sameEnv(a, b *state) bool {
	if a.dead != b.dead || a.wrote != b.wrote || a.deleted != b.deleted || len(a.env) != len(b.env) || !maps.Equal(a.nums, b.nums) ||
		!maps.Equal(a.keys, b.keys) || !maps.Equal(a.tabs, b.tabs) || !maps.Equal(a.fill, b.fill) || !maps.Equal(a.fields, b.fields) {
		return false
	}
	for k, v := range a.env {
		if w, ok := b.env[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// hasBreak: a break leaves this loop from within its body.
func hasBreak(stmts []ast.Stmt) bool {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.BreakStmt:
			return true
		case *ast.DoBlockStmt:
			if hasBreak(s.Stmts) {
				return true
			}
		case *ast.IfStmt:
			if hasBreak(s.Then) || hasBreak(s.Else) {
				return true
			}
		}
	}
	return false
}

func collectAssigned(stmts []ast.Stmt, into map[string]bool) {
	eachStmt(stmts, func(s ast.Stmt) {
		switch s := s.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.IdentExpr); ok {
					into[id.Value] = true
				}
			}
		case *ast.LocalAssignStmt:
			for _, n := range s.Names {
				into[n] = true
			}
		case *ast.FuncDefStmt:
			if id, ok := s.Name.Func.(*ast.IdentExpr); ok {
				into[id.Value] = true
			}
		}
	})
}
