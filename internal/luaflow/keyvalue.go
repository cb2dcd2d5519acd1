package luaflow

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// origin is where a value comes from, as far as key-source cares. The
// order matters: joining two values keeps the worse origin.
type origin uint8

const (
	oNone       origin = iota // nothing assigned yet, or nil
	oKey                      // a KEYS element, as passed
	oKeyDerived               // a string that starts with a KEYS element
	oParam                    // depends on a parameter: checked where the function is called
	oOther                    // ARGV, literals, replies, arithmetic…
)

// kind marks the values the analysis follows: the tables and functions of
// Redis's environment, the script's own functions and tables.
type kind uint8

const (
	kPlain    kind = iota
	kKeys          // the KEYS table, or a Functions callback's first parameter
	kArgv          // ARGV, or the callback's second parameter
	kRedis         // the redis table
	kCall          // redis.call / redis.pcall
	kRegister      // redis.register_function
	kLib           // a library table: string, table, _G…
	kBuiltin       // a function of the environment; name says which
	kFunc          // a Lua function of the script, followed into when called
	kTable         // a table the script built; tbl holds what went in
)

type value struct {
	o     origin
	why   string // what the value is built from, for messages
	key   int    // oKey: the literal KEYS index, 0 when computed
	lit   string // the text of a constant string or number
	isLit bool
	// alts holds the constants a variable may hold when it is assigned
	// several ("\x00"-separated, sorted, a few at most): a command name
	// chosen between LPUSH and RPUSH is checked as both.
	alts  string
	k     kind
	name  string // kLib, kBuiltin, kCall: which one
	fn    *fnInfo
	tbl   *tableInfo
	multi bool // may expand to several values (…, unpack, a call in last position)
	// stored: an oParam value read from a field of an unknown object,
	// whose every store starts with pfx (namedField).
	stored bool
	// pfx is the literal text a value built by .. starts with: for an
	// oParam value, whatever the parameter is, no KEYS element as passed.
	pfx string
}

type tableInfo struct {
	elem value // every value stored in the table, joined
	read bool  // read in this pass
	// fields are the values stored under each constant string key, joined;
	// anyKey is set once a store's key is not constant, and fields may
	// then miss what a read finds.
	fields map[string]value
	anyKey bool
}

func (t *tableInfo) markRead() bool {
	t.read = true
	return true
}

var nilValue = value{why: "nil"}

// unknown is a value already reported (an undefined name): it must not
// cascade into key findings.
func unknown(why string) value { return value{o: oParam, why: why} }

func other(why string) value { return value{o: oOther, why: why} }

func literal(text, why string) value { return value{o: oOther, why: why, lit: text, isLit: true} }

// join is the value of a variable assigned a and b.
func join(a, b value) value {
	if a.o == oNone && a.k == kPlain && !a.isLit {
		return b
	}
	if b.o == oNone && b.k == kPlain && !b.isLit {
		return a
	}
	r := a
	if b.o > r.o {
		r.o, r.why = b.o, b.why
	}
	if a.key != b.key {
		r.key = 0
	}
	if !a.isLit || !b.isLit || a.lit != b.lit {
		r.alts = joinAlts(a.constants(), b.constants())
		r.isLit, r.lit = false, ""
	}
	if a.k != b.k || a.fn != b.fn || a.tbl != b.tbl || a.name != b.name {
		r.k, r.fn, r.tbl, r.name = kPlain, nil, nil, ""
		if r.o < oOther && (a.k != kPlain || b.k != kPlain) {
			r.o, r.why = oOther, "a value of several kinds"
		}
	}
	r.multi = a.multi || b.multi
	if a.pfx == "" || b.pfx == "" {
		r.pfx = "" // one side may be a parameter as passed, a KEYS element
	}
	return r
}

const maxAlts = 4

// constants lists the constant strings v may be; nil when it may be
// anything else.
func (v value) constants() []string {
	switch {
	case v.isLit:
		return []string{v.lit}
	case v.alts != "":
		return strings.Split(v.alts, "\x00")
	}
	return nil
}

func joinAlts(a, b []string) string {
	if a == nil || b == nil {
		return ""
	}
	set := append(append([]string(nil), a...), b...)
	sort.Strings(set)
	set = slices.Compact(set)
	if len(set) > maxAlts {
		return ""
	}
	return strings.Join(set, "\x00")
}

// single is v as one value: a multi-value expression cut to its first.
func (v value) single() value {
	v.multi = false
	return v
}

// index returns the literal integer v holds.
func (v value) index() (int, bool) {
	if !v.isLit {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.lit, 64)
	if err != nil || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// concat is the value of l .. r. The result keeps a KEYS element's slot
// when that element comes first, or follows only literal text without a
// '{' (which could open another hash tag).
func concat(l, r value) value {
	var out value
	switch {
	case l.o == oParam:
		out = value{o: oParam, why: pick(l, r, oParam), pfx: l.pfx}
	case r.o == oParam && l.isLit:
		out = value{o: oParam, why: r.why, pfx: l.lit}
	case l.o == oKey || l.o == oKeyDerived:
		out = value{o: oKeyDerived, why: l.why}
	case l.isLit && !strings.Contains(l.lit, "{") && (r.o == oKey || r.o == oKeyDerived):
		out = value{o: oKeyDerived, why: r.why}
	case r.o == oParam:
		out = value{o: oParam, why: r.why}
	default:
		out = other(pick(l, r, oOther))
	}
	if out.pfx == "" && l.isLit && out.o == oOther {
		out.pfx = l.lit
	}
	if l.isLit && r.isLit {
		out.lit, out.isLit = l.lit+r.lit, true
		out.why = "the literal " + strconv.Quote(out.lit)
	}
	return out
}

// pick explains a combined value by its most telling part: not a literal.
func pick(l, r value, o origin) string {
	for _, v := range []value{l, r} {
		if v.o == o && !v.isLit && v.why != "" {
			return v.why
		}
	}
	for _, v := range []value{l, r} {
		if v.o == o && v.why != "" {
			return v.why
		}
	}
	return "a computed value"
}

// exprText renders short expressions for messages: KEYS[1], ARGV[2], id.
func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.IdentExpr:
		return e.Value
	case *ast.NumberExpr:
		return e.Value
	case *ast.StringExpr:
		return strconv.Quote(e.Value)
	case *ast.AttrGetExpr:
		if s, ok := e.Key.(*ast.StringExpr); ok && plainName(s.Value) {
			return exprText(e.Object) + "." + s.Value
		}
		return exprText(e.Object) + "[" + exprText(e.Key) + "]"
	}
	return "…"
}

// plainName: s can follow a dot (a Lua name, keywords aside).
func plainName(s string) bool {
	return s != "" && (s[0] < '0' || s[0] > '9') && strings.TrimLeft(s, nameChars) == ""
}

const nameChars = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
