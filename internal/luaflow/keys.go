package luaflow

import (
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// The key walk: what a script's values are made of, as far as its keys
// care, and what it does with Redis's environment. Package lint turns its
// facts into findings.

// Environment is every global a script may read on Redis 7: the libraries
// Redis loads and the base functions it keeps. The sandboxed names are not
// in it.
var Environment = nameSet(
	"KEYS", "ARGV", "redis", "cjson", "bit", "struct", "cmsgpack",
	"string", "table", "math", "_G", "_VERSION",
	"assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
	"rawequal", "rawget", "rawset", "select", "setmetatable", "tonumber",
	"tostring", "type", "unpack", "xpcall", "gcinfo", "print", "coroutine", "newproxy",
)

// sandboxed are names a script must not touch: absent from Redis's
// environment (os, io, require…) or ways out of its protections.
var sandboxed = nameSet(
	"os", "io", "debug", "require", "loadstring", "load", "dofile", "loadfile",
	"setfenv", "getfenv", "collectgarbage", "module", "package",
)

// libraries are the tables Redis 6.2.7+ makes read-only.
var libraries = nameSet("string", "table", "math", "redis", "cjson", "bit", "struct", "cmsgpack", "coroutine")

// stringFuncs keep a KEYS element's text, so their result is derived from it.
var stringFuncs = nameSet("format", "sub", "gsub", "lower", "upper", "rep", "match", "gmatch", "reverse", "concat")

func nameSet(ns ...string) map[string]bool {
	m := make(map[string]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

const (
	maxPasses = 4 // a variable's value settles in two passes unless it flows around a loop
	maxDepth  = 8 // helpers followed into helpers
)

// A Program is what one script's key walk reads: its includes, then
// itself.
type Program struct {
	Chunks   []*Chunk
	Library  bool // a Functions library: `#!lua name=…`
	NoWrites bool // flagged no-writes
	// EveryKey: record a KeyOf fact for each key that is a KEYS element
	// too, not only for keys that are not (lint needs only those).
	EveryKey bool
}

// A Chunk is one file of a Program.
type Chunk struct {
	Stmts []ast.Stmt
	Lib   bool // an include: its top-level functions are a library, not unused locals
	// Splices are the `--- @include` files of the chunk, read as if pasted
	// before the first statement after their line.
	Splices []Splice
}

// A Splice is a file pasted into a chunk before the first statement after
// Line.
type Splice struct {
	Line  int
	Chunk *Chunk
}

// A NameRef identifies the I-th name a statement or function declares
// (-1: a method's self).
type NameRef struct {
	Node any
	I    int
}

// Keys is what the key walk found in a program, from its last pass (a
// pass is final unless a value changed after it was read).
type Keys struct {
	Facts []Fact
	// Unread are the locals the last pass never read, but for
	// parameters, loop variables and an include's top level.
	Unread []Local
	// KeysUsed and ArgsUsed are the literal indexes of KEYS and ARGV read;
	// DynamicKeys and DynamicArgs, that some were read by a computed index
	// or handed on whole.
	KeysUsed, ArgsUsed       map[int]bool
	DynamicKeys, DynamicArgs bool
}

// A Local is a declared local variable.
type Local struct {
	Name  string
	Chunk *Chunk
	Line  int
	Ref   NameRef
	Func  bool // it holds a function of the script
}

type varInfo struct {
	name  string
	v     value
	used  bool
	chunk *Chunk
	line  int
	ref   NameRef
	local bool // a local the unused rule reports (not a parameter, loop variable or library top-level)
	read  bool // read in this pass: a later change means another pass
}

type fnInfo struct {
	f     *ast.FunctionExpr
	scope *walkScope
	chunk *Chunk
}

type walkScope = scope[*varInfo]

type walker struct {
	p     *Program
	cur   *Chunk
	facts []Fact

	vars    map[NameRef]*varInfo
	fns     map[*ast.FunctionExpr]*fnInfo
	tables  map[*ast.TableExpr]*tableInfo
	globals map[string]value
	memo    map[memoKey]value
	changed bool
	frame   *frame

	usedKeys, usedArgs       map[int]bool
	dynamicKeys, dynamicArgs bool

	prefixed []prefixed                 // see prefixed
	followed map[*ast.FunctionExpr]bool // bodies read again with a call's arguments
	named    map[string]*namedField     // see namedField
}

// Walk reads p's chunks in order, in one scope, until the values settle,
// and returns what the last pass found.
func Walk(p *Program) Keys {
	a := &walker{
		p: p, vars: map[NameRef]*varInfo{}, fns: map[*ast.FunctionExpr]*fnInfo{},
		tables: map[*ast.TableExpr]*tableInfo{}, followed: map[*ast.FunctionExpr]bool{},
		named: map[string]*namedField{},
		facts: make([]Fact, 0, 16), // a clean script of 100 lines has about a dozen
	}
	for range maxPasses {
		// A pass is final unless a value changed after it was read (a loop
		// assigning after a use); only the final pass's facts count.
		a.facts, a.prefixed, a.changed = a.facts[:0], a.prefixed[:0], false
		a.globals, a.memo = map[string]value{}, map[memoKey]value{}
		a.usedKeys, a.usedArgs = map[int]bool{}, map[int]bool{}
		a.dynamicKeys, a.dynamicArgs = false, false
		for _, v := range a.vars {
			v.used, v.read = false, false
		}
		for _, t := range a.tables {
			t.read = false
		}
		a.frame = &frame{noWrites: p.NoWrites}
		top := newScope[*varInfo](nil)
		for _, c := range p.Chunks {
			a.chunk(c, top)
		}
		if !a.changed {
			break
		}
	}
	a.unfollowed()
	out := Keys{Facts: a.facts, KeysUsed: a.usedKeys, ArgsUsed: a.usedArgs, DynamicKeys: a.dynamicKeys, DynamicArgs: a.dynamicArgs}
	for _, v := range a.vars {
		if v.local && !v.used {
			out.Unread = append(out.Unread, Local{Name: v.name, Chunk: v.chunk, Line: v.line, Ref: v.ref, Func: v.v.k == kFunc})
		}
	}
	return out
}

// chunk reads one file's top level, with its @include files where they
// stand, in the same scope: the bundler pastes them there.
func (a *walker) chunk(c *Chunk, sc *walkScope) {
	saved := a.cur
	a.cur = c
	sp := c.Splices
	for _, st := range c.Stmts {
		for len(sp) > 0 && sp[0].Line < st.Line() {
			a.chunk(sp[0].Chunk, sc)
			a.cur = c
			sp = sp[1:]
		}
		a.stmt(st, sc)
	}
	for _, s := range sp {
		a.chunk(s.Chunk, sc)
	}
	a.cur = saved
}

// fact records f in the current chunk, marked when it was found in a
// helper read again with its caller's arguments.
func (a *walker) fact(f Fact) {
	f.Chunk = a.cur
	if a.frame.inline {
		f.Via = &a.frame.via
	}
	a.facts = append(a.facts, f)
}

func (a *walker) block(stmts []ast.Stmt, sc *walkScope) {
	for _, st := range stmts {
		a.stmt(st, sc)
	}
}

// declare adds a local; ephemeral ones (inside a followed helper) do not
// keep their value across passes.
func (a *walker) declare(sc *walkScope, ref NameRef, name string, line int, local bool) *varInfo {
	if prev := sc.lookup(name); prev != nil && !strings.HasPrefix(name, "_") && !a.frame.inline {
		a.fact(Fact{Kind: Shadow, Node: ref, Line: line, Name: name, Other: prev.name, N: prev.line})
	}
	var v *varInfo
	if a.frame.inline {
		v = &varInfo{name: name, line: line}
	} else {
		v = a.vars[ref]
		if v == nil {
			v = &varInfo{name: name, chunk: a.cur, line: line, ref: ref, local: local && !(a.cur.Lib && sc.parent == nil)}
			a.vars[ref] = v
		}
	}
	sc.vars[name] = v
	return v
}

func (a *walker) assign(v *varInfo, val value) {
	val = val.single()
	if a.frame.inline && v.chunk == nil {
		v.v = join(v.v, val)
		return
	}
	if n := join(v.v, val); n != v.v {
		v.v = n
		a.changed = a.changed || v.read
	}
}

// values evaluates an expression list for n targets, as Lua adjusts it.
func (a *walker) values(exprs []ast.Expr, n int, sc *walkScope) []value {
	args := a.args(exprs, sc)
	out := make([]value, n)
	for i := range out {
		switch {
		case i < len(args):
			out[i] = args[i].v.single()
		case len(args) > 0 && args[len(args)-1].v.multi:
			out[i] = args[len(args)-1].v.single()
		default:
			out[i] = nilValue
		}
	}
	return out
}

func (a *walker) stmt(st ast.Stmt, sc *walkScope) {
	switch st := st.(type) {
	case *ast.LocalAssignStmt:
		if len(st.Names) == 1 && len(st.Exprs) == 1 {
			if _, ok := st.Exprs[0].(*ast.FunctionExpr); ok {
				// `local function f` sees itself, for recursion.
				v := a.declare(sc, NameRef{st, 0}, st.Names[0], st.Line(), true)
				a.assign(v, a.eval(st.Exprs[0], sc))
				return
			}
		}
		vals := a.values(st.Exprs, len(st.Names), sc)
		for i, n := range st.Names {
			a.assign(a.declare(sc, NameRef{st, i}, n, st.Line(), true), vals[i])
		}
	case *ast.AssignStmt:
		vals := a.values(st.Rhs, len(st.Lhs), sc)
		for i, lhs := range st.Lhs {
			a.store(lhs, vals[i], sc, st.Line())
		}
	case *ast.FuncCallStmt:
		a.eval(st.Expr, sc)
	case *ast.DoBlockStmt:
		a.block(st.Stmts, newScope[*varInfo](sc))
	case *ast.WhileStmt:
		a.eval(st.Condition, sc)
		a.block(st.Stmts, newScope[*varInfo](sc))
	case *ast.RepeatStmt:
		inner := newScope[*varInfo](sc)
		a.block(st.Stmts, inner)
		a.eval(st.Condition, inner)
	case *ast.IfStmt:
		a.eval(st.Condition, sc)
		a.block(st.Then, newScope[*varInfo](sc))
		a.block(st.Else, newScope[*varInfo](sc))
	case *ast.NumberForStmt:
		for _, e := range []ast.Expr{st.Init, st.Limit, st.Step} {
			a.eval(e, sc)
		}
		inner := newScope[*varInfo](sc)
		a.assign(a.declare(inner, NameRef{st, 0}, st.Name, st.Line(), false), other("a loop counter"))
		a.block(st.Stmts, inner)
	case *ast.GenericForStmt:
		elem := a.iteration(st.Exprs, sc)
		inner := newScope[*varInfo](sc)
		for i, n := range st.Names {
			v := a.declare(inner, NameRef{st, i}, n, st.Line(), false)
			if i == 1 {
				a.assign(v, elem)
			} else {
				a.assign(v, other("a loop variable"))
			}
		}
		a.block(st.Stmts, inner)
	case *ast.FuncDefStmt:
		fn := a.function(st.Func, sc, st.Name.Method != "")
		switch {
		case st.Name.Receiver != nil:
			a.store(&ast.AttrGetExpr{Object: st.Name.Receiver, Key: &ast.StringExpr{Value: st.Name.Method}}, fn, sc, st.Line())
		default:
			if id, ok := st.Name.Func.(*ast.IdentExpr); ok && sc.lookup(id.Value) == nil {
				a.fact(Fact{Kind: GlobalFunction, Node: id, Line: st.Line(), Name: id.Value})
				a.globals[id.Value] = fn
				return
			}
			a.store(st.Name.Func, fn, sc, st.Line())
		}
	case *ast.ReturnStmt:
		vals := a.args(st.Exprs, sc)
		if len(vals) > 0 {
			v := vals[0].v
			v.multi = len(vals) > 1 || v.multi
			a.frame.ret = join(a.frame.ret, v)
		}
	case *ast.LabelStmt:
		a.fact(Fact{Kind: Label, Node: st, Line: st.Line(), Name: st.Name})
	}
}

// store assigns to a variable, a global or a table field.
func (a *walker) store(lhs ast.Expr, val value, sc *walkScope, line int) {
	switch lhs := lhs.(type) {
	case *ast.IdentExpr:
		if v := sc.lookup(lhs.Value); v != nil {
			a.assign(v, val)
			return
		}
		a.fact(Fact{Kind: GlobalAssign, Node: lhs, Line: line, Name: lhs.Value})
		a.globals[lhs.Value] = join(a.globals[lhs.Value], val)
	case *ast.AttrGetExpr:
		obj := a.eval(lhs.Object, sc)
		a.eval(lhs.Key, sc)
		field := exprText(lhs)
		switch {
		case obj.k == kLib && obj.name == "_G":
			a.fact(Fact{Kind: GlobalField, Node: lhs, Line: line, Name: field})
		case obj.k == kLib || obj.k == kRedis:
			a.fact(Fact{Kind: LibraryWrite, Node: lhs, Line: line, Name: field, Other: strings.SplitN(field, ".", 2)[0]})
		case obj.k == kTable:
			a.addElem(obj.tbl, val)
			a.setField(obj.tbl, a.eval(lhs.Key, sc), val)
		default:
			a.noteField(a.eval(lhs.Key, sc), val)
		}
	default:
		a.eval(lhs, sc)
	}
}

func (a *walker) addElem(t *tableInfo, v value) {
	if t == nil {
		return
	}
	if n := join(t.elem, v.single()); n != t.elem {
		t.elem = n
		a.changed = a.changed || t.read
	}
}

// iteration is the value of the second variable of a generic for.
func (a *walker) iteration(exprs []ast.Expr, sc *walkScope) value {
	if len(exprs) == 1 {
		if call, ok := exprs[0].(*ast.FuncCallExpr); ok && call.Receiver == nil && len(call.Args) == 1 {
			if f := a.eval(call.Func, sc); f.k == kBuiltin && (f.name == "ipairs" || f.name == "pairs") {
				return a.elements(a.eval(call.Args[0], sc), "an element")
			}
		}
	}
	a.args(exprs, sc)
	return other("a loop variable")
}

// elements is what iterating or unpacking t yields.
func (a *walker) elements(t value, what string) value {
	switch {
	case t.k == kKeys:
		a.dynamicKeys = true
		return value{o: oKey, why: "a KEYS element"}
	case t.k == kArgv:
		a.dynamicArgs = true
		return other("an ARGV element")
	case t.k == kTable && t.tbl != nil:
		t.tbl.read = true
		e := t.tbl.elem
		if e.o == oNone {
			e = other(what + " of a table")
		}
		return e
	case t.o == oParam:
		return value{o: oParam, why: t.why}
	}
	return other(what + " of a table")
}

func (a *walker) function(f *ast.FunctionExpr, sc *walkScope, method bool) value {
	fn := a.fns[f]
	if fn == nil || a.frame.inline {
		fn = &fnInfo{f: f, chunk: a.cur}
		if !a.frame.inline {
			a.fns[f] = fn
		}
	}
	fn.scope, fn.chunk = sc, a.cur
	if !a.frame.inline {
		// Read the body once where it stands, its parameters unknown;
		// calls read it again with their arguments.
		saved := a.frame
		a.frame = &frame{noWrites: saved.noWrites, hasVarargs: false, depth: saved.depth, fn: f}
		inner := newScope[*varInfo](sc)
		if method {
			a.assign(a.declare(inner, NameRef{f, -1}, "self", f.Line(), false), value{o: oParam, why: "self"})
		}
		for i, n := range f.ParList.Names {
			a.assign(a.declare(inner, NameRef{f, i}, n, f.Line(), false), value{o: oParam, why: n})
		}
		if f.ParList.HasVargs {
			inner.vars["arg"] = &varInfo{name: "arg", v: value{o: oParam, why: "arg"}}
		}
		a.block(f.Stmts, inner)
		a.frame = saved
	}
	return value{o: oOther, why: "a function", k: kFunc, fn: fn}
}

// memoKey is a helper call's shape: the helper and what its arguments
// are. Calls with more arguments than the key holds are not memoised.
type memoKey struct {
	fn       *fnInfo
	noWrites bool
	more     bool
	args     [8]value
}

type arg struct {
	v value
	e ast.Expr
}

// args evaluates call arguments: a call or ... in last position may expand.
func (a *walker) args(exprs []ast.Expr, sc *walkScope) []arg {
	out := make([]arg, 0, len(exprs))
	for i, x := range exprs {
		last := i == len(exprs)-1
		if c3, ok := x.(*ast.Comma3Expr); ok {
			a.eval(x, sc)
			switch {
			case a.frame.hasVarargs && last && !c3.AdjustRet:
				for _, v := range a.frame.varargs {
					out = append(out, arg{v, x})
				}
			case a.frame.hasVarargs:
				v := nilValue
				if len(a.frame.varargs) > 0 {
					v = a.frame.varargs[0].single()
				}
				out = append(out, arg{v, x})
			default:
				out = append(out, arg{value{o: oParam, why: "...", multi: last && !c3.AdjustRet}, x})
			}
			continue
		}
		v := a.eval(x, sc)
		if call, ok := x.(*ast.FuncCallExpr); !ok || !last || call.AdjustRet {
			v.multi = false
		}
		out = append(out, arg{v, x})
	}
	return out
}

func (a *walker) eval(e ast.Expr, sc *walkScope) value {
	switch e := e.(type) {
	case nil:
		return nilValue
	case *ast.NilExpr:
		return nilValue
	case *ast.TrueExpr, *ast.FalseExpr:
		return other("a boolean")
	case *ast.NumberExpr:
		return literal(e.Value, "the number "+e.Value)
	case *ast.StringExpr:
		return literal(e.Value, "the literal "+strconv.Quote(e.Value))
	case *ast.Comma3Expr:
		if a.frame.hasVarargs {
			if len(a.frame.varargs) > 0 {
				return a.frame.varargs[0].single()
			}
			return nilValue
		}
		return value{o: oParam, why: "..."}
	case *ast.IdentExpr:
		return a.ident(e, sc)
	case *ast.AttrGetExpr:
		return a.attr(e, sc)
	case *ast.FuncCallExpr:
		return a.call(e, sc)
	case *ast.TableExpr:
		var t *tableInfo
		if a.frame.inline {
			t = &tableInfo{}
		} else if t = a.tables[e]; t == nil {
			t = &tableInfo{}
			a.tables[e] = t
		}
		for i, f := range e.Fields {
			a.eval(f.Key, sc)
			v := a.eval(f.Value, sc)
			if call, ok := f.Value.(*ast.FuncCallExpr); ok && i == len(e.Fields)-1 && f.Key == nil && !call.AdjustRet {
				v = v.single()
			}
			if _, ok := f.Value.(*ast.Comma3Expr); ok && a.frame.hasVarargs {
				for _, va := range a.frame.varargs {
					a.addElem(t, va)
				}
				continue
			}
			a.addElem(t, v)
			if f.Key != nil {
				a.setField(t, a.eval(f.Key, sc), v)
			}
		}
		return value{o: oOther, why: "a table", k: kTable, tbl: t}
	case *ast.LogicalOpExpr:
		l, r := a.eval(e.Lhs, sc), a.eval(e.Rhs, sc)
		if e.Operator == "and" {
			return r // `cond and x or y`: the and side is x
		}
		return join(l, r)
	case *ast.RelationalOpExpr:
		a.eval(e.Lhs, sc)
		a.eval(e.Rhs, sc)
		return other("a comparison")
	case *ast.StringConcatOpExpr:
		return concat(a.eval(e.Lhs, sc), a.eval(e.Rhs, sc))
	case *ast.ArithmeticOpExpr:
		a.eval(e.Lhs, sc)
		a.eval(e.Rhs, sc)
		return other("arithmetic")
	case *ast.UnaryMinusOpExpr:
		v := a.eval(e.Expr, sc)
		if v.isLit {
			return literal("-"+v.lit, "the number -"+v.lit)
		}
		return other("arithmetic")
	case *ast.UnaryNotOpExpr:
		a.eval(e.Expr, sc)
		return other("a boolean")
	case *ast.UnaryLenOpExpr:
		// #KEYS reads the count, not the elements.
		if id, ok := e.Expr.(*ast.IdentExpr); ok && (id.Value == "KEYS" || id.Value == "ARGV") && sc.lookup(id.Value) == nil {
			a.global(id, sc)
			return other("#" + id.Value)
		}
		if v := a.eval(e.Expr, sc); v.k == kKeys || v.k == kArgv {
			return other("a count")
		}
		return other("a length")
	case *ast.FunctionExpr:
		return a.function(e, sc, false)
	}
	return other("a value")
}

func (a *walker) ident(e *ast.IdentExpr, sc *walkScope) value {
	if v := sc.lookup(e.Value); v != nil {
		v.used, v.read = true, true
		if v.v.o == oNone && v.v.k == kPlain && !v.v.isLit {
			return nilValue
		}
		return v.v
	}
	return a.global(e, sc)
}

// global resolves a name that is no local: Redis's environment, or a
// fact (undefined, sandboxed).
func (a *walker) global(e *ast.IdentExpr, sc *walkScope) value {
	n := e.Value
	if v, ok := a.globals[n]; ok {
		return v
	}
	switch {
	case (n == "KEYS" || n == "ARGV") && a.p.Library:
		a.fact(Fact{Kind: LibraryGlobal, Node: e, Line: e.Line(), Name: n})
		return unknown(n)
	case n == "KEYS":
		return value{o: oOther, why: "the KEYS table", k: kKeys}
	case n == "ARGV":
		return value{o: oOther, why: "the ARGV table", k: kArgv}
	case n == "redis":
		return value{o: oOther, why: "redis", k: kRedis}
	case libraries[n] || n == "_G":
		return value{o: oOther, why: n, k: kLib, name: n}
	case sandboxed[n]:
		a.fact(Fact{Kind: Sandboxed, Node: e, Line: e.Line(), Name: n})
		return unknown(n)
	case Environment[n]:
		return value{o: oOther, why: "a reply of " + n, k: kBuiltin, name: n}
	}
	a.fact(Fact{Kind: Undefined, Node: e, Line: e.Line(), Name: n})
	return unknown(n)
}

func (a *walker) attr(e *ast.AttrGetExpr, sc *walkScope) value {
	obj := a.eval(e.Object, sc)
	key := a.eval(e.Key, sc)
	switch obj.k {
	case kKeys:
		return a.keysIndex(e, key, obj)
	case kArgv:
		return a.argvIndex(e, key)
	case kRedis:
		switch key.lit {
		case "call", "pcall":
			return value{o: oOther, why: "redis." + key.lit, k: kCall, name: "redis." + key.lit}
		case "register_function":
			return value{o: oOther, why: "redis.register_function", k: kRegister}
		}
		return value{o: oOther, why: "a reply of redis." + key.lit, k: kBuiltin, name: "redis." + key.lit}
	case kLib:
		if obj.name == "_G" && key.isLit {
			return a.global(&ast.IdentExpr{Value: key.lit}, sc)
		}
		return value{o: oOther, why: "a reply of " + obj.name + "." + key.lit, k: kBuiltin, name: obj.name + "." + key.lit}
	case kTable:
		if v, ok := obj.tbl.field(key); ok {
			return v
		}
		return a.elements(obj, "a field")
	}
	if obj.o == oParam {
		if v, ok := a.namedField(obj, key); ok {
			return v
		}
		// A parameter indexed: a keys table passed in, perhaps.
		return value{o: oParam, why: obj.why + "[…]"}
	}
	return other(exprText(e))
}

// keysIndex is KEYS[i]: a fact for the header's rules when i is known.
func (a *walker) keysIndex(e *ast.AttrGetExpr, key, keys value) value {
	n, ok := key.index()
	if !ok {
		a.dynamicKeys = true
		return value{o: oKey, why: exprText(e)}
	}
	a.usedKeys[n] = true
	a.fact(Fact{Kind: KeysIndex, Node: e, Line: e.Line(), N: n})
	return value{o: oKey, key: n, why: exprText(e)} // KEYS[1], or keys[1] in a Functions callback
}

func (a *walker) argvIndex(e *ast.AttrGetExpr, key value) value {
	n, ok := key.index()
	if !ok {
		a.dynamicArgs = true
		return other(exprText(e))
	}
	a.usedArgs[n] = true
	a.fact(Fact{Kind: ArgvIndex, Node: e, Line: e.Line(), N: n})
	return other(exprText(e))
}

func (a *walker) call(e *ast.FuncCallExpr, sc *walkScope) value {
	if e.Receiver != nil {
		recv := a.eval(e.Receiver, sc)
		a.args(e.Args, sc)
		switch {
		case stringFuncs[e.Method] && (recv.o == oKey || recv.o == oKeyDerived):
			return value{o: oKeyDerived, why: recv.why}
		case recv.o == oParam:
			return value{o: oParam, why: recv.why}
		}
		return value{o: oOther, why: "a reply of :" + e.Method + "()", multi: true}
	}
	f := a.eval(e.Func, sc)
	args := a.args(e.Args, sc)
	for _, x := range args {
		if x.v.k == kKeys && f.k != kFunc {
			a.dynamicKeys = true
		}
		if x.v.k == kArgv && f.k != kFunc {
			a.dynamicArgs = true
		}
	}
	switch f.k {
	case kCall:
		a.redisCall(e, f.name, args)
		return other("a reply of " + f.name)
	case kRegister:
		a.register(e, args, sc)
		return other("a reply of redis.register_function")
	case kFunc:
		return a.follow(f.fn, args, e)
	case kBuiltin:
		return a.builtin(e, f.name, args)
	}
	if f.o == oParam {
		return value{o: oParam, why: f.why + "()", multi: true}
	}
	return value{o: oOther, why: "a reply of " + exprText(e.Func) + "()", multi: true}
}

func (a *walker) builtin(e *ast.FuncCallExpr, name string, args []arg) value {
	at := func(i int) value {
		if i < len(args) {
			return args[i].v
		}
		return nilValue
	}
	switch name {
	case "unpack":
		v := a.elements(at(0), "an element")
		v.multi = true
		return v
	case "tostring":
		return at(0).single()
	case "pcall":
		if f := at(0); f.k == kCall {
			a.redisCall(e, f.name, args[1:])
		}
		return value{o: oOther, why: "a reply of pcall", multi: true}
	case "rawset", "setmetatable":
		if t := at(0); t.k == kLib && t.name == "_G" {
			a.fact(Fact{Kind: GlobalsDefeated, Node: e, Line: e.Line(), Name: name})
		}
	case "table.insert":
		if t := at(0); t.k == kTable {
			a.addElem(t.tbl, at(len(args)-1))
		}
	case "table.concat":
		if t := at(0); t.k == kTable && t.tbl != nil && t.tbl.markRead() && (t.tbl.elem.o == oKey || t.tbl.elem.o == oKeyDerived) {
			return value{o: oKeyDerived, why: t.tbl.elem.why}
		}
	case "string.format":
		// The result starts with the first %s argument when the format
		// has no '{' before it.
		if f := at(0); f.isLit {
			if i := strings.Index(f.lit, "%s"); i >= 0 && !strings.Contains(f.lit[:i], "{") && !strings.Contains(f.lit[:i], "%") {
				if v := at(1); v.o == oKey || v.o == oKeyDerived {
					return value{o: oKeyDerived, why: v.why}
				} else if v.o == oParam {
					return value{o: oParam, why: v.why}
				}
			}
		}
	}
	if lib, fn, ok := strings.Cut(name, "."); ok && lib == "string" && stringFuncs[fn] {
		if v := at(0); v.o == oKey || v.o == oKeyDerived {
			return value{o: oKeyDerived, why: v.why}
		} else if v.o == oParam {
			return value{o: oParam, why: v.why}
		}
	}
	return other("a reply of " + name)
}

// follow reads a helper again with the caller's arguments, so that a key
// passed as a parameter is checked where the helper uses it.
func (a *walker) follow(fn *fnInfo, args []arg, call *ast.FuncCallExpr) value {
	if a.frame.depth >= maxDepth || fn.scope == nil {
		return value{o: oOther, why: "a reply of a helper", multi: true}
	}
	key := memoKey{fn: fn, noWrites: a.frame.noWrites}
	for i, x := range args {
		if i == len(key.args) {
			key.more = true
			break
		}
		key.args[i] = x.v
	}
	if v, ok := a.memo[key]; ok && !key.more {
		return v
	}
	a.memo[key] = value{o: oOther, why: "a recursive call", multi: true}
	a.followed[fn.f] = true

	saved, savedChunk := a.frame, a.cur
	fr := &frame{inline: true, via: saved.via, noWrites: saved.noWrites, depth: saved.depth + 1, ret: nilValue, fn: saved.fn}
	if fr.via.Line == 0 {
		fr.via.Line = call.Line()
		if fn.chunk != a.cur {
			fr.via.Chunk = a.cur
		}
		if _, ok := call.Func.(*ast.AttrGetExpr); ok && a.frame.registering {
			fr.via.Registered = true
		}
	}
	inner := newScope[*varInfo](fn.scope)
	params := fn.f.ParList.Names
	for i, n := range params {
		v := nilValue
		switch {
		case i < len(args):
			v = args[i].v.single()
		case len(args) > 0 && args[len(args)-1].v.multi:
			v = args[len(args)-1].v.single()
		}
		inner.vars[n] = &varInfo{name: n, v: v, line: fn.f.Line()}
	}
	if fn.f.ParList.HasVargs {
		fr.hasVarargs = true
		t := &tableInfo{}
		if len(args) > len(params) {
			for _, x := range args[len(params):] {
				fr.varargs = append(fr.varargs, x.v)
				t.elem = join(t.elem, x.v.single())
			}
		}
		inner.vars["arg"] = &varInfo{name: "arg", v: varargTable(t)}
	}
	a.frame, a.cur = fr, fn.chunk
	a.block(fn.f.Stmts, inner)
	a.frame, a.cur = saved, savedChunk
	a.memo[key] = fr.ret
	return fr.ret
}

// varargTable is Lua 5.1's `arg` in a vararg function: Redis builds Lua
// with LUA_COMPAT_VARARG, so every such function declares a local arg
// holding its extra arguments (and n), nil when the body reads `...`
// itself. Either way the name is a local, never a global.
func varargTable(t *tableInfo) value {
	return value{o: oOther, why: "the arg table", k: kTable, tbl: t}
}

// register reads a Functions library callback with its keys and args
// parameters bound, and its no-writes flag.
func (a *walker) register(e *ast.FuncCallExpr, args []arg, sc *walkScope) {
	var cb value
	noWrites := false
	if len(e.Args) == 1 {
		if t, ok := e.Args[0].(*ast.TableExpr); ok {
			for _, f := range t.Fields {
				k, _ := f.Key.(*ast.StringExpr)
				if k == nil {
					continue
				}
				switch k.Value {
				case "callback":
					// Read already as a table element; a function literal
					// must not be read (and reported) twice.
					if fe, ok := f.Value.(*ast.FunctionExpr); ok {
						if fn := a.fns[fe]; fn != nil {
							cb = value{k: kFunc, fn: fn}
						}
					} else {
						cb = a.eval(f.Value, sc)
					}
				case "flags":
					if ft, ok := f.Value.(*ast.TableExpr); ok {
						for _, ff := range ft.Fields {
							if s, ok := ff.Value.(*ast.StringExpr); ok && s.Value == "no-writes" {
								noWrites = true
							}
						}
					}
				}
			}
		}
	} else if len(args) >= 2 {
		cb = args[1].v
	}
	if cb.k != kFunc || cb.fn == nil {
		return
	}
	saved := a.frame
	a.frame = &frame{noWrites: noWrites || saved.noWrites, depth: saved.depth, registering: true}
	a.follow(cb.fn, []arg{{v: value{o: oOther, why: "keys", k: kKeys}}, {v: value{o: oOther, why: "args", k: kArgv}}}, e)
	a.frame = saved
}
