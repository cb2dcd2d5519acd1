package script

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// Scripts written before scriptgen have no header; their contract is read
// from the body instead, so that every stage can start on them at once:
//
//   - the KEYS and ARGV indexes the body (and the files it splices in with
//     `--- @include`) reads with a constant index; any other use of the
//     tables (KEYS[i], #ARGV, unpack(KEYS)) adds a variadic tail;
//   - BullMQ's `name-N.lua` convention: the caller passes N keys, read or
//     not;
//   - names from the locals the elements are assigned to (`local jobKey =
//     KEYS[1]` → job_key), else from the leading comment's
//     `KEYS[1] 'wait'` lines, else key1, arg1…;
//   - arg types from use: tonumber → int (float when floored or compared
//     with a fraction), cjson.decode → json, cmsgpack.unpack → bytes,
//     compared with '' → a default of "" (`arg: now int = ""`).
//
// Everything inferred is a guess the author confirms by writing it down
// (`scriptgen annotate`); until then Script.Inferred is set.

// Unread starts the doc of an inferred key or arg the body never reads:
// one the file name promises, or below an index that is read.
const Unread = "not read by the script"

var (
	fileKeysRE = regexp.MustCompile(`^(.*)-([0-9]+)$`)
	// A leading comment's `KEYS[2] 'paused'` or `ARGV[1] msgpacked
	// arguments array`: up to three words, the first a letter.
	commentNameRE = regexp.MustCompile(`^(?:--+)?\s*(KEYS|ARGV)\[([0-9]+)\]\s*(?:->|[:=,-])?\s*['"]?([A-Za-z][A-Za-z0-9_]*(?: [A-Za-z][A-Za-z0-9_]*){0,2})`)
	// asynq's `KEYS[1] -> asynq:{<qname>}:t:<task_id>`: a key's pattern,
	// named by its last word.
	commentPatternRE = regexp.MustCompile(`^(?:--+)?\s*KEYS\[([0-9]+)\]\s*(?:->|[:=-])?\s*\S*:\S*?([A-Za-z][A-Za-z0-9_]*)\W*$`)
)

// NameOf turns a file's base name (without .lua) into a script name and
// the number of keys its `name-N` suffix promises (0 without one):
// addStandardJob-9 → add_standard_job, 9.
func NameOf(base string) (name string, keys int) {
	if m := fileKeysRE.FindStringSubmatch(base); m != nil {
		if n, err := strconv.Atoi(m[2]); err == nil && n < 1<<16 {
			base, keys = m[1], n
		}
	}
	switch name = Snake(base); {
	case name == "":
		name = "script"
	case !identRE.MatchString(name):
		name = "script_" + name // a leading digit
	}
	return name, keys
}

// Snake turns a Lua or file name (jobKey, add-standard-job, HTTPServer2)
// into lower snake_case; "" when it holds no letter or digit.
func Snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	under := false
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			upper := unicode.IsUpper(r)
			if upper && i > 0 && b.Len() > 0 && !under {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(unicode.ToLower(r))
		default:
			under = true
		}
	}
	return b.String()
}

// use is what the body does with one KEYS or ARGV element.
type use struct {
	read     bool
	local    string // the local it is assigned to
	comment  string // its name in the leading comment
	number   bool
	float    bool
	optional bool
	json     bool
	bytes    bool
}

type table struct {
	at  map[int]*use
	all bool // read in a way no constant index describes
	max int
}

func (t *table) get(n int) *use {
	u := t.at[n]
	if u == nil {
		u = &use{}
		t.at[n] = u
	}
	t.max = max(t.max, n)
	return u
}

type inference struct {
	keys, argv table
	parent     map[ast.PositionHolder]ast.PositionHolder
	alias      map[string]*use // locals assigned an ARGV element
}

// Infer returns a copy of s whose Name, Keys and Args are the ones its
// body implies, whatever its header says: what `scriptgen annotate`
// writes down, or completes a header with.
func Infer(s *Script) *Script {
	c := *s
	var helpers []*Lua
	if s.ld != nil && s.Lua != nil {
		helpers = s.ld.spliced(s.Lua)
	}
	if s.Lua != nil && s.Lua.Syntax == nil {
		c.infer(helpers)
	}
	return &c
}

// infer sets the contract of a script without a header from its body and
// helpers, the Lua of the files it splices in.
func (s *Script) infer(helpers []*Lua) {
	in := &inference{keys: table{at: map[int]*use{}}, argv: table{at: map[int]*use{}}}
	in.comments(s)
	for _, l := range append([]*Lua{s.Lua}, helpers...) {
		if l != nil && l.AST != nil {
			in.read(l.AST)
		}
	}
	_, fileKeys := NameOf(strings.TrimSuffix(baseName(s.Path), ".lua"))
	s.Inferred = true
	s.Keys = nil
	names := map[string]bool{}
	for i := 1; i <= max(in.keys.max, fileKeys); i++ {
		u := in.keys.at[i]
		k := Key{Name: pick(names, u, "key", i)}
		if u == nil || !u.read {
			k.Doc = Unread + ": its file name promises the caller passes it"
		}
		s.Keys = append(s.Keys, k)
	}
	if in.keys.all {
		s.Keys = append(s.Keys, Key{Name: pick(names, nil, "keys", 0), Variadic: true})
	}
	s.Args = nil
	names = map[string]bool{}
	for i := 1; i <= in.argv.max; i++ {
		u := in.argv.at[i]
		a := Arg{Name: pick(names, u, "arg", i), Type: String}
		if u != nil {
			// Compared with '': the script reads "" as absent, so the
			// wrapper sends "" then, whether more args follow or not.
			a.Type, a.HasDefault = u.argType(), u.optional
		}
		if u == nil || !u.read {
			a.Doc = Unread
		}
		s.Args = append(s.Args, a)
	}
	if in.argv.all {
		s.Args = append(s.Args, Arg{Name: pick(names, nil, "args", 0), Type: String, Variadic: true})
	}
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// pick names element i of a table: its local, its comment, else prefix+i;
// each name once.
func pick(taken map[string]bool, u *use, prefix string, i int) string {
	var cands []string
	if u != nil {
		cands = append(cands, Snake(u.local), Snake(u.comment))
	}
	fallback := prefix
	if i > 0 {
		fallback = fmt.Sprintf("%s%d", prefix, i)
	}
	cands = append(cands, fallback)
	for _, c := range cands {
		if identRE.MatchString(c) && !taken[c] {
			taken[c] = true
			return c
		}
	}
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s_%d", fallback, n); !taken[c] {
			taken[c] = true
			return c
		}
	}
}

func (u *use) argType() Type {
	switch {
	case u.json:
		return JSON
	case u.bytes:
		return Bytes
	case u.float:
		return Float
	case u.number:
		return Int
	}
	return String
}

// comments reads element names from the comments before the first line of
// code, where BullMQ and others list their KEYS and ARGV.
func (in *inference) comments(s *Script) {
	code := 0
	if len(s.Lua.AST) > 0 {
		code = s.Lua.AST[0].Line()
	}
	for i, line := range strings.Split(s.Body, "\n") {
		if code > 0 && i+1 >= code {
			break
		}
		line = strings.TrimSpace(line)
		m := commentNameRE.FindStringSubmatch(line)
		if p := commentPatternRE.FindStringSubmatch(line); p != nil {
			m = []string{p[0], "KEYS", p[1], p[2]}
		}
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil || n < 1 || n > 1<<12 {
			continue
		}
		t := &in.keys
		if m[1] == "ARGV" {
			t = &in.argv
		}
		if u := t.at[n]; u == nil || u.comment == "" {
			u := t.at[n]
			if u == nil {
				u = &use{}
				t.at[n] = u // not read: max is left to the body
			}
			u.comment = m[3]
		}
	}
}

func (in *inference) read(stmts []ast.Stmt) {
	in.parent = map[ast.PositionHolder]ast.PositionHolder{}
	in.alias = map[string]*use{}
	var elems []*ast.AttrGetExpr
	var idents []*ast.IdentExpr
	Inspect(stmts, func(n, parent ast.PositionHolder) {
		in.parent[n] = parent
		switch n := n.(type) {
		case *ast.AttrGetExpr:
			if tableName(n.Object) != "" {
				elems = append(elems, n)
			}
		case *ast.IdentExpr:
			idents = append(idents, n)
		}
	})
	for _, e := range elems {
		in.element(e)
	}
	for _, id := range idents {
		if id.Value == "KEYS" || id.Value == "ARGV" {
			if p, ok := in.parent[id].(*ast.AttrGetExpr); !ok || p.Object != id {
				in.tableOf(id.Value).all = true // #KEYS, unpack(ARGV), f(KEYS)
			}
			continue
		}
		if u := in.alias[id.Value]; u != nil {
			in.value(u, id)
		}
	}
}

func tableName(e ast.Expr) string {
	if id, ok := e.(*ast.IdentExpr); ok && (id.Value == "KEYS" || id.Value == "ARGV") {
		return id.Value
	}
	return ""
}

func (in *inference) tableOf(name string) *table {
	if name == "KEYS" {
		return &in.keys
	}
	return &in.argv
}

func (in *inference) element(e *ast.AttrGetExpr) {
	t := in.tableOf(tableName(e.Object))
	num, ok := e.Key.(*ast.NumberExpr)
	n, err := 0, error(nil)
	if ok {
		n, err = strconv.Atoi(num.Value)
	}
	if !ok || err != nil || n < 1 || n > 1<<12 {
		t.all = true
		return
	}
	u := t.get(n)
	u.read = true
	in.value(u, e)
}

// value reads what the expression holding an element (or a local assigned
// one) does with it, climbing through the calls that convert it.
func (in *inference) value(u *use, e ast.Expr) {
	var cur ast.PositionHolder = e
	for range 4 {
		p := in.parent[cur]
		switch p := p.(type) {
		case *ast.FuncCallExpr:
			if len(p.Args) == 0 || p.Args[0] != cur {
				return
			}
			switch callee(p) {
			case "tonumber":
				u.number = true
			case "math.floor", "math.ceil":
				if u.number {
					u.float = true
				}
			case "cjson.decode":
				u.json = true
			case "cmsgpack.unpack":
				u.bytes = true
			default:
				return
			}
			cur = p
		case *ast.RelationalOpExpr:
			other := p.Rhs
			if other == cur {
				other = p.Lhs
			}
			switch o := other.(type) {
			case *ast.StringExpr:
				u.optional = u.optional || (o.Value == "" && (p.Operator == "==" || p.Operator == "~="))
			case *ast.NumberExpr:
				u.float = u.float || (u.number && strings.ContainsAny(o.Value, ".eE"))
			}
			return
		case *ast.ArithmeticOpExpr:
			other := p.Rhs
			if other == cur {
				other = p.Lhs
			}
			if o, ok := other.(*ast.NumberExpr); ok && u.number && strings.ContainsAny(o.Value, ".eE") {
				u.float = true
			}
			return
		case *ast.LogicalOpExpr:
			cur = p // `tonumber(ARGV[2]) or 0`
		case *ast.LocalAssignStmt:
			for i, x := range p.Exprs {
				if x == cur && i < len(p.Names) {
					if u.local == "" {
						u.local = p.Names[i]
					}
					in.alias[p.Names[i]] = u
				}
			}
			return
		default:
			return
		}
	}
}

// callee names a call's function when it is a global or a library field.
func callee(c *ast.FuncCallExpr) string {
	switch f := c.Func.(type) {
	case *ast.IdentExpr:
		return f.Value
	case *ast.AttrGetExpr:
		lib, ok1 := f.Object.(*ast.IdentExpr)
		key, ok2 := f.Key.(*ast.StringExpr)
		if ok1 && ok2 {
			return lib.Value + "." + key.Value
		}
	}
	return ""
}
