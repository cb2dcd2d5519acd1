package transactional

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

var (
	builtinsRuns = flag.Int("builtins.runs", 20000, "random calls of 2 to 4 arguments TestBuiltinsMatchRedis makes")
	builtinsSeed = flag.Int64("builtins.seed", 1, "seed of TestBuiltinsMatchRedis")
	builtinsShow = flag.Int("builtins.show", 5, "differing calls TestBuiltinsMatchRedis shows per function")
)

// goRuntimeText matches what Go's runtime writes in a panic: a reply that
// carries it shows a Go bug to the client instead of Lua's words.
var goRuntimeText = regexp.MustCompile(`runtime error|makeslice|index out of range \[|slice bounds out of range|` +
	`invalid memory address|nil pointer dereference|goroutine \d|panic:|invalid argument to Int`)

// builtinArg is one argument the sweep passes: its Lua source and, for
// the size bounds, the number or the length of the string it makes.
type builtinArg struct {
	src string
	num float64 // NaN when not a number
	len int     // length when a string
}

func numArg(src string, v float64) builtinArg { return builtinArg{src: src, num: v} }
func strArg(src string, n int) builtinArg     { return builtinArg{src: src, num: math.NaN(), len: n} }
func otherArg(src string) builtinArg          { return builtinArg{src: src, num: math.NaN()} }

// builtinArgs are the extremes: the edges of C's int and of a double's
// integers, infinities, NaN, -0, strings of every shape the libraries
// parse (formats, patterns, struct formats, JSON, msgpack), and values of
// every other type.
var builtinArgs = func() []builtinArg {
	var a []builtinArg
	for _, n := range []struct {
		src string
		v   float64
	}{
		{"0", 0}, {"1", 1}, {"-1", -1}, {"2", 2}, {"3", 3}, {"8", 8}, {"17", 17}, {"31", 31}, {"32", 32}, {"64", 64},
		{"256", 256}, {"0.5", 0.5}, {"-2.5", -2.5}, {"1e-300", 1e-300}, {"5e-324", 5e-324},
		{"2^31-1", 1<<31 - 1}, {"2^31", 1 << 31}, {"-2^31", -(1 << 31)}, {"-2^31-1", -(1 << 31) - 1}, {"2^32", 1 << 32},
		{"2^32+1", 1<<32 + 1}, {"2^53", 1 << 53}, {"-2^53", -(1 << 53)}, {"2^63", 1 << 63}, {"-2^63", -(1 << 63)},
		{"2^64", 1 << 64}, {"1e308", 1e308}, {"-1e308", -1e308}, {"math.huge", math.Inf(1)},
		{"-math.huge", math.Inf(-1)}, {"(0/0)", math.NaN()}, {"(-tonumber('0'))", 0},
	} {
		a = append(a, numArg(n.src, n.v))
	}
	for _, s := range []string{"", "a", "abc", "10", " 0x10 ", "1e500", "-2147483648", "nan", "\\0", "\\255\\254\\0x",
		"%", "%d", "%s", "%q", "%c", "%x", "%5.2f", "%-99.99f", "%100d", "%.3s", "%i%i", "%*d",
		"[", "[a", "(", ")", "%b", "%b()", "%f", "%f[%w]", "()", "(()", "%1", "(.)%1", ".-", "^$", "[%a-]",
		">i8", "<I16", "i17", "!16", "!3", "c0", "c", "c2000000000", "s", "f", "d", "Bhil", "x", "=",
		"[1,2]", "{\"a\":[]}", "[[[[]]]]", "\\145\\1", "\\222\\0\\1"} {
		a = append(a, strArg("'"+s+"'", len(s)))
	}
	a = append(a, strArg("string.rep('ab', 4096)", 8192), strArg("string.rep('[', 2000)", 2000),
		strArg("string.rep('%', 101)", 101))
	for _, s := range []string{"nil", "true", "false", "{}", "{1, 2, 3}", "{'b', 'a'}", "{x = 1}", "{[2^40] = 1}",
		"{1, nil, 3}", "{{}}", "setmetatable({}, {__index = function() error('idx') end})", "type",
		"function(...) return ... end", "function() error({}) end", "cjson.null", "coroutine.create(function() end)"} {
		a = append(a, otherArg(s))
	}
	return a
}()

// builtinsCases are calls that once panicked in Go or answered otherwise
// than Redis, kept whatever the random draw.
var builtinsCases = []string{
	"bit.tohex(1, -2^31)", "bit.tohex(255, 2^31)", "bit.tohex(255, -3)", "bit.tohex(1, nil)", "bit.tohex(0/0)",
	"bit.band('1e500')", "bit.bor(1, 'x', true)", "bit.tobit('nan')",
	"math.random(0)", "math.random(2^31)", "math.random(-2^31-1)", "math.random(3, 1)", "math.random(1, 2, 3)",
	"math.random(-2^31, 2^31-1)", "math.randomseed(2^63)",
	"select(2^31)", "select(-2^31-1, 'a')", "select('#x', 1)", "select('2', 'a', 'b')", "select()",
	"string.char(2^32 + 65)", "string.rep('ab', 2^32 + 2)", "string.gsub('aaa', 'a', 'b', 2^32 + 1)",
	"unpack({1, 2}, -2^31, 2^31 - 1)", "unpack({1, 2}, 2^32 + 1)", "unpack({}, 1, 8000)",
	"table.insert({}, 1, 2, 3)", "table.insert({1}, 2^32 + 1, 'x')", "table.concat({1, 2}, 3)",
	"table.concat({1, 2, 3}, ',', 2^32 + 2)", "table.remove({1, 2}, 2^32 + 1)",
	"tonumber('10', 2^32 + 16)", "error('x', 2^32 + 1)",
	"cjson.decode_max_depth(2^32 + 1)", "cjson.encode_number_precision(2^32 + 5)",
}

// builtinsKnown are the functions whose answers at the extremes still
// differ from Redis's in ways that are not panics (error texts, argument
// checks, options): their differences are counted and logged, not
// failed, until each is mended and struck from this list.
var builtinsKnown = map[string]string{
	"assert": "assert() fails as an assertion, not as a missing argument",
	"xpcall": "arguments checked as gopher-lua's, not as luaB_xpcall",
	"pcall":  "pcall() with nothing to call",
	"error":  "error() with a table whose __index fails",
	"load":   "a reader function that fails or returns non-strings", "loadstring": "chunk names of sources with NUL bytes",
	"setmetatable":     "the second argument checked before the first",
	"coroutine.create": "'Lua function expected', 'coroutine expected' texts", "coroutine.resume": "likewise",
	"coroutine.status": "likewise", "coroutine.wrap": "likewise",
	"coroutine.yield": "yielding outside a coroutine: gopher-lua's text",
	"collectgarbage":  "options are not checked", "string.dump": "gopher-lua cannot dump functions",
	"math.acos": "sign of the NaN out of the domain", "math.asin": "sign of the NaN out of the domain",
	"math.sin": "last digit at 2^53 (glibc's argument reduction)", "math.tan": "likewise",
	"math.max": "max() and min(): upstream's text, which its tests hold", "math.min": "likewise",
	"cjson.new": "absent", "cjson.decode": "NUL and NaN inputs, token names",
	"cjson.encode":                 "sparse arrays with keys beyond a C int",
	"cjson.decode_invalid_numbers": "options other than booleans and 'on'/'off' are not refused",
	"cjson.encode_invalid_numbers": "likewise", "cjson.encode_keep_buffer": "likewise",
	"cjson.encode_sparse_array": "likewise", "cjson.decode_max_depth": "too many arguments are not refused",
	"cjson.encode_max_depth": "likewise", "cjson.encode_number_precision": "likewise",
	"cmsgpack.pack": "NaN's encoding", "cmsgpack.unpack": "more than 8000 values are not refused",
	"cmsgpack.unpack_one": "the function's name in argument errors",
	"redis.acl_check_cmd": "arguments of other types", "redis.set_repl": "non-number flags",
	"redis.error_reply":     "messages with NUL bytes",
	"struct.unpack":         "a negative offset on a short string: which check comes first",
	"getmetatable":          "a string's metatable when more arguments follow",
	"redis.log":             "the level's check and its text",
	"cmsgpack.unpack_limit": "the function's name in argument errors, offsets beyond 2^63",
	"string.gsub":           "the replacement checked before the count",
	"math.atan2":            "the sign of a NaN from a NaN",
}

// builtinsVary are the functions whose values differ between any two
// runs or processes (addresses, random numbers, heap sizes, bytecode):
// only whether they fail, and how, is compared.
var builtinsVary = map[string]bool{
	"math.random": true, "collectgarbage": true, "gcinfo": true, "string.dump": true, "coroutine.running": true,
	"__redis__err__handler": true, "load": true,
}

// builtinsBounded reports whether Redis answers the call quickly and in
// little memory: string.rep and friends are bounded by what they make.
func builtinsBounded(fn string, args []builtinArg) bool {
	if fn == "string.rep" && len(args) >= 2 {
		// luaL_checkint: the low 32 bits of the integer part, and INT_MIN
		// for what has none; Redis loops that many times even over "".
		n := float64(cInt(args[1].num))
		if n > 1<<20 || n*float64(args[0].len) > 1<<22 {
			return false
		}
	}
	if fn == "table.insert" && len(args) == 3 && cInt(args[1].num) < -1<<20 {
		return false // Lua moves every element from the end down to it
	}
	return true
}

// cInt is luaL_checkint on x86-64: (int)(long long)f.
func cInt(f float64) int32 {
	if !(f > -9223372036854775809.0 && f < 9223372036854775808.0) {
		return 0
	}
	return int32(int64(f))
}

// builtinsList asks Redis for every function a script can reach: the base
// library's and those of each library table.
const builtinsList = `local out = {}
for k, v in pairs(_G) do
  if type(v) == 'function' then out[#out + 1] = k
  elseif type(v) == 'table' and k ~= '_G' and k ~= 'KEYS' and k ~= 'ARGV' then
    for k2, v2 in pairs(v) do if type(v2) == 'function' then out[#out + 1] = k .. '.' .. k2 end end
  end
end
table.sort(out)
return out`

// builtinsHead starts a batch: show writes what pcall returned, the
// addresses of tables and functions blanked.
const builtinsHead = `local out = {}
local function show(ok, ...)
  local parts = {}
  for i = 1, math.min(select('#', ...), 20) do
    local v = select(i, ...)
    if type(v) == 'table' then
      local ok2, e = pcall(function() return rawget(v, 'err') end)
      v = 'table' .. (ok2 and e and (' err=' .. tostring(e)) or '')
    end
    parts[i] = type(v) .. ' ' .. string.gsub(tostring(v), '0x%x+', 'ADDR')
  end
  return (ok and 'ok: ' or 'error: ') .. select('#', ...) .. ': ' .. table.concat(parts, ', ')
end
`

// TestBuiltinsMatchRedis calls every function Redis gives a script with
// argument extremes (none, one of every kind, then random lists of two to
// four, extra arguments included) on redis-server and on the engine, and
// wants the same values or the same error from each; no reply may carry a
// Go runtime text, the sign of a panic in a builtin.
func TestBuiltinsMatchRedis(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	ctx := context.Background()
	names, err := rdb.Eval(ctx, builtinsList, nil).StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	e := New()
	t.Cleanup(e.Close)
	s := &builtinsSweep{t: t, rdb: rdb, e: e}
	r := rand.New(rand.NewSource(*builtinsSeed))
	runs := *builtinsRuns
	if testing.Short() {
		runs /= 10
	}
	for _, c := range builtinsCases {
		s.addSrc(c)
	}
	for _, fn := range names {
		s.add(fn, nil)
		for _, a := range builtinArgs {
			s.add(fn, []builtinArg{a})
		}
	}
	for i := 0; i < runs; i++ {
		args := make([]builtinArg, 2+r.Intn(3))
		for j := range args {
			args[j] = builtinArgs[r.Intn(len(builtinArgs))]
		}
		s.add(names[r.Intn(len(names))], args)
	}
	s.flush()
	if s.differ > 0 {
		t.Errorf("%d of %d calls differ from Redis: %v", s.differ, s.calls, s.byFn)
	}
	t.Logf("%d calls, %d differ in known ways (builtinsKnown)", s.calls, s.known)
}

type builtinsSweep struct {
	t      *testing.T
	rdb    *redis.Client
	e      *Engine
	batch  []builtinCall
	calls  int
	differ int
	byFn   map[string]int // differences by function
	known  int            // differences of the functions in builtinsKnown
}

type builtinCall struct {
	fn, src string
	vary    bool
}

func (s *builtinsSweep) add(fn string, args []builtinArg) {
	if !builtinsBounded(fn, args) {
		return
	}
	srcs := make([]string, len(args))
	for i, a := range args {
		srcs[i] = a.src
	}
	s.addSrc(fn + "(" + strings.Join(srcs, ", ") + ")")
}

// addSrc adds the call src of a function by name. It is called by name
// from Lua, as scripts call it, so that an argument error names it.
func (s *builtinsSweep) addSrc(src string) {
	fn := src[:strings.IndexByte(src, '(')]
	call := "pcall(function() return " + src + " end)"
	s.batch = append(s.batch, builtinCall{fn: fn, src: call, vary: builtinsVary[fn]})
	s.calls++
	if len(s.batch) == 100 {
		s.flush()
	}
}

func (s *builtinsSweep) flush() {
	if len(s.batch) == 0 {
		return
	}
	want, wErr := s.evalRedis(s.batch)
	got, gErr := s.evalEngine(s.batch)
	if wErr != nil || gErr != nil || len(got) != len(want) {
		// One call broke the whole script somewhere: find it.
		for _, c := range s.batch {
			w, wErr := s.evalRedis([]builtinCall{c})
			g, gErr := s.evalEngine([]builtinCall{c})
			s.compare(c, fmt.Sprint(w, wErr), fmt.Sprint(g, gErr))
		}
	} else {
		for i, c := range s.batch {
			s.compare(c, want[i], got[i])
		}
	}
	s.batch = s.batch[:0]
}

// builtinsKind keeps what a call of a varying function shows of itself:
// whether it failed, and the error.
var builtinsKind = regexp.MustCompile(`^(ok: \d+|error: .*)`)

func (s *builtinsSweep) compare(c builtinCall, want, got string) {
	s.t.Helper()
	if goRuntimeText.MatchString(got) {
		s.differ++
		s.t.Errorf("%s: a Go runtime text\n redis:  %s\n engine: %s", c.src, want, got)
		return
	}
	if c.vary {
		want, got = builtinsKind.FindString(want), builtinsKind.FindString(got)
	}
	if want != got && builtinsKnown[c.fn] != "" {
		s.known++
		return
	}
	if want != got {
		s.differ++
		if s.byFn == nil {
			s.byFn = map[string]int{}
		}
		s.byFn[c.fn]++
		if s.byFn[c.fn] <= *builtinsShow {
			s.t.Errorf("%s\n redis:  %s\n engine: %s", c.src, want, got)
		}
	}
}

func builtinsScript(calls []builtinCall) string {
	var b strings.Builder
	b.WriteString(builtinsHead)
	for _, c := range calls {
		fmt.Fprintf(&b, "out[#out + 1] = show(%s)\n", c.src)
	}
	b.WriteString("return out\n")
	return b.String()
}

func (s *builtinsSweep) evalRedis(calls []builtinCall) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.rdb.Eval(ctx, builtinsScript(calls), nil).StringSlice()
}

func (s *builtinsSweep) evalEngine(calls []builtinCall) ([]string, error) {
	v, err := s.e.Do("EVAL", builtinsScript(calls), "0")
	if err != nil {
		return nil, err
	}
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = fmt.Sprint(x)
	}
	return out, nil
}

// TestLibraryPanicIsLuaError: a Go panic in a library function reaches the
// script as a Lua error in Lua's words, whether the script catches it or
// not, the stack goes to the log, and the engine serves on.
func TestLibraryPanicIsLuaError(t *testing.T) {
	var logged []string
	e := New(WithLog(func(level int, msg string) { logged = append(logged, msg) }))
	t.Cleanup(e.Close)
	L := e.eval.L
	index := func(L *lua.LState) int {
		var s []int
		return s[L.GetTop()+3]
	}
	alloc := func(L *lua.LState) int {
		n := -L.GetTop() - 1
		_ = make([]byte, n)
		return 0
	}
	e.eval.env.RawSetString("broken_index", L.NewFunction(index))
	e.eval.env.RawSetString("broken_alloc", L.NewFunction(alloc))
	for src, want := range map[string]string{
		"return broken_index()":                 "ERR user_script:1: " + lua.ErrInternal,
		"return broken_alloc()":                 "ERR user_script:1: not enough memory",
		"return {pcall(broken_index)}":          "[<nil> " + lua.ErrInternal + "]",
		"return coroutine.wrap(broken_alloc)()": "ERR not enough memory",
		"return {coroutine.resume(coroutine.create(function() broken_index() end))}": "[<nil> user_script:1: " + lua.ErrInternal + "]",
	} {
		v, err := e.Do("EVAL", src, "0")
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if goRuntimeText.MatchString(got) || !strings.HasPrefix(got, want) {
			t.Errorf("%s: %s, want %s", src, got, want)
		}
	}
	if len(logged) == 0 || !strings.Contains(logged[0], "goroutine") {
		t.Errorf("no stack logged: %q", logged)
	}
	if v, err := e.Do("EVAL", "return 1", "0"); err != nil || v != int64(1) {
		t.Errorf("after the panics: %v, %v", v, err)
	}
}
