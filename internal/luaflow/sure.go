package luaflow

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// Commands that cannot fail.
//
// Most Redis commands fail for some arguments or some contents of their
// key, and Needed takes every redis.call after a write as a possible
// failure. A few cannot fail once the run has shown enough: a command of
// the sorted-set, hash or string family on a key that an earlier command
// of the same family ran on (so the key holds that type or nothing), or a
// command that takes a key of any type (SET, DEL, PEXPIRE …), with arguments
// whose values are known to suit (a score that is a number and not NaN, an
// index or a number of milliseconds that is an integer within ±2^53, a
// literal range bound Redis parses). The flow tracks both: what is known
// of each numeric local's value (num: bounds, NaN or not, integer or not,
// narrowed by comparisons and by `x % 1 == 0`), and what is known of each
// key named KEYS[n] (keyFact).
//
// A key must also be stable: no write of the run since a command on it
// succeeded may have deleted it. While its hash slot migrates, a cluster
// node refuses a script's command on a key it does not hold ("Script
// attempted to access a non local key in a cluster node", checked on
// redis-server 7.0.15), so a key the run deleted can fail the next command
// on it, and one that a command found can not.
//
// Errors that come from the server's configuration rather than from the
// run are not considered: an ACL that denies the user a command the script
// makes fails every run at that command.

// num is what is known of a number: it lies in [lo, hi] (±Inf: unbounded,
// infinities included), it may be NaN unless !nan, and it is an integer
// when finite if integral.
type num struct {
	lo, hi   float64
	nan      bool
	integral bool
}

var anyNum = num{lo: math.Inf(-1), hi: math.Inf(1), nan: true}

func exactNum(v float64) num {
	if math.IsNaN(v) {
		return anyNum
	}
	return num{lo: v, hi: v, integral: v == math.Trunc(v)}
}

func (n num) join(m num) num {
	return num{lo: math.Min(n.lo, m.lo), hi: math.Max(n.hi, m.hi), nan: n.nan || m.nan, integral: n.integral && m.integral}
}

// safeInt: an integer Redis reads as one, which a Lua number converts to
// without an exponent (redis.call writes numbers with %.17g).
const safeInt = 1 << 53

func (n num) isSafeInt() bool {
	return !n.nan && n.integral && n.lo >= -safeInt && n.hi <= safeInt
}

// bound makes lo and hi of an interval operation; NaN (∞ - ∞) is no bound.
func bound(v, unbounded float64) float64 {
	if math.IsNaN(v) {
		return unbounded
	}
	return v
}

func addNum(x, y num) num {
	n := num{
		lo:       bound(x.lo+y.lo, math.Inf(-1)),
		hi:       bound(x.hi+y.hi, math.Inf(1)),
		nan:      x.nan || y.nan || math.IsInf(x.hi, 1) && math.IsInf(y.lo, -1) || math.IsInf(x.lo, -1) && math.IsInf(y.hi, 1),
		integral: x.integral && y.integral,
	}
	return n
}

func negNum(x num) num { return num{lo: -x.hi, hi: -x.lo, nan: x.nan, integral: x.integral} }

func mulNum(x, y num) num {
	ps := []float64{x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi}
	n := num{lo: math.Inf(1), hi: math.Inf(-1), integral: x.integral && y.integral, nan: x.nan || y.nan}
	for _, p := range ps {
		if math.IsNaN(p) { // 0 × ∞
			n.nan = true
			continue
		}
		n.lo, n.hi = math.Min(n.lo, p), math.Max(n.hi, p)
	}
	if (x.lo <= 0 && x.hi >= 0) && (math.IsInf(y.lo, 0) || math.IsInf(y.hi, 0)) ||
		(y.lo <= 0 && y.hi >= 0) && (math.IsInf(x.lo, 0) || math.IsInf(x.hi, 0)) {
		n.nan = true
	}
	if n.lo > n.hi {
		return anyNum
	}
	return n
}

// numOf is what is known of e's value when it is a number, at st. It has
// no effect: expr has evaluated e already.
func (a *analyzer) numOf(e ast.Expr, st *state, sc *flowScope) num {
	switch e := e.(type) {
	case *ast.NumberExpr:
		v, err := strconv.ParseFloat(e.Value, 64)
		if err != nil {
			return anyNum
		}
		return exactNum(v)
	case *ast.IdentExpr:
		if l := sc.lookup(e.Value); l != nil && !a.volatile[l.name] {
			if n, ok := st.nums[l]; ok {
				return n
			}
		}
	case *ast.UnaryMinusOpExpr:
		return negNum(a.numOf(e.Expr, st, sc))
	case *ast.UnaryLenOpExpr:
		return num{lo: 0, hi: math.Inf(1), integral: true}
	case *ast.ArithmeticOpExpr:
		x, y := a.numOf(e.Lhs, st, sc), a.numOf(e.Rhs, st, sc)
		switch e.Operator {
		case "+":
			return addNum(x, y)
		case "-":
			return addNum(x, negNum(y))
		case "*":
			return mulNum(x, y)
		case "%":
			// Lua 5.1: a - floor(a/b)*b, in [0, b] for b > 0 and |a| <=
			// 2^53 (beyond, a/b rounds and the result may be negative:
			// TestPropertyNum found -2 for a near 1.8e16, b 7).
			if !y.nan && y.lo == y.hi && y.lo > 0 && !x.nan && x.lo >= -safeInt && x.hi <= safeInt && !math.IsInf(y.lo, 0) {
				return num{lo: 0, hi: y.lo, integral: x.integral && y.integral}
			}
		}
	case *ast.AttrGetExpr:
		if _, f, ok := a.tableOf(e.Object, st, sc); ok && f.t&tNum != 0 {
			return f.n
		}
		if f, ok := a.recordField(e, st, sc); ok && f.t&tNum != 0 {
			return f.n
		}
	case *ast.FuncCallExpr:
		if n, ok := a.callNums[e]; ok {
			return n
		}
		attr, ok := e.Func.(*ast.AttrGetExpr)
		if !ok || len(e.Args) == 0 || lastMulti(e.Args) {
			break
		}
		obj, ok := attr.Object.(*ast.IdentExpr)
		key, isStr := attr.Key.(*ast.StringExpr)
		if !ok || !isStr || obj.Value != "math" || sc.lookup("math") != nil {
			break
		}
		args := make([]num, len(e.Args))
		for i, arg := range e.Args {
			args[i] = a.numOf(arg, st, sc)
		}
		switch key.Value {
		case "floor", "ceil", "modf": // modf's first result, truncated, lies between the two
			if len(args) != 1 {
				break
			}
			x := args[0]
			return num{lo: math.Floor(x.lo), hi: math.Ceil(x.hi), nan: x.nan, integral: true}
		case "min", "max":
			// Lua 5.1 keeps the first argument and replaces it with each
			// later one that compares less (min) or greater (max): a NaN
			// first argument stays, a later one is skipped, so a later
			// argument that may be NaN cannot tighten the bound it would
			// tighten if it were not.
			n := args[0]
			for _, y := range args[1:] {
				if key.Value == "min" {
					n.lo = math.Min(n.lo, y.lo)
					if !y.nan {
						n.hi = math.Min(n.hi, y.hi)
					}
				} else {
					n.hi = math.Max(n.hi, y.hi)
					if !y.nan {
						n.lo = math.Max(n.lo, y.lo)
					}
				}
				n.integral = n.integral && y.integral
			}
			if n.lo > n.hi {
				return anyNum
			}
			return n
		}
	}
	return anyNum
}

// narrowCompare narrows the numbers compared by e on the paths where e
// held (t) and did not (f): after x < y, x <= y, x > y or x >= y held,
// when both sides are numbers, neither is NaN and each is bounded by the
// other; where it did not hold, x >= y, x > y, x <= y or x < y holds
// unless one of them is NaN, so a side that cannot be NaN bounds the
// other, which may still be (`if n > MAX then n = MAX end` leaves n at
// most MAX, or NaN); where x % 1 == 0 held (or x % 1 ~= 0 did not), x is
// an integer (∞ % 1 is NaN).
func (a *analyzer) narrowCompare(e *ast.RelationalOpExpr, t, f *state, sc *flowScope) {
	lhs, rhs, op := e.Lhs, e.Rhs, e.Operator
	if op == "==" || op == "~=" {
		eq := t
		if op == "~=" {
			eq = f
		}
		if m, ok := lhs.(*ast.ArithmeticOpExpr); ok && m.Operator == "%" && isNumber(m.Rhs, 1) && isNumber(rhs, 0) && !eq.dead {
			a.setNum(m.Lhs, eq, sc, func(n num) num {
				n.nan, n.integral = false, true
				return n
			})
		}
		return
	}
	if op == ">" || op == ">=" {
		lhs, rhs = rhs, lhs
		op = map[string]string{">": "<", ">=": "<="}[op]
	}
	// Where lhs < rhs (lhs <= rhs) did not hold, rhs <= lhs (rhs < lhs)
	// holds unless one of them is NaN.
	a.narrowOrder(lhs, rhs, op == "<", true, t, sc)
	a.narrowOrder(rhs, lhs, op == "<=", false, f, sc)
}

// narrowOrder narrows the numbers of lo < hi (lo <= hi unless strict) at
// st, where that order holds: it held, and then neither is NaN; or it is
// what a failed comparison leaves (held false), which a NaN also leaves,
// so that a side gets its bound from the other only when the other cannot
// be NaN, and neither loses its NaN.
func (a *analyzer) narrowOrder(lo, hi ast.Expr, strict, held bool, st *state, sc *flowScope) {
	if st.dead || !a.peekType(lo, st, sc).within(tNum) || !a.peekType(hi, st, sc).within(tNum) {
		return
	}
	x, y := a.numOf(lo, st, sc), a.numOf(hi, st, sc)
	if held || !y.nan {
		a.setNum(lo, st, sc, func(n num) num {
			n.nan = n.nan && !held
			bound := y.hi
			if strict && n.integral && !math.IsInf(bound, 0) {
				bound = math.Ceil(bound) - 1
			}
			n.hi = math.Min(n.hi, bound)
			return n
		})
	}
	if held || !x.nan {
		a.setNum(hi, st, sc, func(n num) num {
			n.nan = n.nan && !held
			bound := x.lo
			if strict && n.integral && !math.IsInf(bound, 0) {
				bound = math.Floor(bound) + 1
			}
			n.lo = math.Max(n.lo, bound)
			return n
		})
	}
}

// peekType is what expr would say of a local, a literal or arithmetic,
// without evaluating anything; tAny for the rest.
func (a *analyzer) peekType(e ast.Expr, st *state, sc *flowScope) typ {
	switch e := e.(type) {
	case *ast.NumberExpr, *ast.ArithmeticOpExpr, *ast.UnaryMinusOpExpr, *ast.UnaryLenOpExpr:
		return tNum
	case *ast.IdentExpr:
		if l := sc.lookup(e.Value); l != nil {
			return a.typeOf(st, l)
		}
	case *ast.AttrGetExpr:
		if ty, ok := a.element(e, st, sc); ok {
			return ty
		}
		if f, ok := a.recordField(e, st, sc); ok {
			return f.t
		}
	}
	return tAny
}

func isNumber(e ast.Expr, v float64) bool {
	n, ok := e.(*ast.NumberExpr)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	return err == nil && f == v
}

// setNum changes what is known of the local e names, if it is one.
func (a *analyzer) setNum(e ast.Expr, st *state, sc *flowScope, to func(num) num) {
	l := a.narrowable(e, st, sc)
	if l == nil {
		return
	}
	n, ok := st.nums[l]
	if !ok {
		n = anyNum
	}
	n = to(n)
	if n.lo > n.hi {
		// No number gets here: the path is impossible for numbers; keep
		// what was known rather than reason from a contradiction.
		return
	}
	st.nums[l] = n
}

// numsOf is what is known of the numbers among the values es give for
// len(ts) targets (nil: nothing), all taken before any target is set.
func (a *analyzer) numsOf(es []ast.Expr, ts []typ, st *state, sc *flowScope) []*num {
	out := make([]*num, len(ts))
	for i, ty := range ts {
		if e := exprAt(es, i); e != nil && ty&tNum != 0 && !st.dead {
			n := a.numOf(e, st, sc)
			out[i] = &n
		}
	}
	return out
}

// setNums records n for l, a local just set (nil: nothing known).
func (a *analyzer) setNums(l *local, n *num, st *state) {
	if st.dead {
		return
	}
	if n == nil {
		delete(st.nums, l)
		return
	}
	st.nums[l] = *n
}

// keyFact is what the run has shown of a key named KEYS[n]: the type it
// holds if it exists ("zset", "hash", "string"; "": not known), and that no write
// since a command on it succeeded may have deleted it (stable).
type keyFact struct {
	fam    string
	stable bool
	// holds: the key is a sorted set holding a member whose score is the
	// value of this local (a plain ZADD of it succeeded since, and nothing
	// that may have removed or moved it ran), so a removal of scores below
	// that value leaves it existing.
	holds *local
}

func (f keyFact) join(g keyFact) keyFact {
	if f.fam != g.fam {
		f.fam = ""
	}
	if f.holds != g.holds {
		f.holds = nil
	}
	return keyFact{fam: f.fam, stable: f.stable && g.stable, holds: f.holds}
}

// keyOf is "KEYS[n]" for an expression that is KEYS[n] or a local set
// once to it, when the script never changes KEYS; else "".
func (a *analyzer) keyOf(e ast.Expr, sc *flowScope) string {
	if a.escapes["KEYS"] || a.assigned["KEYS"] {
		return ""
	}
	if id, ok := e.(*ast.IdentExpr); ok {
		if l := sc.lookup(id.Value); l != nil && l.key != "" && !a.assigned[l.name] && !a.volatile[l.name] {
			return l.key
		}
		return ""
	}
	return keyRef(e)
}

// everyKey names the facts that hold of every KEYS element.
const everyKey = "every KEYS element"

// keysLoop names the key of the element of s when s is a generic for over
// ipairs(KEYS), the script never changing KEYS; else "".
func (a *analyzer) keysLoop(s *ast.GenericForStmt, sc *flowScope) string {
	if sym, ok := a.syms[s]; ok {
		return sym
	}
	sym := ""
	if call, ok := s.Exprs[0].(*ast.FuncCallExpr); ok && len(s.Exprs) == 1 && len(call.Args) == 1 {
		fn, isFn := call.Func.(*ast.IdentExpr)
		arg, isArg := call.Args[0].(*ast.IdentExpr)
		if isFn && isArg && fn.Value == "ipairs" && arg.Value == "KEYS" && sc.lookup("ipairs") == nil && sc.lookup("KEYS") == nil &&
			!a.escapes["KEYS"] && !a.assigned["KEYS"] {
			sym = fmt.Sprintf("the KEYS element of the loop at line %d", s.Line())
			for n := 2; slices.Contains(slices.Collect(maps.Values(a.syms)), sym); n++ {
				sym = fmt.Sprintf("the KEYS element of the loop at line %d (%d)", s.Line(), n) // two loops on one line
			}
		}
	}
	a.syms[s] = sym
	return sym
}

// argKind is what an argument of a sure command must be.
type argKind int

const (
	kMember argKind = iota // any string or number
	kScore                 // a number, not NaN, or a literal float
	kBound                 // a number, not NaN, or a literal range bound
	kIndex                 // an integer within ±2^53
	kMillis                // an integer in [1, 2^53]: the key keeps existing
	kWithScores
	kPX // the literal PX
)

// sureCmd is a command that cannot fail when its key (the first argument)
// holds fam's type or nothing (fam ""; any type), is stable,
// and its arguments after the key fit args; rest, when set, may repeat
// after them any number of times (none included).
type sureCmd struct {
	fam       string
	args      []argKind
	opt       []argKind // optional trailing arguments, all or none
	rest      []argKind
	write     bool
	mayDelete bool   // a write that may leave the key deleted
	makes     string // the type the key holds after it, when not fam
}

var sureCmds = map[string]sureCmd{
	"ZSCORE":           {fam: "zset", args: []argKind{kMember}},
	"ZCARD":            {fam: "zset"},
	"ZCOUNT":           {fam: "zset", args: []argKind{kBound, kBound}},
	"ZRANGE":           {fam: "zset", args: []argKind{kIndex, kIndex}, opt: []argKind{kWithScores}},
	"ZRANGEBYSCORE":    {fam: "zset", args: []argKind{kBound, kBound}, opt: []argKind{kWithScores}},
	"ZREM":             {fam: "zset", args: []argKind{kMember}, rest: []argKind{kMember}, write: true, mayDelete: true},
	"ZREMRANGEBYSCORE": {fam: "zset", args: []argKind{kBound, kBound}, write: true, mayDelete: true},
	"ZADD":             {fam: "zset", write: true}, // its options are checked apart
	"HGET":             {fam: "hash", args: []argKind{kMember}},
	"HMGET":            {fam: "hash", args: []argKind{kMember}, rest: []argKind{kMember}},
	"HLEN":             {fam: "hash"},
	"HEXISTS":          {fam: "hash", args: []argKind{kMember}},
	"HSET":             {fam: "hash", args: []argKind{kMember, kMember}, rest: []argKind{kMember, kMember}, write: true},
	"HMSET":            {fam: "hash", args: []argKind{kMember, kMember}, rest: []argKind{kMember, kMember}, write: true},
	"HDEL":             {fam: "hash", args: []argKind{kMember}, rest: []argKind{kMember}, write: true, mayDelete: true},
	"GET":              {fam: "string"},
	"STRLEN":           {fam: "string"},
	"SET":              {args: []argKind{kMember}, opt: []argKind{kPX, kMillis}, write: true, makes: "string"},
	"EXISTS":           {},
	"TYPE":             {},
	"PTTL":             {},
	"PEXPIRETIME":      {},
	"DEL":              {write: true, mayDelete: true},
	"PEXPIRE":          {args: []argKind{kMillis}, write: true},
}

var (
	floatLiteral = regexp.MustCompile(`^[-+]?(inf|[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)$`)
	boundLiteral = regexp.MustCompile(`^\(?[-+]?(inf|[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)$`)
	intLiteral   = regexp.MustCompile(`^-?[0-9]{1,15}$`)
)

// fits: the argument e, of type ty at st, fits kind k.
func (a *analyzer) fits(e ast.Expr, ty typ, k argKind, st *state, sc *flowScope) bool {
	if lit, ok := e.(*ast.StringExpr); ok {
		switch k {
		case kMember:
			return true
		case kScore:
			return floatLiteral.MatchString(lit.Value)
		case kBound:
			return boundLiteral.MatchString(lit.Value)
		case kIndex:
			return intLiteral.MatchString(lit.Value)
		case kWithScores:
			return strings.EqualFold(lit.Value, "withscores")
		case kPX:
			return strings.EqualFold(lit.Value, "px")
		}
		return false
	}
	if k == kMember {
		return ty.within(tText | tNum)
	}
	if k == kWithScores || k == kPX || !ty.within(tNum) {
		return false
	}
	n := a.numOf(e, st, sc)
	switch k {
	case kScore, kBound:
		return !n.nan
	case kIndex:
		return n.isSafeInt()
	case kMillis:
		return n.isSafeInt() && n.lo >= 1
	}
	return false
}

// zaddArgs checks ZADD's arguments after the key: options that go
// together, then score-member pairs.
func (a *analyzer) zaddArgs(es []ast.Expr, ts []typ, st *state, sc *flowScope) bool {
	i := 0
	seen := map[string]bool{}
	for ; i < len(es); i++ {
		lit, ok := es[i].(*ast.StringExpr)
		if !ok {
			break
		}
		o := strings.ToUpper(lit.Value)
		if o != "NX" && o != "XX" && o != "GT" && o != "LT" && o != "CH" {
			break
		}
		seen[o] = true
	}
	if seen["NX"] && (seen["XX"] || seen["GT"] || seen["LT"]) || seen["GT"] && seen["LT"] {
		return false
	}
	pairs := es[i:]
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		return false
	}
	for j := range pairs {
		k := kScore
		if j%2 == 1 {
			k = kMember
		}
		if !a.fits(pairs[j], ts[i+j], k, st, sc) {
			return false
		}
	}
	return true
}

// literalCommand is the command of e, a redis.call or redis.pcall, in
// upper case, when it is written out; else "".
func literalCommand(e *ast.FuncCallExpr) string {
	if len(e.Args) == 0 {
		return ""
	}
	if name, ok := e.Args[0].(*ast.StringExpr); ok {
		return strings.ToUpper(name.Value)
	}
	return ""
}

// sure reports whether e, a redis.call or redis.pcall with argument types
// args (the command included), cannot fail at st; if it may, why.
func (a *analyzer) sure(e *ast.FuncCallExpr, args []typ, st *state, sc *flowScope) (bool, string) {
	cmd := literalCommand(e)
	switch {
	case len(e.Args) == 0:
		return false, "a redis call without a command"
	case cmd == "":
		return false, "a command named at run time"
	}
	c, ok := sureCmds[cmd]
	if !ok {
		return false, cmd + ", which may fail"
	}
	if st.dead || len(e.Args) < 2 || lastMulti(e.Args) {
		return false, cmd + " with arguments the proof cannot count"
	}
	key := a.keyOf(e.Args[1], sc)
	f, known := st.keys[key]
	switch {
	case key == "":
		return false, cmd + " of a key other than KEYS[n] (written out, the script never changing KEYS)"
	case !known:
		return false, cmd + " of " + key + ", on which no command has succeeded before (it may be nil, or hold another type)"
	case !f.stable:
		return false, cmd + " of " + key + ", which a write of the run may have deleted (a cluster node refuses that while the slot migrates)"
	case c.fam != "" && c.fam != f.fam:
		return false, cmd + " of " + key + ", which the run has not shown to hold a " + map[string]string{"zset": "sorted set", "hash": "hash", "string": "string"}[c.fam] + " or nothing"
	}
	bad := cmd + " with arguments that may not suit (a score or bound that may be NaN, an index or TTL that may not be an integer in range, options that may clash)"
	es, ts := e.Args[2:], args[2:]
	if cmd == "ZADD" {
		if a.zaddArgs(es, ts, st, sc) {
			return true, ""
		}
		return false, bad
	}
	match := func(kinds []argKind) bool {
		if len(es) < len(kinds) {
			return false
		}
		for i, k := range kinds {
			if !a.fits(es[i], ts[i], k, st, sc) {
				return false
			}
		}
		es, ts = es[len(kinds):], ts[len(kinds):]
		return true
	}
	if !match(c.args) {
		return false, bad
	}
	if len(es) > 0 && c.opt != nil && !match(c.opt) {
		return false, bad
	}
	for len(es) > 0 && c.rest != nil {
		if !match(c.rest) {
			return false, bad
		}
	}
	if len(es) != 0 {
		return false, bad
	}
	return true, ""
}

// ran updates the key facts after e, a redis.call (raise: it returned, so
// it succeeded) or redis.pcall (it may have failed), wrote or read.
func (a *analyzer) ran(e *ast.FuncCallExpr, raise, write bool, args []typ, st *state, sc *flowScope) {
	if st.dead {
		return
	}
	cmd := literalCommand(e)
	key := ""
	if len(e.Args) > 1 {
		key = a.keyOf(e.Args[1], sc)
	}
	c, known := sureCmds[cmd]
	if write {
		if !known || key == "" || lastMulti(e.Args) {
			st.keys = map[string]keyFact{} // any key may have changed
			st.deleted = true
			return
		}
		mayDelete := c.mayDelete
		if cmd == "PEXPIRE" && (len(e.Args) != 3 || !a.fits(e.Args[2], args[2], kMillis, st, sc)) {
			mayDelete = true
		}
		old := st.keys[key]
		below := a.sweepsBelow(e, old.holds, st, sc)
		if below {
			mayDelete = false // what old.holds scores stays
		}
		if mayDelete {
			st.deleted = true
		}
		added := a.zaddScore(e, st, sc)
		// Another KEYS[n] may name the same key.
		for k, f := range st.keys {
			if k == key {
				continue
			}
			if t := famAfter(c, keyFact{}); t != "" && t != f.fam {
				f.fam = "" // it may now hold c's type
			}
			f.stable = f.stable && !mayDelete
			if !keepsScore(cmd, f.holds, added, below && f.holds == old.holds) {
				f.holds = nil
			}
			st.keys[k] = f
		}
		if !raise {
			delete(st.keys, key)
			return
		}
		holds := old.holds
		switch {
		case added != nil:
			holds = added
		case !keepsScore(cmd, holds, nil, below):
			holds = nil
		}
		st.keys[key] = keyFact{fam: famAfter(c, old), stable: !mayDelete, holds: holds}
		return
	}
	if !raise || !known || key == "" {
		return
	}
	old := st.keys[key]
	st.keys[key] = keyFact{fam: famAfter(c, old), stable: true, holds: old.holds}
}

// zaddScore is the local whose value every score of e is, when e is a
// ZADD that sets the score of every member it names (no option but CH),
// the value a number that is not NaN; else nil.
func (a *analyzer) zaddScore(e *ast.FuncCallExpr, st *state, sc *flowScope) *local {
	if literalCommand(e) != "ZADD" || len(e.Args) < 4 || lastMulti(e.Args) {
		return nil
	}
	i := 2
	if lit, ok := e.Args[i].(*ast.StringExpr); ok && strings.EqualFold(lit.Value, "CH") {
		i++
	}
	pairs := e.Args[i:]
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		return nil
	}
	var score *local
	for j := 0; j < len(pairs); j += 2 {
		l := a.narrowable(pairs[j], st, sc)
		if l == nil || score != nil && l != score || a.typeOf(st, l) != tNum || a.numOf(pairs[j], st, sc).nan {
			return nil
		}
		score = l
	}
	return score
}

// keepsScore: after cmd, a key that held a member scored by held (nil:
// nothing known) still does. A ZADD whose scores are all added keeps it
// (a member it moves gets that same score); reads, PEXPIRE and SET of
// other types cannot run on it without failing or are no removal; below:
// cmd removed scores below held's value only.
func keepsScore(cmd string, held, added *local, below bool) bool {
	switch {
	case held == nil:
		return true
	case cmd == "ZADD":
		return added == held
	case cmd == "PEXPIRE", cmd == "HSET", cmd == "HMSET":
		// A positive TTL (mayDelete said so), or a write that fails on a
		// sorted set.
		return true
	}
	return below
}

// sweepsBelow: e is ZREMRANGEBYSCORE key min (L - d), with held naming L, a
// local whose value is a number in [0, 2^53], and d a number of at least
// 1: it removes scores below L only, so a member scored L stays. In
// doubles too: subtraction rounds monotonically, so L - d <= L - 1 as
// computed, and L - 1 rounds below L there (it is exact from 2^52 up,
// within 2^-2 of L - 1 below). redis.call writes the bound with %.17g,
// which Redis reads back to the same double.
func (a *analyzer) sweepsBelow(e *ast.FuncCallExpr, held *local, st *state, sc *flowScope) bool {
	if held == nil || literalCommand(e) != "ZREMRANGEBYSCORE" || len(e.Args) != 4 {
		return false
	}
	sub, ok := e.Args[3].(*ast.ArithmeticOpExpr)
	if !ok || sub.Operator != "-" || a.narrowable(sub.Lhs, st, sc) != held || a.typeOf(st, held) != tNum {
		return false
	}
	l, d := a.numOf(sub.Lhs, st, sc), a.numOf(sub.Rhs, st, sc)
	return !l.nan && l.lo >= 0 && l.hi <= safeInt && !d.nan && d.lo >= 1 && a.peekType(sub.Rhs, st, sc).within(tNum)
}

// forgetScore drops what keys hold scored by l, now that l changed.
func forgetScore(l *local, st *state) {
	for k, f := range st.keys {
		if f.holds == l {
			f.holds = nil
			st.keys[k] = f
		}
	}
}

// famAfter is the type a key holds, if any, after c succeeded on it.
func famAfter(c sureCmd, old keyFact) string {
	if c.makes != "" {
		return c.makes
	}
	if c.fam != "" {
		return c.fam
	}
	return old.fam
}

// formatConv is one conversion of a string.format format: flags, width
// and precision as Lua 5.1 accepts them (at most two digits each), then
// the conversion.
var formatConv = regexp.MustCompile(`%[-+ #0]{0,5}[0-9]{0,2}(\.[0-9]{0,2})?([diouxXeEfgGcqs%])`)

// stringCallSafe: string.fn with these arguments (types args) cannot raise
// in Lua 5.1: string.format of a literal format whose conversions Lua
// accepts, with as many arguments, numbers for the numeric ones and
// strings or numbers for %s; string.len, lower, upper of a string or a
// number; string.sub of one and numbers.
func stringCallSafe(fn string, es []ast.Expr, args []typ) bool {
	if lastMulti(es) || len(args) == 0 || !args[0].within(tText|tNum) {
		return false
	}
	switch fn {
	case "len", "lower", "upper":
		return len(args) == 1
	case "sub":
		return (len(args) == 2 || len(args) == 3) && args[1].within(tArith) && (len(args) == 2 || args[2].within(tArith))
	case "format":
		lit, ok := es[0].(*ast.StringExpr)
		if !ok {
			return false
		}
		rest := lit.Value
		var convs []byte
		for {
			i := strings.IndexByte(rest, '%')
			if i < 0 {
				break
			}
			m := formatConv.FindStringSubmatchIndex(rest[i:])
			if m == nil || m[0] != 0 {
				return false // an option Lua refuses
			}
			if c := rest[i+m[4]]; c != '%' {
				convs = append(convs, c)
			}
			rest = rest[i+m[1]:]
		}
		if len(convs) != len(args)-1 {
			return false
		}
		for k, c := range convs {
			t := args[k+1]
			switch c {
			case 's', 'q':
				if !t.within(tText | tNum) {
					return false
				}
			default: // numeric, and %c
				if !t.within(tArith) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// typeNames are the types type() names, as sets of typ.
var typeNames = map[string]typ{
	"nil": tNil, "boolean": tBool, "number": tNum, "string": tText, "table": tTable, "function": tFunc,
}

// narrowType narrows x after type(x) == 'name' (or ~=) held or did not:
// where it held x is of that type, where it did not it is not.
func (a *analyzer) narrowType(e *ast.RelationalOpExpr, t, f *state, sc *flowScope) {
	if e.Operator != "==" && e.Operator != "~=" {
		return
	}
	call, ok := e.Lhs.(*ast.FuncCallExpr)
	lit, isLit := e.Rhs.(*ast.StringExpr)
	if !ok || !isLit || len(call.Args) != 1 || call.Receiver != nil {
		return
	}
	if id, ok := call.Func.(*ast.IdentExpr); !ok || id.Value != "type" || sc.lookup("type") != nil {
		return
	}
	want, ok := typeNames[lit.Value]
	if !ok {
		return
	}
	eq, ne := t, f
	if e.Operator == "~=" {
		eq, ne = f, t
	}
	a.refine(call.Args[0], eq, sc, func(x typ) typ { return x & want })
	a.refine(call.Args[0], ne, sc, func(x typ) typ { return x &^ want })
}
