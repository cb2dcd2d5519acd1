package luatest

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"

	"github.com/scriptgen/scriptgen/gen/bundle"
	"github.com/scriptgen/scriptgen/internal/script"
)

// MaxSleep bounds the real time clock.advance may sleep per test file on a
// real Redis, so that a test written for the virtual clock cannot hang a run.
const MaxSleep = 10 * time.Second

// Options configure a run.
type Options struct {
	Run      *regexp.Regexp // test names to run; nil runs all
	Verbose  bool
	JSON     bool   // go test -json's event stream instead of text
	RedisURL string // empty: the embedded engine
	// Transactional runs every script as if its header said
	// `flags: transactional`: wrapped in the rollback prelude, as gen
	// bundles it, so that a library's own tests show the prelude changes
	// nothing of a script that does not fail.
	Transactional bool
	Out           io.Writer
}

// Result counts what ran.
type Result struct {
	Files, Passed, Failed, Skipped int
	// Syntax counts the failures that were Lua syntax errors, in a test
	// file or in a script it tests: the command line exits 2 for those, as
	// lint does.
	Syntax int
}

// target is where commands and scripts run.
type target interface {
	do(args ...string) (any, error)
	advance(d time.Duration) error
	set(ms int64) error
	now() (int64, error) // ms since the epoch
	reset() error        // an empty keyspace for the next test
	// eval runs a script the target has not cached: cmd is its EVALSHA
	// command, by the shipped text's SHA-1.
	eval(b bundled, cmd []string) (any, error)
	close()
}

// Run runs the test files. err is for what stops a run before tests can
// tell anything (an unreachable Redis); failing tests only count in Result.
func Run(files []string, opts Options) (Result, error) {
	var res Result
	// Test files of one directory test its scripts: read them once.
	ld := script.NewLoader(nil)
	for _, f := range files {
		if err := runFile(f, opts, ld, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func newTarget(opts Options) (target, error) {
	if opts.RedisURL == "" {
		return newEngineTarget(), nil
	}
	return newRedisTarget(opts.RedisURL)
}

type fileRun struct {
	opts    Options
	ld      *script.Loader
	path    string
	tgt     target
	scripts map[string]*script.Script
	slept   time.Duration
	rep     *reporter

	// per test
	failures []string
	logs     []string
}

func runFile(path string, opts Options, ld *script.Loader, res *Result) error {
	start := time.Now()
	res.Files++
	tgt, err := newTarget(opts)
	if err != nil {
		return err
	}
	defer tgt.close()
	rep := &reporter{w: opts.Out, json: opts.JSON, pkg: path}
	fr := &fileRun{opts: opts, ld: ld, path: path, tgt: tgt, scripts: map[string]*script.Script{}, rep: rep}

	rep.action("start", "", 0)
	ok := fr.run(res)
	status, action := "ok  ", "pass"
	if !ok {
		status, action = "FAIL", "fail"
	}
	rep.output("", fmt.Sprintf("%s\t%s\t%.3fs\n", status, path, time.Since(start).Seconds()))
	rep.action(action, "", time.Since(start))
	return nil
}

// run executes the file's tests and reports whether all passed.
func (fr *fileRun) run(res *Result) bool {
	dir := filepath.Dir(fr.path)
	scripts, errs, err := fr.ld.Load(dir)
	if err == nil && len(errs) > 0 {
		err = errs
	}
	if err != nil {
		fr.rep.output("", fmt.Sprintf("--- FAIL: %s [setup]\n%s\n", filepath.Base(fr.path), indent(err.Error())))
		res.Failed++
		for _, e := range errs {
			if e.Syntax {
				res.Syntax++
				break
			}
		}
		return false
	}
	for _, s := range scripts {
		if filepath.Dir(s.Path) == dir {
			if fr.opts.Transactional && !s.Has(script.Transactional) {
				s.Flags = append(s.Flags, script.Transactional)
			}
			fr.scripts[s.Name] = s
		}
	}

	L := lua.NewState()
	defer L.Close()
	fr.install(L)
	fn, err := L.LoadFile(fr.path)
	if err == nil {
		L.Push(fn)
		err = L.PCall(0, lua.MultRet, nil)
	} else {
		res.Syntax++
	}
	if err != nil {
		fr.rep.output("", fmt.Sprintf("--- FAIL: %s [load]\n%s\n", filepath.Base(fr.path), indent(err.Error())))
		res.Failed++
		return false
	}

	type test struct {
		name string
		fn   *lua.LFunction
	}
	var tests []test
	L.G.Global.ForEach(func(k, v lua.LValue) {
		name, isStr := k.(lua.LString)
		fn, isFn := v.(*lua.LFunction)
		if isStr && isFn && strings.HasPrefix(string(name), "test_") && fn.Proto != nil {
			tests = append(tests, test{string(name), fn})
		}
	})
	sort.Slice(tests, func(i, j int) bool { return tests[i].fn.Proto.LineDefined < tests[j].fn.Proto.LineDefined })
	if len(tests) == 0 {
		fr.rep.output("", fmt.Sprintf("%s: no test_* functions\n", fr.path))
	}

	allOK := true
	for _, tc := range tests {
		if fr.opts.Run != nil && !fr.opts.Run.MatchString(tc.name) {
			res.Skipped++
			continue
		}
		if !fr.runTest(L, tc.name, tc.fn) {
			allOK = false
			res.Failed++
		} else {
			res.Passed++
		}
	}
	return allOK
}

func (fr *fileRun) runTest(L *lua.LState, name string, fn *lua.LFunction) bool {
	fr.failures, fr.logs = nil, nil
	start := time.Now()
	fr.rep.action("run", name, 0)
	if fr.opts.Verbose || fr.opts.JSON {
		fr.rep.output(name, fmt.Sprintf("=== RUN   %s\n", name))
	}
	if err := fr.tgt.reset(); err != nil {
		fr.failures = append(fr.failures, "reset: "+err.Error())
	} else if err := L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true}); err != nil {
		var apiErr *lua.ApiError
		msg := err.Error()
		if errors.As(err, &apiErr) {
			msg = apiErr.Object.String()
			if fr.opts.Verbose && apiErr.StackTrace != "" {
				msg += "\n" + apiErr.StackTrace
			}
		}
		fr.failures = append(fr.failures, fr.short(msg))
	}
	L.SetTop(0)
	ok := len(fr.failures) == 0
	word := "PASS"
	if !ok {
		word = "FAIL"
	}
	if fr.opts.Verbose || fr.opts.JSON || !ok {
		fr.rep.output(name, fmt.Sprintf("--- %s: %s (%.2fs)\n", word, name, time.Since(start).Seconds()))
		for _, m := range append(fr.logs, fr.failures...) {
			fr.rep.output(name, indent(m)+"\n")
		}
	}
	fr.rep.action(strings.ToLower(word), name, time.Since(start))
	return ok
}

// short drops the test file's directory from Lua's error positions, as go
// test prints file names without their path.
func (fr *fileRun) short(msg string) string {
	return strings.ReplaceAll(msg, filepath.Dir(fr.path)+string(filepath.Separator), "")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// where is the test file position of the Lua code calling into Go.
func where(L *lua.LState) string {
	w := strings.TrimSuffix(L.Where(1), ":")
	if i := strings.LastIndex(w, "/"); i >= 0 {
		w = w[i+1:]
	}
	return w
}

func (fr *fileRun) install(L *lua.LState) {
	t := L.NewTable()
	L.SetFuncs(t, map[string]lua.LGFunction{
		"eq": func(L *lua.LState) int {
			got, want := L.CheckAny(1), L.CheckAny(2)
			if !deepEqual(got, want) {
				fr.failf(L, "got  %s\n\twant %s", render(got), render(want))
			}
			return 0
		},
		"ne": func(L *lua.LState) int {
			got, other := L.CheckAny(1), L.CheckAny(2)
			if deepEqual(got, other) {
				fr.failf(L, "got %s, want anything else", render(got))
			}
			return 0
		},
		"ok": func(L *lua.LState) int {
			if !lua.LVAsBool(L.Get(1)) {
				fr.failf(L, "got %s, want a true value", render(L.Get(1)))
			}
			return 0
		},
		"fail": func(L *lua.LState) int {
			fr.failures = append(fr.failures, where(L)+": "+L.OptString(1, "failed"))
			return 0
		},
		"log": func(L *lua.LState) int {
			var parts []string
			for i := 1; i <= L.GetTop(); i++ {
				parts = append(parts, render(L.Get(i)))
			}
			fr.logs = append(fr.logs, where(L)+": "+strings.Join(parts, " "))
			return 0
		},
		"err": func(L *lua.LState) int {
			fn := L.CheckFunction(1)
			want := L.OptString(2, "")
			pos := where(L)
			err := L.CallByParam(lua.P{Fn: fn, NRet: 0, Protect: true})
			if err == nil {
				fr.failures = append(fr.failures, fmt.Sprintf("%s: got no error, want one containing %q", pos, want))
				return 0
			}
			msg := err.Error()
			var apiErr *lua.ApiError
			if errors.As(err, &apiErr) {
				msg = apiErr.Object.String()
			}
			msg = fr.short(msg)
			if !strings.Contains(msg, want) {
				fr.failures = append(fr.failures, fmt.Sprintf("%s: got error %q, want one containing %q", pos, msg, want))
			}
			L.Push(lua.LString(msg))
			return 1
		},
	})
	L.SetGlobal("t", t)

	r := L.NewTable()
	r.RawSetString("call", L.NewFunction(func(L *lua.LState) int { return fr.command(L, true) }))
	r.RawSetString("pcall", L.NewFunction(func(L *lua.LState) int { return fr.command(L, false) }))
	L.SetGlobal("redis", r)

	clock := L.NewTable()
	L.SetFuncs(clock, map[string]lua.LGFunction{
		"advance": func(L *lua.LState) int {
			d := time.Duration(L.CheckInt64(1)) * time.Millisecond
			if d < 0 {
				L.ArgError(1, "clock.advance: negative duration")
			}
			if fr.opts.RedisURL != "" {
				fr.slept += d
				if fr.slept > MaxSleep {
					L.RaiseError("clock.advance: %s of real sleep in this file exceeds %s on a real Redis; use shorter intervals", fr.slept, MaxSleep)
				}
			}
			if err := fr.tgt.advance(d); err != nil {
				L.RaiseError("clock.advance: %v", err)
			}
			return 0
		},
		"set": func(L *lua.LState) int {
			if err := fr.tgt.set(L.CheckInt64(1)); err != nil {
				L.RaiseError("clock.set: %v", err)
			}
			return 0
		},
		"now": func(L *lua.LState) int {
			ms, err := fr.tgt.now()
			if err != nil {
				L.RaiseError("clock.now: %v", err)
			}
			L.Push(lua.LNumber(ms))
			return 1
		},
	})
	L.SetGlobal("clock", clock)

	L.SetGlobal("script", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		s := fr.scripts[name]
		if s == nil {
			var known []string
			for n := range fr.scripts {
				known = append(known, n)
			}
			sort.Strings(known)
			L.RaiseError("script %q not found next to %s; scripts here: %s", name, fr.path, strings.Join(known, ", "))
		}
		obj := L.NewTable()
		obj.RawSetString("name", lua.LString(s.Name))
		// The text gen bundles (helpers included, and the rollback prelude
		// around a transactional script), so that a test runs the same
		// script on the engine as the wrappers send to Redis.
		src, err := bundledSource(fr.scripts, s)
		if err != nil {
			L.RaiseError("script %q: %v", name, err)
		}
		sum := sha1.Sum([]byte(src.shipped))
		sha := hex.EncodeToString(sum[:])
		obj.RawSetString("sha", lua.LString(sha))
		call := func(raise bool) lua.LGFunction {
			return func(L *lua.LState) int {
				base := 1
				if L.Get(1) == obj { // gate:call(...) as well as gate.call(...)
					base = 2
				}
				keys := fr.strings(L, base)
				args := fr.strings(L, base+1)
				cmd := append([]string{"EVALSHA", sha, strconv.Itoa(len(keys))}, append(keys, args...)...)
				reply, err := fr.tgt.do(cmd...)
				if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
					reply, err = fr.tgt.eval(src, cmd)
				}
				return fr.push(L, reply, err, raise)
			}
		}
		obj.RawSetString("call", L.NewFunction(call(true)))
		obj.RawSetString("pcall", L.NewFunction(call(false)))
		L.Push(obj)
		return 1
	}))
}

func (fr *fileRun) failf(L *lua.LState, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if m := L.OptString(3, ""); m != "" {
		msg = m + ": " + msg
	}
	fr.failures = append(fr.failures, where(L)+": "+msg)
}

// strings reads a Lua array of strings and numbers at stack index i.
func (fr *fileRun) strings(L *lua.LState, i int) []string {
	v := L.Get(i)
	if v == lua.LNil {
		return nil
	}
	tbl, ok := v.(*lua.LTable)
	if !ok {
		L.ArgError(i, "want a table of strings and numbers")
	}
	var out []string
	for j := 1; j <= tbl.Len(); j++ {
		s, err := argString(tbl.RawGetInt(j))
		if err != nil {
			L.ArgError(i, err.Error())
		}
		out = append(out, s)
	}
	return out
}

func argString(v lua.LValue) (string, error) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), nil
	case lua.LNumber:
		return formatNumber(float64(v)), nil
	}
	return "", fmt.Errorf("arguments must be strings or numbers, got %s", v.Type())
}

// formatNumber writes a number as Redis's Lua does (%.17g, integers plain).
func formatNumber(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

func (fr *fileRun) command(L *lua.LState, raise bool) int {
	var args []string
	for i := 1; i <= L.GetTop(); i++ {
		s, err := argString(L.Get(i))
		if err != nil {
			L.ArgError(i, err.Error())
		}
		args = append(args, s)
	}
	if len(args) == 0 {
		L.RaiseError("redis.call: no command")
	}
	reply, err := fr.tgt.do(args...)
	return fr.push(L, reply, err, raise)
}

func (fr *fileRun) push(L *lua.LState, reply any, err error, raise bool) int {
	var re ReplyError
	if err != nil && !errors.As(err, &re) {
		L.RaiseError("%v", err) // the connection, not the command, failed
	}
	if err != nil && raise {
		L.RaiseError("%s", string(re))
	}
	L.Push(toLua(L, reply))
	return 1
}

func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LFalse
	case int64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case Status:
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(v))
		return t
	case ReplyError:
		t := L.NewTable()
		t.RawSetString("err", lua.LString(v))
		return t
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(toLua(L, e))
		}
		return t
	}
	return lua.LString(fmt.Sprint(v))
}

func deepEqual(a, b lua.LValue) bool {
	ta, okA := a.(*lua.LTable)
	tb, okB := b.(*lua.LTable)
	if !okA || !okB {
		return a.Type() == b.Type() && a.String() == b.String() || a == b
	}
	equal := true
	ta.ForEach(func(k, v lua.LValue) {
		if equal && !deepEqual(v, tb.RawGet(k)) {
			equal = false
		}
	})
	tb.ForEach(func(k, v lua.LValue) {
		if equal && ta.RawGet(k) == lua.LNil {
			equal = false
		}
	})
	return equal
}

// render writes a value as a Lua literal, table keys sorted, so that two
// renderings differ exactly where the values do.
func render(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return strconv.Quote(string(v))
	case *lua.LTable:
		var parts []string
		n := v.Len()
		for i := 1; i <= n; i++ {
			parts = append(parts, render(v.RawGetInt(i)))
		}
		var rest []string
		v.ForEach(func(k, val lua.LValue) {
			if num, ok := k.(lua.LNumber); ok && float64(num) == float64(int(num)) && int(num) >= 1 && int(num) <= n {
				return
			}
			key := render(k)
			if s, ok := k.(lua.LString); ok && isIdent(string(s)) {
				key = string(s)
			} else {
				key = "[" + key + "]"
			}
			rest = append(rest, key+"="+render(val))
		})
		sort.Strings(rest)
		return "{" + strings.Join(append(parts, rest...), ", ") + "}"
	}
	return v.String()
}

func isIdent(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// bundled is a script's EVAL text as the bundle ships it, and in the parts
// a host that journals writes itself is given instead.
type bundled struct {
	shipped       string // what EVAL sends to Redis
	head, code    string // shebang line and code, before the prelude
	transactional bool
}

// bundledSource is the bundle's EVAL text for s, one of scripts.
func bundledSource(scripts map[string]*script.Script, s *script.Script) (bundled, error) {
	all := make([]*script.Script, 0, len(scripts))
	for _, x := range scripts {
		all = append(all, x)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	libs, err := bundle.Libraries(all)
	if err != nil {
		return bundled{}, err
	}
	for _, l := range libs {
		for _, x := range l.Scripts {
			if x != s {
				continue
			}
			b := bundled{transactional: s.Has(script.Transactional)}
			if b.head, b.code, err = l.EvalCode(s); err != nil {
				return bundled{}, err
			}
			b.shipped = bundle.Shipped(s, b.head, b.code)
			return b, nil
		}
	}
	return bundled{}, fmt.Errorf("not bundled: another script includes it")
}
