package luaflow

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// exprList evaluates es for n targets: the types of the first n values.
func (a *analyzer) exprList(es []ast.Expr, n int, st *state, sc *flowScope) []typ {
	ts := make([]typ, n)
	for i := range ts {
		ts[i] = tNil
	}
	for i, e := range es {
		t := a.expr(e, st, sc)
		if i < n {
			ts[i] = t
		}
		if i == len(es)-1 && multi(e) {
			for j := i + 1; j < n; j++ {
				ts[j] = tAny
			}
		}
	}
	return ts
}

// multi: e may stand for any number of values, none included (a call or
// ... not in parentheses).
func multi(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FuncCallExpr:
		return !e.AdjustRet
	case *ast.Comma3Expr:
		return !e.AdjustRet
	}
	return false
}

// lastMulti: the last of es may stand for no value at all.
func lastMulti(es []ast.Expr) bool { return len(es) > 0 && multi(es[len(es)-1]) }

// cond evaluates a condition at st and returns two new states, where it
// held and where it did not, and the types of its value.
func (a *analyzer) cond(e ast.Expr, st *state, sc *flowScope) (t, f *state, ty typ) {
	switch e := e.(type) {
	case *ast.UnaryNotOpExpr:
		t, f, _ = a.cond(e.Expr, st, sc)
		return f, t, tBool
	case *ast.LogicalOpExpr:
		lt, lf, l := a.cond(e.Lhs, st, sc)
		if e.Operator == "and" {
			rt, rf, r := a.cond(e.Rhs, lt, sc)
			rf.join(lf)
			return rt, rf, l&tFalsy | r
		}
		rt, rf, r := a.cond(e.Rhs, lf, sc)
		lt.join(rt)
		return lt, rf, l&^tFalsy | r
	case *ast.IdentExpr:
		ty = a.expr(e, st, sc)
		t, f = st.clone(), st.clone()
		a.refine(e, t, sc, func(x typ) typ { return x &^ tFalsy })
		a.refine(e, f, sc, func(x typ) typ { return x & tFalsy })
		if l := sc.lookup(e.Value); l != nil && l.got != "" && !a.assigned[l.name] && !a.volatile[l.name] && !f.dead {
			// GET replied nil (false in Lua): the key was absent.
			if f.absent == nil {
				f.absent = map[string]bool{}
			}
			f.absent[l.got] = true
		}
		return t, f, ty
	case *ast.RelationalOpExpr:
		ty = a.expr(e, st, sc)
		t, f = st.clone(), st.clone()
		if _, isNil := e.Rhs.(*ast.NilExpr); isNil && (e.Operator == "==" || e.Operator == "~=") {
			eq, ne := t, f
			if e.Operator == "~=" {
				eq, ne = f, t
			}
			a.refine(e.Lhs, eq, sc, func(x typ) typ { return x & tNil })
			a.refine(e.Lhs, ne, sc, func(x typ) typ { return x &^ tNil })
		}
		a.narrowCompare(e, t, f, sc)
		a.narrowType(e, t, f, sc)
		a.narrowExists(e, st, t, f, sc)
		return t, f, ty
	case *ast.FuncCallExpr:
		if _, w := a.writes[e]; w && setNX(e) {
			// A SET NX or XX that replies nil wrote nothing.
			ty = a.expr(e, st, sc)
			t, f = st.clone(), st.clone()
			delete(f.open, e)
			return t, f, ty
		}
	}
	ty = a.expr(e, st, sc)
	return st.clone(), st.clone(), ty
}

// narrowExists records, where `redis.call('EXISTS', KEYS[n]) == 1` did
// not hold (or `== 0` held, or the same with ~=), that KEYS[n] did not
// exist when the run began, if no write may have run before the EXISTS
// (asynq's enqueue: `if redis.call("EXISTS", KEYS[1]) == 1 then return 0
// end`). EXISTS of one key replies 0 or 1. In a followed function the
// state does not say what the caller wrote, so nothing is recorded there.
func (a *analyzer) narrowExists(e *ast.RelationalOpExpr, st, t, f *state, sc *flowScope) {
	call, ok := e.Lhs.(*ast.FuncCallExpr)
	if !ok || st.wrote || st.dead || a.frame != nil || (e.Operator != "==" && e.Operator != "~=") ||
		!isRedisCall(call, "call") || literalCommand(call) != "EXISTS" || len(call.Args) != 2 {
		return
	}
	key := a.keyOf(call.Args[1], sc)
	if key == "" {
		return
	}
	var none *state // where the reply was 0
	switch {
	case isNumber(e.Rhs, 0):
		none = map[bool]*state{true: t, false: f}[e.Operator == "=="]
	case isNumber(e.Rhs, 1):
		none = map[bool]*state{true: f, false: t}[e.Operator == "=="]
	default:
		return
	}
	if none.absent == nil {
		none.absent = map[string]bool{}
	}
	none.absent[key] = true
}

// setNX: a SET with NX or XX and without GET, spelled in literals.
func setNX(e *ast.FuncCallExpr) bool {
	if cmd, ok := e.Args[0].(*ast.StringExpr); !ok || strings.ToLower(cmd.Value) != "set" {
		return false
	}
	cond := false
	for _, arg := range e.Args[1:] {
		switch v := arg.(type) {
		case *ast.StringExpr:
			switch strings.ToLower(v.Value) {
			case "nx", "xx":
				cond = true
			case "get":
				return false
			}
		case *ast.Comma3Expr:
			return false
		case *ast.FuncCallExpr:
			return false // may expand to anything, GET included
		}
	}
	return cond
}

// expr evaluates e at st: the types its value may have. An operation that
// may raise calls mayFail; operations that succeed refine their operands.
func (a *analyzer) expr(e ast.Expr, st *state, sc *flowScope) typ {
	switch e := e.(type) {
	case *ast.NilExpr:
		return tNil
	case *ast.TrueExpr:
		return tTrue
	case *ast.FalseExpr:
		return tFalse
	case *ast.NumberExpr:
		return tNum
	case *ast.StringExpr:
		if numeral.MatchString(e.Value) {
			return tNumStr
		}
		return tStr
	case *ast.Comma3Expr:
		return tAny
	case *ast.IdentExpr:
		if l := sc.lookup(e.Value); l != nil {
			return a.typeOf(st, l)
		}
		if e.Value == "KEYS" || e.Value == "ARGV" {
			return tTable
		}
		return tOther // a library
	case *ast.FunctionExpr:
		return tFunc
	case *ast.AttrGetExpr:
		obj := a.expr(e.Object, st, sc)
		a.expr(e.Key, st, sc)
		if id, ok := e.Object.(*ast.IdentExpr); ok && sc.lookup(id.Value) == nil {
			switch id.Value {
			case "KEYS", "ARGV":
				return tStr | tNumStr | tNil
			case "math":
				if k, ok := e.Key.(*ast.StringExpr); ok && (k.Value == "huge" || k.Value == "pi") {
					return tNum
				}
				return tFunc
			}
			return tAny // a library's field
		}
		if !obj.within(tTable | tText) {
			a.mayFail(st, e, "indexing what may not be a table or a string")
		}
		a.refine(e.Object, st, sc, func(x typ) typ { return x & (tTable | tText) })
		if ty, ok := a.element(e, st, sc); ok {
			return ty
		}
		if f, ok := a.recordField(e, st, sc); ok {
			return f.t
		}
		return tAny
	case *ast.TableExpr:
		ts := make([]typ, len(e.Fields))
		for i, f := range e.Fields {
			if f.Key != nil {
				k := a.expr(f.Key, st, sc)
				if !a.safeKey(f.Key, k, st, sc) {
					a.mayFail(st, f.Key, "a table key that may be nil or NaN")
				}
			}
			ts[i] = a.expr(f.Value, st, sc)
		}
		a.ctors[e] = ts
		return tTable
	case *ast.LogicalOpExpr:
		// The right side runs on some paths only.
		t, f, ty := a.cond(e, st, sc)
		t.join(f)
		*st = *t
		return ty
	case *ast.RelationalOpExpr:
		l := a.expr(e.Lhs, st, sc)
		r := a.expr(e.Rhs, st, sc)
		if e.Operator == "==" || e.Operator == "~=" {
			return tBool
		}
		switch {
		case l.within(tNum) && r.within(tNum), l.within(tText) && r.within(tText):
		default:
			a.mayFail(st, e, "comparing what may not be two numbers or two strings")
		}
		// It succeeded: both numbers or both strings.
		if l.within(tNum) {
			a.refine(e.Rhs, st, sc, func(x typ) typ { return x & tNum })
		} else if l.within(tText) {
			a.refine(e.Rhs, st, sc, func(x typ) typ { return x & tText })
		}
		if r.within(tNum) {
			a.refine(e.Lhs, st, sc, func(x typ) typ { return x & tNum })
		} else if r.within(tText) {
			a.refine(e.Lhs, st, sc, func(x typ) typ { return x & tText })
		}
		return tBool
	case *ast.ArithmeticOpExpr:
		a.arith(st, sc, e.Lhs, e.Rhs)
		return tNum
	case *ast.UnaryMinusOpExpr:
		a.arith(st, sc, e.Expr)
		return tNum
	case *ast.StringConcatOpExpr:
		l := a.expr(e.Lhs, st, sc)
		r := a.expr(e.Rhs, st, sc)
		if !l.within(tNum|tText) || !r.within(tNum|tText) {
			a.mayFail(st, e, "concatenating what may not be a string or a number")
		}
		return tStr
	case *ast.UnaryNotOpExpr:
		a.expr(e.Expr, st, sc)
		return tBool
	case *ast.UnaryLenOpExpr:
		if !a.expr(e.Expr, st, sc).within(tTable | tText) {
			a.mayFail(st, e, "the length of what may not be a table or a string")
		}
		return tNum
	case *ast.FuncCallExpr:
		return a.call(e, st, sc)
	}
	a.quit(e, "an expression the proof does not model")
	return tAny
}

// arith evaluates operands of arithmetic: it may raise unless all convert
// to numbers, and after it they do.
func (a *analyzer) arith(st *state, sc *flowScope, operands ...ast.Expr) {
	ok := true
	for _, o := range operands {
		if !a.expr(o, st, sc).within(tArith) {
			ok = false
		}
	}
	if !ok {
		a.mayFail(st, operands[0], "arithmetic on what may not be a number")
	}
	for _, o := range operands {
		a.refine(o, st, sc, func(x typ) typ {
			if x&(tStr|tNumStr) != 0 {
				return x&tNum | tNumStr
			}
			return x & tNum
		})
	}
}

// integerReply are commands whose reply is an integer whatever their
// arguments (in RESP2 and RESP3), which Lua receives as a number.
var integerReply = map[string]bool{
	"APPEND": true, "BITCOUNT": true, "DBSIZE": true, "DECR": true, "DECRBY": true, "DEL": true,
	"EXISTS": true, "EXPIRE": true, "EXPIREAT": true, "EXPIRETIME": true, "GETBIT": true,
	"HDEL": true, "HEXISTS": true, "HINCRBY": true, "HLEN": true, "HSET": true, "HSETNX": true,
	"HSTRLEN": true, "INCR": true, "INCRBY": true, "LLEN": true, "LPUSH": true, "LPUSHX": true,
	"LREM": true, "PERSIST": true, "PEXPIRE": true, "PEXPIREAT": true, "PEXPIRETIME": true,
	"PTTL": true, "RPUSH": true, "RPUSHX": true, "SADD": true, "SCARD": true, "SETBIT": true,
	"SETRANGE": true, "SISMEMBER": true, "SMOVE": true, "SREM": true, "STRLEN": true, "TOUCH": true,
	"TTL": true, "UNLINK": true, "XDEL": true, "XLEN": true, "ZCARD": true, "ZCOUNT": true,
	"ZLEXCOUNT": true, "ZREM": true, "ZREMRANGEBYLEX": true, "ZREMRANGEBYRANK": true,
	"ZREMRANGEBYSCORE": true,
}

// mathFns are math's functions that, given numbers, return a number and
// cannot raise.
var mathFns = map[string]bool{
	"abs": true, "ceil": true, "floor": true, "max": true, "min": true, "sqrt": true, "exp": true,
	"log": true, "log10": true, "pow": true, "fmod": true, "modf": true, "sin": true, "cos": true,
	"tan": true, "asin": true, "acos": true, "atan": true, "atan2": true, "sinh": true, "cosh": true,
	"tanh": true, "deg": true, "rad": true, "frexp": true, "ldexp": true,
}
