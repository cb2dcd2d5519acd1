package luaflow

import "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

// owned: the table a local of this name holds is named by it alone and
// changed by the main chunk only (t[k] = v), so the flow sees every store.
func (a *analyzer) owned(name string) bool {
	return !a.handed[name] && !a.stored[name] && !a.assigned[name] && !a.volatile[name]
}

// constructed is what a table constructor holds: known for literals and
// locals (the constructor has been evaluated; nothing is evaluated again).
func (a *analyzer) constructed(t *ast.TableExpr, st *state, sc *flowScope) tabFact {
	f := tabFact{recs: len(t.Fields) == 0}
	for i, fl := range t.Fields {
		ty := a.peekType(fl.Value, st, sc)
		if lit, isStr := fl.Value.(*ast.StringExpr); isStr {
			ty = tStr
			if numeral.MatchString(lit.Value) {
				ty = tNumStr
			}
		}
		if i == len(t.Fields)-1 && multi(fl.Value) {
			ty = tAny
		}
		f = f.add(ty, a.numOf(fl.Value, st, sc))
	}
	f.filled, f.recs = false, len(t.Fields) == 0
	return f
}

// tableOf is the owned table local e names with what is known of it, if any.
func (a *analyzer) tableOf(e ast.Expr, st *state, sc *flowScope) (*local, tabFact, bool) {
	id, ok := e.(*ast.IdentExpr)
	if !ok || st.dead {
		return nil, tabFact{}, false
	}
	l := sc.lookup(id.Value)
	if l == nil || !a.owned(l.name) {
		return nil, tabFact{}, false
	}
	f, ok := st.tabs[l]
	return l, f, ok
}

// keysIndex is the local e names when it is the index of a loop over
// ipairs(KEYS) that the body does not assign.
func (a *analyzer) keysIndex(e ast.Expr, sc *flowScope) *local {
	id, ok := e.(*ast.IdentExpr)
	if !ok {
		return nil
	}
	if l := sc.lookup(id.Value); l != nil && l.keysIndex && !a.assigned[l.name] && !a.volatile[l.name] {
		return l
	}
	return nil
}

// store records t[k] = v (v of type ty, n if a number known) in what is
// known of t, if t is an owned table.
func (a *analyzer) store(lhs *ast.AttrGetExpr, rhs ast.Expr, ty typ, n *num, st *state, sc *flowScope) {
	l, f, ok := a.tableOf(lhs.Object, st, sc)
	if !ok {
		return
	}
	v := anyNum
	if n != nil {
		v = *n
	}
	rec := a.record(rhs, st, sc)
	if f.recs && rec != nil {
		for k, old := range st.fields {
			if k.t != l {
				continue
			}
			if nf, ok := rec[k.name]; ok {
				st.fields[k] = old.join(nf)
			} else {
				st.fields[k] = old.join(fieldFact{t: tNil})
			}
		}
		for name, nf := range rec {
			k := fieldKey{l, name}
			if _, ok := st.fields[k]; !ok {
				if f.t != 0 {
					nf = nf.join(fieldFact{t: tNil}) // records stored before lack it
				}
				st.fields[k] = nf
			}
		}
	} else {
		for k := range st.fields {
			if k.t == l {
				delete(st.fields, k)
			}
		}
	}
	f = f.add(ty, v)
	f.recs = f.recs && rec != nil
	st.tabs[l] = f
	if ty&tNil != 0 {
		delete(st.fill, l) // t[i] may be nil again
		return
	}
	if k := a.keysIndex(lhs.Key, sc); k != nil {
		st.fill[l] = k
	}
}

// record is what the fields of e hold, when e is a constructor of named
// fields only, each once (it has been evaluated: a.ctors has their types).
func (a *analyzer) record(e ast.Expr, st *state, sc *flowScope) map[string]fieldFact {
	t, ok := e.(*ast.TableExpr)
	if !ok {
		return nil
	}
	ts := a.ctors[t]
	if len(ts) != len(t.Fields) {
		return nil
	}
	out := map[string]fieldFact{}
	for i, f := range t.Fields {
		k, ok := f.Key.(*ast.StringExpr)
		if !ok {
			return nil
		}
		if _, dup := out[k.Value]; dup {
			return nil
		}
		n := anyNum
		if ts[i]&tNum != 0 {
			n = a.numOf(f.Value, st, sc)
		}
		out[k.Value] = fieldFact{t: ts[i], n: n}
	}
	return out
}

// recordsOnly: the records in t, a table local, are changed by nothing the
// flow does not see: t is owned, never read as t[k] or handed to unpack or
// next (its records reach locals only as the elements of ipairs loops), and
// the elements of those loops are only looked at.
func (a *analyzer) recordsOnly(t *local) bool {
	if !a.owned(t.name) || a.indexed[t.name] {
		return false
	}
	for _, e := range a.loopElems[t.name] {
		if a.escapes[e] || a.assigned[e] || a.volatile[e] {
			return false
		}
	}
	return true
}

// recordField is what is known of e, c.name where c is the element of a
// loop over ipairs(t) and t holds records.
func (a *analyzer) recordField(e *ast.AttrGetExpr, st *state, sc *flowScope) (fieldFact, bool) {
	id, ok := e.Object.(*ast.IdentExpr)
	name, isStr := e.Key.(*ast.StringExpr)
	if !ok || !isStr || st.dead {
		return fieldFact{}, false
	}
	c := sc.lookup(id.Value)
	if c == nil || c.elemOf == nil || !a.recordsOnly(c.elemOf) {
		return fieldFact{}, false
	}
	if f, ok := st.tabs[c.elemOf]; !ok || !f.recs {
		return fieldFact{}, false
	}
	if f, ok := st.fields[fieldKey{c.elemOf, name.Value}]; ok {
		return f, true
	}
	return fieldFact{t: tNil}, true
}

// element is the type of t[k], when t is an owned table: one of its
// values, or nil unless the table is filled and k a KEYS index.
func (a *analyzer) element(e *ast.AttrGetExpr, st *state, sc *flowScope) (typ, bool) {
	_, f, ok := a.tableOf(e.Object, st, sc)
	if !ok {
		return 0, false
	}
	if f.filled && f.t != 0 && a.keysIndex(e.Key, sc) != nil {
		return f.t, true
	}
	return f.t | tNil, true
}
