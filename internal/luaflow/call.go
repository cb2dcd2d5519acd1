package luaflow

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

func (a *analyzer) call(e *ast.FuncCallExpr, st *state, sc *flowScope) typ {
	if e.Receiver != nil {
		a.expr(e.Receiver, st, sc)
		a.exprList(e.Args, len(e.Args), st, sc)
		a.mayFail(st, e, "a method call")
		a.callsBack(st)
		return tAny
	}
	// redis.call and its kin.
	if attr, ok := e.Func.(*ast.AttrGetExpr); ok {
		if obj, ok := attr.Object.(*ast.IdentExpr); ok && sc.lookup(obj.Value) == nil {
			key, _ := attr.Key.(*ast.StringExpr)
			args := a.exprList(e.Args, len(e.Args), st, sc)
			switch {
			case obj.Value == "redis" && (key.Value == "error_reply" || key.Value == "status_reply"):
				if len(args) != 1 || !args[0].within(tText) {
					a.mayFail(st, e, "redis."+key.Value+" of what may not be a string")
				}
				return tTable
			case obj.Value == "redis":
				if ok, why := a.sure(e, args, st, sc); !ok {
					a.mayFail(st, e, why)
				}
				ty := tAny
				if integerReply[literalCommand(e)] {
					// A reply that returns is an integer; pcall returns an
					// error as a table.
					ty = tNum
					if key.Value == "pcall" {
						ty |= tTable
					}
				}
				_, w := a.writes[e]
				if w && !st.dead {
					st.open[e] = true
					if a.frame == nil {
						a.opened[e] = true
					}
					a.planWrite(e, key.Value, st, sc)
					a.wrote(st)
				}
				a.ran(e, key.Value == "call", w, args, st, sc)
				return ty
			case obj.Value == "math" && key != nil && mathFns[key.Value]:
				ok := len(args) > 0 && !lastMulti(e.Args)
				for _, t := range args {
					if !t.within(tArith) {
						ok = false
					}
				}
				if !ok {
					a.mayFail(st, e, "math."+key.Value+" of what may not be a number")
				}
				return tNum
			case obj.Value == "string" && key != nil && stringCallSafe(key.Value, e.Args, args):
				if key.Value == "len" {
					return tNum
				}
				return tStr
			}
			a.mayFail(st, e, "a call of "+obj.Value+"."+attrName(key))
			if obj.Value != "math" && obj.Value != "string" && mayCallBack(e.Args, args) {
				a.callsBack(st) // table.sort may call back into the script
			}
			return tAny
		}
	}
	if id, ok := e.Func.(*ast.IdentExpr); ok {
		l := sc.lookup(id.Value)
		args := a.exprList(e.Args, len(e.Args), st, sc)
		if l == nil && len(args) == 1 && !lastMulti(e.Args) {
			switch id.Value {
			case "tonumber":
				return tNum | tNil
			case "tostring":
				return tText
			case "type":
				return tStr
			}
		}
		if l == nil && id.Value == "pcall" && len(e.Args) > 0 && codec(e.Args[0], sc) {
			// pcall(cjson.decode, s): the error is caught, and a codec
			// calls nothing of the script's.
			return tAny
		}
		if l == nil {
			a.mayFail(st, e, "a call of "+id.Value)
			if id.Value == "error" {
				st.dead = true
			}
			if !pureBuiltins[id.Value] {
				a.callsBack(st) // pcall and xpcall run what they are given
			}
			return tAny
		}
		if l.fn != nil && !a.volatile[l.name] {
			return a.follow(e, l, args, st, sc)
		}
	} else {
		a.expr(e.Func, st, sc)
		a.exprList(e.Args, len(e.Args), st, sc)
	}
	a.mayFail(st, e, "a call of a function the proof does not follow")
	a.callsBack(st)
	return tAny
}

// safeKey: e, of type ty at st, can index a table (neither nil nor NaN).
func (a *analyzer) safeKey(e ast.Expr, ty typ, st *state, sc *flowScope) bool {
	if _, lit := e.(*ast.NumberExpr); lit || ty.within(tText|tBool|tTable) {
		return true
	}
	return ty.within(tText|tBool|tTable|tNum) && !a.numOf(e, st, sc).nan
}

// callsBack records that code the flow does not follow may have run at st
// (a function handed to pcall, table.sort's comparator, …): it may have
// written anything.
func (a *analyzer) callsBack(st *state) {
	a.wrote(st)
	if !st.dead {
		st.keys = map[string]keyFact{}
		st.deleted = true
	}
}

// wrote records that a write may have run at st.
func (a *analyzer) wrote(st *state) {
	st.wrote = true
	if a.frame != nil {
		a.frame.wrote = true
	}
}

// exprAt is the expression that gives the i-th of the values es make, nil
// when that value comes from a call's or ...'s expansion.
func exprAt(es []ast.Expr, i int) ast.Expr {
	if i < len(es) && (i < len(es)-1 || !multi(es[i])) {
		return es[i]
	}
	if i == len(es)-1 {
		return es[i] // a call's first value
	}
	return nil
}

// hashRead: e is redis.call of HMGET or HGET on KEYS[n] of literal
// fields.
func hashRead(e ast.Expr) *read {
	call, ok := e.(*ast.FuncCallExpr)
	if !ok || !isRedisCall(call, "call") || len(call.Args) < 3 {
		return nil
	}
	cmd, ok := call.Args[0].(*ast.StringExpr)
	if !ok {
		return nil
	}
	r := &read{key: keyRef(call.Args[1])}
	switch strings.ToUpper(cmd.Value) {
	case "HMGET":
	case "HGET":
		r.hget = true
		if len(call.Args) != 3 {
			return nil
		}
	default:
		return nil
	}
	for _, f := range call.Args[2:] {
		lit, ok := f.(*ast.StringExpr)
		if !ok || !plainLiteral.MatchString(lit.Value) {
			return nil
		}
		r.fields = append(r.fields, lit.Value)
	}
	if r.key == "" {
		return nil
	}
	return r
}

// stringRead is "KEYS[n]" when e is redis.call('GET', KEYS[n]), else "".
func stringRead(e ast.Expr) string {
	call, ok := e.(*ast.FuncCallExpr)
	if !ok || !isRedisCall(call, "call") || len(call.Args) != 2 || literalCommand(call) != "GET" {
		return ""
	}
	return keyRef(call.Args[1])
}

var (
	plainLiteral = regexp.MustCompile(`^[A-Za-z0-9_:.{}-]+$`)
	keyIndex     = regexp.MustCompile(`^[1-9][0-9]*$`)
)

// keyRef is "KEYS[n]" for that expression with n a literal integer, else "".
func keyRef(e ast.Expr) string {
	attr, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return ""
	}
	id, ok := attr.Object.(*ast.IdentExpr)
	n, isNum := attr.Key.(*ast.NumberExpr)
	if !ok || id.Value != "KEYS" || !isNum || !keyIndex.MatchString(n.Value) {
		return ""
	}
	return "KEYS[" + n.Value + "]"
}

func isRedisCall(e *ast.FuncCallExpr, fn string) bool {
	attr, ok := e.Func.(*ast.AttrGetExpr)
	if !ok {
		return false
	}
	id, ok := attr.Object.(*ast.IdentExpr)
	key, isStr := attr.Key.(*ast.StringExpr)
	return ok && isStr && id.Value == "redis" && key.Value == fn
}

// planWrite finds, for a hash write HSET or HMSET of literal fields on
// KEYS[n], a local in scope holding a read of those fields made before any
// write: its undo is then known without a read. Every visit of a site must
// find the same plan (loops are visited more than once); one that does not
// has none.
func (a *analyzer) planWrite(e *ast.FuncCallExpr, fn string, st *state, sc *flowScope) {
	p := a.absentPlan(e, fn, st)
	if p == nil {
		p = a.pushPlan(e, fn)
	}
	if p == nil {
		p = a.findPlan(e, fn, sc)
	}
	if old, seen := a.plans[e]; seen && (old == nil || p == nil || old.Del != p.Del || old.Pop != p.Pop || old.Local != p.Local || strings.Join(old.Refs, ",") != strings.Join(p.Refs, ",")) {
		p = nil
	}
	if a.frame != nil {
		p = nil
	}
	a.plans[e] = p
}

// absentPlan is the plan of a write whose only key is KEYS[n], spelled
// so at the call, when the run has shown that key absent at its start:
// DEL undoes it.
func (a *analyzer) absentPlan(e *ast.FuncCallExpr, fn string, st *state) *Plan {
	if fn != "call" || len(e.Args) < 2 || a.escapes["KEYS"] || a.assigned["KEYS"] {
		return nil
	}
	key := keyRef(e.Args[1])
	if key == "" || !st.absent[key] {
		return nil
	}
	c := commands.Lookup(literalCommand(e))
	if c == nil || BeyondKeys(c.Name) || c.Container || !c.Flags.Has(commands.Write) || c.Flags.Has(commands.MovableKeys) ||
		c.FirstKey != 1 || c.LastKey != 1 {
		return nil
	}
	return &Plan{Key: key, Del: true, Stmt: a.stmtCalls[e]}
}

// pushPlan is the plan of an LPUSH or RPUSH of a fixed number of values
// on KEYS[n]: the pop of as many from the same end undoes it, once every
// later write to that list is undone.
func (a *analyzer) pushPlan(e *ast.FuncCallExpr, fn string) *Plan {
	if fn != "call" || len(e.Args) < 3 || lastMulti(e.Args) || a.escapes["KEYS"] {
		return nil
	}
	key := keyRef(e.Args[1])
	if key == "" {
		return nil
	}
	switch literalCommand(e) {
	case "LPUSH":
		return &Plan{Key: key, Pop: "LPOP", Count: len(e.Args) - 2}
	case "RPUSH":
		return &Plan{Key: key, Pop: "RPOP", Count: len(e.Args) - 2}
	}
	return nil
}

func (a *analyzer) findPlan(e *ast.FuncCallExpr, fn string, sc *flowScope) *Plan {
	cmd, ok := e.Args[0].(*ast.StringExpr)
	if fn != "call" || !ok || len(e.Args) < 4 || len(e.Args)%2 != 0 || lastMulti(e.Args) {
		return nil
	}
	if c := strings.ToUpper(cmd.Value); c != "HSET" && c != "HMSET" {
		return nil
	}
	key := keyRef(e.Args[1])
	if key == "" || a.escapes["KEYS"] {
		return nil
	}
	var fields []string
	for i := 2; i < len(e.Args); i += 2 {
		lit, ok := e.Args[i].(*ast.StringExpr)
		if !ok || !plainLiteral.MatchString(lit.Value) {
			return nil
		}
		fields = append(fields, lit.Value)
	}
	for c := sc; c != nil; c = c.parent {
	candidates:
		for _, name := range slices.Sorted(maps.Keys(c.vars)) {
			l := c.vars[name]
			r := l.read
			if r == nil || r.key != key || a.escapes[name] || a.assigned[name] || a.volatile[name] || sc.lookup(name) != l {
				continue
			}
			p := &Plan{Key: key, Local: name}
			for _, f := range fields {
				i := slices.Index(r.fields, f)
				if i < 0 {
					continue candidates
				}
				ref := fmt.Sprintf("%s[%d]", name, i+1)
				if r.hget {
					ref = name
				}
				p.Refs = append(p.Refs, ref)
				p.Names = append(p.Names, "'"+f+"'")
			}
			return p
		}
	}
	return nil
}

// follow analyzes a call of the script's own local function with these
// argument types: whether anything in it may raise, and what it returns.
// Its writes are never the last failure point (the scan saw to that).
func (a *analyzer) follow(call *ast.FuncCallExpr, l *local, args []typ, st *state, callerScope *flowScope) typ {
	argExprs := call.Args
	depth := 0
	if a.frame != nil {
		depth = a.frame.depth
	}
	if depth >= maxDepth {
		a.mayFail(st, call, "a call of "+l.name+", nested too deep to follow")
		return tAny
	}
	f := l.fn
	sc := newScope(l.fnScope)
	// The body may make tables of its own (their facts start empty: the
	// caller's are not carried); what the caller may have written or
	// deleted holds in it.
	in := newState()
	in.env, in.nums, in.keys = maps.Clone(st.env), maps.Clone(st.nums), maps.Clone(st.keys)
	in.wrote, in.deleted = st.wrote, st.deleted
	for i, n := range f.ParList.Names {
		p := &local{name: n}
		sc.vars[n] = p
		in.env[p] = tNil
		switch {
		case i >= len(args)-1 && lastMulti(argExprs):
			in.env[p] = tAny // what the last argument expands to
		case i < len(args):
			in.env[p] = args[i]
			if args[i]&tNum != 0 {
				in.nums[p] = a.numOf(argExprs[i], st, callerScope)
			}
		}
	}
	outer := a.frame
	fr := &frame{depth: depth + 1}
	a.frame = fr
	a.block(f.Stmts, in, sc)
	a.frame = outer
	if !in.dead {
		fr.rets |= tNil
	}
	if fr.raises {
		a.mayFail(st, call, l.name+"(…) may fail: "+fr.why)
	}
	if fr.wrote {
		a.callsBack(st)
	}
	if fr.nums != nil {
		n := *fr.nums
		if old, ok := a.callNums[call]; ok {
			n = n.join(old)
		}
		a.callNums[call] = n
	}
	if fr.rets == 0 {
		return tNil
	}
	return fr.rets
}
