package lint

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptgen/scriptgen/internal/script"
)

// Rule describes one check.
type Rule struct {
	Name    string
	Summary string
	Example string // a line that triggers it
}

// Rules lists every check, in the order `scriptgen help lint` shows them.
var Rules = []Rule{
	{"header", "the --! header must parse: known keys, names, types, defaults and flags", "--! arg: limit integer"},
	{"syntax", "the body must be valid Lua 5.1", "local x = = 1"},
	{"keys-declared", "KEYS indexes must be within the declared key: lines, and every declared key used", "redis.call('GET', KEYS[2]) -- with one key: line"},
	{"args", "ARGV indexes must be within the declared arg: lines, and every declared arg read", "local n = tonumber(ARGV[3]) -- with two arg: lines"},
	{"globals", "no assignment to globals (Redis refuses it at run time) and no names outside Redis's script environment", "count = 1"},
}

// Finding is one problem.
type Finding struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Rule string `json:"rule"`
	Msg  string `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s (%s)", f.Path, f.Line, f.Col, f.Msg, f.Rule)
}

// Environment is every global a script may read on Redis 7: the libraries
// Redis loads and the base functions it keeps.
var Environment = names(
	"KEYS", "ARGV", "redis", "cjson", "bit", "struct", "cmsgpack",
	"string", "table", "math", "_G", "_VERSION",
	"assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
	"rawequal", "rawget", "rawset", "select", "setmetatable", "tonumber",
	"tostring", "type", "unpack", "xpcall", "gcinfo", "loadstring", "print",
	"coroutine",
)

func names(ns ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// Script lints one parsed script; its header has already been checked.
func Script(s *script.Script) []Finding {
	chunk, err := s.Chunk()
	if err != nil {
		e := err.(*script.Error)
		return []Finding{{Path: e.Path, Line: e.Line, Col: max(e.Col, 1), Rule: "syntax", Msg: e.Msg}}
	}
	l := &linter{s: s, lines: strings.Split(s.Body, "\n"), usedKeys: map[int]bool{}, usedArgs: map[int]bool{}}
	l.block(chunk, newScope(nil))
	l.unused()
	sort.SliceStable(l.out, func(i, j int) bool {
		if l.out[i].Line != l.out[j].Line {
			return l.out[i].Line < l.out[j].Line
		}
		return l.out[i].Col < l.out[j].Col
	})
	return l.out
}

// Header turns header errors into findings.
func Header(errs script.ErrorList) []Finding {
	out := make([]Finding, 0, len(errs))
	for _, e := range errs {
		rule := "header"
		if strings.HasPrefix(e.Msg, "lua: ") {
			rule = "syntax"
		}
		out = append(out, Finding{Path: e.Path, Line: e.Line, Col: e.Col, Rule: rule, Msg: e.Msg})
	}
	return out
}

type scope struct {
	parent *scope
	names  map[string]bool
}

func newScope(parent *scope) *scope { return &scope{parent: parent, names: map[string]bool{}} }

func (s *scope) has(n string) bool {
	for ; s != nil; s = s.parent {
		if s.names[n] {
			return true
		}
	}
	return false
}

type linter struct {
	s     *script.Script
	lines []string
	out   []Finding

	usedKeys, usedArgs map[int]bool
	// dynamic is set when KEYS or ARGV is indexed by something other than a
	// literal, or passed whole (ipairs(KEYS), unpack(ARGV)): every element
	// may then be used, so "declared but unused" is not reported.
	dynamicKeys, dynamicArgs bool
	// assigned globals are reported once, where they are assigned.
	assigned map[string]bool
}

func (l *linter) report(line int, needle, rule, format string, args ...any) {
	l.out = append(l.out, Finding{Path: l.s.Path, Line: line, Col: l.col(line, needle), Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

// col finds needle on the line as a whole word; 1 when it cannot.
func (l *linter) col(line int, needle string) int {
	if line < 1 || line > len(l.lines) || needle == "" {
		return 1
	}
	text := l.lines[line-1]
	for from := 0; ; {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			return 1
		}
		i += from
		before := i == 0 || !isWord(text[i-1])
		end := i + len(needle)
		after := end >= len(text) || !isWord(text[end]) || !isWord(needle[len(needle)-1])
		if !isWord(needle[0]) {
			before = true
		}
		if before && after {
			return i + 1
		}
		from = i + 1
	}
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (l *linter) block(stmts []ast.Stmt, sc *scope) {
	for _, st := range stmts {
		l.stmt(st, sc)
	}
}

func (l *linter) stmt(st ast.Stmt, sc *scope) {
	switch st := st.(type) {
	case *ast.LocalAssignStmt:
		// `local function f` must see itself for recursion; `local x = x`
		// must not.
		if len(st.Names) == 1 && len(st.Exprs) == 1 {
			if _, ok := st.Exprs[0].(*ast.FunctionExpr); ok {
				sc.names[st.Names[0]] = true
			}
		}
		l.exprs(st.Exprs, sc)
		for _, n := range st.Names {
			sc.names[n] = true
		}
	case *ast.AssignStmt:
		l.exprs(st.Rhs, sc)
		for _, lhs := range st.Lhs {
			if id, ok := lhs.(*ast.IdentExpr); ok {
				if !sc.has(id.Value) {
					l.assign(id.Value)
					l.report(st.Line(), id.Value, "globals", "assignment to global %s: Redis refuses it (Attempt to modify a readonly table); declare it local", id.Value)
				}
				continue
			}
			l.expr(lhs, sc)
		}
	case *ast.FuncCallStmt:
		l.expr(st.Expr, sc)
	case *ast.DoBlockStmt:
		l.block(st.Stmts, newScope(sc))
	case *ast.WhileStmt:
		l.expr(st.Condition, sc)
		l.block(st.Stmts, newScope(sc))
	case *ast.RepeatStmt:
		inner := newScope(sc)
		l.block(st.Stmts, inner)
		l.expr(st.Condition, inner)
	case *ast.IfStmt:
		l.expr(st.Condition, sc)
		l.block(st.Then, newScope(sc))
		l.block(st.Else, newScope(sc))
	case *ast.NumberForStmt:
		l.exprs([]ast.Expr{st.Init, st.Limit, st.Step}, sc)
		inner := newScope(sc)
		inner.names[st.Name] = true
		l.block(st.Stmts, inner)
	case *ast.GenericForStmt:
		l.exprs(st.Exprs, sc)
		inner := newScope(sc)
		for _, n := range st.Names {
			inner.names[n] = true
		}
		l.block(st.Stmts, inner)
	case *ast.FuncDefStmt:
		if id, ok := st.Name.Func.(*ast.IdentExpr); ok && st.Name.Receiver == nil {
			if !sc.has(id.Value) {
				l.assign(id.Value)
				l.report(st.Line(), id.Value, "globals", "function %s defines a global: Redis refuses it; write `local function %s`", id.Value, id.Value)
			}
		} else {
			l.expr(st.Name.Func, sc)
			l.expr(st.Name.Receiver, sc)
		}
		l.function(st.Func, sc, st.Name.Method != "")
	case *ast.ReturnStmt:
		l.exprs(st.Exprs, sc)
	}
}

func (l *linter) assign(name string) {
	if l.assigned == nil {
		l.assigned = map[string]bool{}
	}
	l.assigned[name] = true
}

func (l *linter) function(f *ast.FunctionExpr, sc *scope, method bool) {
	inner := newScope(sc)
	if method {
		inner.names["self"] = true
	}
	for _, n := range f.ParList.Names {
		inner.names[n] = true
	}
	l.block(f.Stmts, inner)
}

func (l *linter) exprs(es []ast.Expr, sc *scope) {
	for _, e := range es {
		l.expr(e, sc)
	}
}

func (l *linter) expr(e ast.Expr, sc *scope) {
	switch e := e.(type) {
	case nil:
	case *ast.IdentExpr:
		switch {
		case sc.has(e.Value):
		case e.Value == "KEYS":
			l.dynamicKeys = true
		case e.Value == "ARGV":
			l.dynamicArgs = true
		case !Environment[e.Value] && !l.assigned[e.Value]:
			l.report(e.Line(), e.Value, "globals", "undefined name %s: not a local and not in Redis's script environment", e.Value)
		}
	case *ast.AttrGetExpr:
		if id, ok := e.Object.(*ast.IdentExpr); ok && !sc.has(id.Value) && (id.Value == "KEYS" || id.Value == "ARGV") {
			l.index(id.Value, e)
			l.expr(e.Key, sc)
			return
		}
		l.expr(e.Object, sc)
		l.expr(e.Key, sc)
	case *ast.FuncCallExpr:
		l.expr(e.Func, sc)
		l.expr(e.Receiver, sc)
		l.exprs(e.Args, sc)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			l.expr(f.Key, sc)
			l.expr(f.Value, sc)
		}
	case *ast.LogicalOpExpr:
		l.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.RelationalOpExpr:
		l.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.StringConcatOpExpr:
		l.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.ArithmeticOpExpr:
		l.exprs([]ast.Expr{e.Lhs, e.Rhs}, sc)
	case *ast.UnaryMinusOpExpr:
		l.expr(e.Expr, sc)
	case *ast.UnaryNotOpExpr:
		l.expr(e.Expr, sc)
	case *ast.UnaryLenOpExpr:
		l.expr(e.Expr, sc)
	case *ast.FunctionExpr:
		l.function(e, sc, false)
	}
}

// index checks KEYS[i] / ARGV[i] against the header.
func (l *linter) index(table string, e *ast.AttrGetExpr) {
	num, ok := e.Key.(*ast.NumberExpr)
	n, err := 0, error(nil)
	if ok {
		n, err = strconv.Atoi(num.Value)
	}
	if !ok || err != nil {
		if table == "KEYS" {
			l.dynamicKeys = true
		} else {
			l.dynamicArgs = true
		}
		return
	}
	var declared int
	var variadic bool
	var rule, what string
	if table == "KEYS" {
		declared, variadic, rule, what = len(l.s.Keys), l.s.VariadicKeys(), "keys-declared", "key:"
		l.usedKeys[n] = true
	} else {
		declared = len(l.s.Args)
		variadic = declared > 0 && l.s.Args[declared-1].Variadic
		rule, what = "args", "arg:"
		l.usedArgs[n] = true
	}
	needle := table + "[" + num.Value + "]"
	if l.col(e.Line(), needle) == 1 {
		needle = table
	}
	switch {
	case n < 1:
		l.report(e.Line(), needle, rule, "%s[%d] is always nil: Lua arrays start at 1", table, n)
	case n > declared && !variadic:
		l.report(e.Line(), needle, rule, "%s[%d] is beyond the header's %d %s line(s); declare it", table, n, declared, what)
	}
}

func (l *linter) unused() {
	if !l.dynamicKeys {
		for i, k := range l.s.Keys {
			if !l.usedKeys[i+1] && !k.Variadic {
				l.out = append(l.out, Finding{Path: l.s.Path, Line: k.Pos.Line, Col: k.Pos.Col, Rule: "keys-declared",
					Msg: fmt.Sprintf("key %s (KEYS[%d]) is declared but never used", k.Name, i+1)})
			}
		}
	}
	if !l.dynamicArgs {
		for i, a := range l.s.Args {
			if !l.usedArgs[i+1] && !a.Variadic {
				l.out = append(l.out, Finding{Path: l.s.Path, Line: a.Pos.Line, Col: a.Pos.Col, Rule: "args",
					Msg: fmt.Sprintf("arg %s (ARGV[%d]) is declared but never read", a.Name, i+1)})
			}
		}
	}
}
