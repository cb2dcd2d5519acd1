package luaflow

import (
	"fmt"
	"maps"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// ---------------------------------------------------------------------------
// The flow.

// local is one declared local variable; fn is its function when it is
// declared by `local function` (or `local f = function`) and never assigned.
type local struct {
	name    string
	fn      *ast.FunctionExpr
	fnScope *flowScope
	read    *read // the local holds this read's reply
	// got: the local holds the reply of a GET of this KEYS[n] made before
	// any write, false when the key did not exist when the run began.
	got string
	key string // the local is set to KEYS[n] (keyOf says whether it stays so)
	// keysIndex: the index of a loop over ipairs(KEYS), 1 … #KEYS.
	keysIndex bool
	// elemOf: the local is the element of a loop over ipairs of this
	// table local.
	elemOf *local
}

// tabFact is what is known of the values a table local holds, for a table
// only this local names and only the main chunk changes (owned): each value
// is of type t (0: none yet; nil is never a value), a number within n when
// a number; filled: t[i] is a value for every i in 1 … #KEYS (a loop over
// ipairs(KEYS) stored one at its index on every path through its body).
type tabFact struct {
	t      typ
	n      num
	filled bool
	// recs: every value is a table made by a constructor of named fields
	// (records), whose fields state.fields knows.
	recs bool
}

// fieldKey names a field of the records an owned table holds.
type fieldKey struct {
	t    *local
	name string
}

// fieldFact is what is known of that field in every record: of type t
// (nil where a record lacks it), a number within n when a number.
type fieldFact struct {
	t typ
	n num
}

func (f fieldFact) join(g fieldFact) fieldFact {
	return fieldFact{t: f.t | g.t, n: joinValues(f.t, f.n, g.t, g.n)}
}

// joinValues joins what is known of the numbers among values of types ft
// and gt: only one side's when the other holds none.
func joinValues(ft typ, fn num, gt typ, gn num) num {
	switch {
	case ft&tNum == 0:
		return gn
	case gt&tNum == 0:
		return fn
	}
	return fn.join(gn)
}

func (f tabFact) join(g tabFact) tabFact {
	return tabFact{t: f.t | g.t, n: joinValues(f.t, f.n, g.t, g.n), filled: f.filled && g.filled, recs: f.recs && g.recs}
}

// add is f after a store of a value of type t, a number within n.
func (f tabFact) add(t typ, n num) tabFact {
	g := tabFact{t: t &^ tNil, n: n, filled: true, recs: true}
	out := f.join(g)
	out.filled = f.filled && t&tNil == 0
	return out
}

// read is a local set to the reply of HMGET or HGET of KEYS[key], made
// before any write of the run: the values of those fields before the run.
type read struct {
	key    string
	fields []string // HGET: one, the reply itself
	hget   bool
}

// A Plan is how a hash write's undo is found without a read of its own:
// the fields' values before the run, from the script's own read held by
// Local.
//
// Del: the key did not exist when the run began (an EXISTS before any
// write found it absent), so DEL undoes the write, whatever it was, and
// every other write of the run to that key: no read at all.
type Plan struct {
	Key  string // the write's key, as Lua (KEYS[n])
	Del  bool
	Stmt bool // the write is a statement of its own (Del only)
	// Pop: the write is a push of Count values, undone by this pop
	// (LPOP or RPOP) of as many.
	Pop   string
	Count int
	Local string
	Refs  []string // per field written: Lua for its old value
	Names []string // the fields, as Lua string literals
}

// state is what holds at a point of the main chunk on the paths reaching
// it: the types of locals (absent: any), the writes that may have run and
// that nothing has been seen to possibly fail after (open), and whether the
// point is reachable at all.
type state struct {
	env  map[*local]typ
	nums map[*local]num // what is known of a local's value when it is a number (absent: nothing)
	tabs map[*local]tabFact
	// fields: what the records of owned tables hold (see tabFact.recs).
	fields map[fieldKey]fieldFact
	// fill: the owned table stored a value at the index of this loop over
	// ipairs(KEYS) in the current iteration, on every path here.
	fill  map[*local]*local
	keys  map[string]keyFact
	open  map[*ast.FuncCallExpr]bool
	dead  bool
	wrote bool // a write may have run
	// deleted: a write that may have deleted some key may have run; until
	// one has, every KEYS element is stable (the node ran the script, so
	// each exists or its slot is not migrating).
	deleted bool
	// absent: KEYS elements (as "KEYS[n]") that did not exist when the
	// run began, shown by an EXISTS made before any write (see
	// narrowExists). A fact of the run's start, no later write undoes it.
	absent map[string]bool
}

func newState() *state {
	return &state{env: map[*local]typ{}, nums: map[*local]num{}, tabs: map[*local]tabFact{}, fill: map[*local]*local{}, fields: map[fieldKey]fieldFact{},
		keys: map[string]keyFact{}, open: map[*ast.FuncCallExpr]bool{}}
}

func (s *state) clone() *state {
	c := &state{env: maps.Clone(s.env), nums: maps.Clone(s.nums), tabs: maps.Clone(s.tabs), fill: maps.Clone(s.fill), fields: maps.Clone(s.fields), keys: maps.Clone(s.keys),
		open: make(map[*ast.FuncCallExpr]bool, len(s.open)), dead: s.dead, wrote: s.wrote, deleted: s.deleted, absent: maps.Clone(s.absent)}
	for k := range s.open {
		c.open[k] = true
	}
	return c
}

// join merges b into a (the paths of both reach the point).
func (a *state) join(b *state) {
	if b.dead {
		return
	}
	if a.dead {
		*a = *b.clone()
		return
	}
	// What is known of a number joins with nothing where the local holds
	// no number on the other path (nil before an `if` sets it).
	noNum := func(s *state, l *local) bool { t, ok := s.env[l]; return ok && t&tNum == 0 }
	for k, v := range a.nums {
		if w, ok := b.nums[k]; ok {
			a.nums[k] = v.join(w)
		} else if !noNum(b, k) {
			delete(a.nums, k)
		}
	}
	for k, w := range b.nums {
		if _, ok := a.nums[k]; !ok && noNum(a, k) {
			a.nums[k] = w
		}
	}
	for k, v := range a.env {
		if w, ok := b.env[k]; ok {
			a.env[k] = v | w
		} else {
			delete(a.env, k)
		}
	}
	// A field one side's records lack is nil there; a side with no
	// records yet adds nothing.
	nilField := fieldFact{t: tNil}
	for k, v := range a.fields {
		if w, ok := b.fields[k]; ok {
			a.fields[k] = v.join(w)
		} else if f := b.tabs[k.t]; f.recs && f.t != 0 {
			a.fields[k] = v.join(nilField)
		} else if !f.recs {
			delete(a.fields, k)
		}
	}
	for k, w := range b.fields {
		if _, ok := a.fields[k]; !ok {
			if f := a.tabs[k.t]; f.recs && f.t != 0 {
				a.fields[k] = w.join(nilField)
			} else if f.recs {
				a.fields[k] = w
			}
		}
	}
	for k, v := range a.tabs {
		if w, ok := b.tabs[k]; ok {
			a.tabs[k] = v.join(w)
		} else {
			delete(a.tabs, k)
		}
	}
	for k, v := range a.fill {
		if b.fill[k] != v {
			delete(a.fill, k)
		}
	}
	for k, v := range a.keys {
		if w, ok := b.keys[k]; ok {
			a.keys[k] = v.join(w)
		} else {
			delete(a.keys, k)
		}
	}
	for k := range b.open {
		a.open[k] = true
	}
	for k := range a.absent {
		if !b.absent[k] {
			delete(a.absent, k)
		}
	}
	a.wrote = a.wrote || b.wrote
	a.deleted = a.deleted || b.deleted
}

// mayFail records that an operation at st may raise: every write that may
// have run before it is not the run's last failure point. at and why say
// where and what, for Explain.
func (a *analyzer) mayFail(st *state, at ast.PositionHolder, why string) {
	if st.dead {
		return
	}
	for w := range st.open {
		if !a.refuted[w] {
			a.refuted[w] = true
			a.why[w] = failure{line: at.Line(), why: why}
		}
	}
	if a.frame != nil {
		if !a.frame.raises {
			a.frame.why = fmt.Sprintf("line %d, %s", at.Line(), why)
		}
		a.frame.raises = true
	}
}

// failure is what refuted a write: the line of an operation after it that
// may fail, and what that operation is.
type failure struct {
	line int
	why  string
}

// quit gives up the proof, saying where and why, for Explain.
func (a *analyzer) quit(at ast.PositionHolder, why string) {
	if !a.giveUp {
		a.gaveUp = failure{why: why}
		if at != nil {
			a.gaveUp.line = at.Line()
		}
	}
	a.giveUp = true
}

func keyString(e ast.Expr) *ast.StringExpr {
	k, _ := e.(*ast.StringExpr)
	return k
}

func attrName(k *ast.StringExpr) string {
	if k == nil {
		return "?"
	}
	return k.Value
}

func (a *analyzer) typeOf(st *state, l *local) typ {
	if l == nil || a.volatile[l.name] {
		return tAny
	}
	if t, ok := st.env[l]; ok {
		return t
	}
	return tAny
}

// narrowable is the local e names, when what it holds may be narrowed on
// this path: a live path, and a local no function changes behind it.
func (a *analyzer) narrowable(e ast.Expr, st *state, sc *flowScope) *local {
	id, ok := e.(*ast.IdentExpr)
	if !ok || st.dead {
		return nil
	}
	if l := sc.lookup(id.Value); l != nil && !a.volatile[l.name] {
		return l
	}
	return nil
}

// refine narrows what an identifier holds after something showed it fits.
func (a *analyzer) refine(e ast.Expr, st *state, sc *flowScope, to func(typ) typ) {
	l := a.narrowable(e, st, sc)
	if l == nil {
		return
	}
	if t := to(a.typeOf(st, l)); t != 0 {
		st.env[l] = t
	}
}
