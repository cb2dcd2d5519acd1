package luaflow

import "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

// Keys that no call's arguments reach: a function stored in a dispatch
// table (`API[ARGV[1]](…)`) or a method (`function Q:len() … end`) is read
// only where it stands, its parameters unknown, so a key built from one
// is checked nowhere. A literal prefix settles it: `'ql:q:' .. name` is no
// KEYS element as passed, whatever name is. Such a key is reported from
// the body's own reading when no call reads that body again with its
// arguments (then the call's reading says what the key is built from).

// prefixed is a key fact from a body's own reading, kept until the pass
// ends and reported only if nothing followed that body.
type prefixed struct {
	fn *ast.FunctionExpr
	f  Fact
}

func (a *walker) unfollowed() {
	for _, p := range a.prefixed {
		if !a.followed[p.fn] {
			a.facts = append(a.facts, p.f)
		}
	}
}

// setField records v stored in t under key: Q.ns = 'ql:j:', or the
// constructor's {ns = 'ql:j:'}, so that Q.ns reads it back.
func (a *walker) setField(t *tableInfo, key, v value) {
	if t == nil {
		return
	}
	a.noteField(key, v)
	if !key.isLit {
		t.anyKey = true
		return
	}
	if t.fields == nil {
		t.fields = map[string]value{}
	}
	old, ok := t.fields[key.lit]
	n := v.single()
	if ok {
		n = join(old, n)
	}
	if !ok || n != old {
		t.fields[key.lit] = n
		a.changed = a.changed || t.read
	}
}

// field is what t holds under a constant key, when every store into t
// had a constant key and one of them was key.
func (t *tableInfo) field(key value) (value, bool) {
	if t == nil || t.anyKey || !key.isLit {
		return value{}, false
	}
	v, ok := t.fields[key.lit]
	if ok {
		t.read = true
	}
	return v, ok
}

// namedField is what the script stores under one field name in any table
// (`self.key = 'ql:q:' .. name`, `{key = …}`): the literal prefix every
// stored value starts with, or dirty once one may not start with a
// literal. A method reads `self.key` from an object it knows nothing of;
// if every store of that name starts with literal text, so does the read.
type namedField struct {
	pfx   string
	dirty bool
	read  bool
}

func (a *walker) noteField(key, v value) {
	if !key.isLit {
		return
	}
	f := a.named[key.lit]
	if f == nil {
		f = &namedField{}
		a.named[key.lit] = f
	}
	p := literalPrefix(v)
	switch {
	case f.dirty:
	case p == "" && v.k == kPlain:
		f.dirty = true
		a.changed = a.changed || f.read
	case p != "" && f.pfx == "":
		f.pfx = p
		a.changed = a.changed || f.read
	}
}

// namedField reads a field of an object known only as a parameter.
func (a *walker) namedField(obj, key value) (value, bool) {
	if !key.isLit {
		return value{}, false
	}
	f := a.named[key.lit]
	if f == nil {
		return value{}, false
	}
	f.read = true
	if f.dirty || f.pfx == "" {
		return value{}, false
	}
	return value{o: oParam, why: obj.why + "." + key.lit, pfx: f.pfx, stored: true}, true
}

// literalPrefix is the literal text v starts with, "" when unknown or when
// v is (or is derived from) a KEYS element.
func literalPrefix(v value) string {
	switch {
	case v.o == oKey || v.o == oKeyDerived:
		return ""
	case v.isLit:
		return v.lit
	}
	return v.pfx
}
