package transactional

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// EvalSHA is Do("EVALSHA", ...) without the command line: same replies,
// same errors, and Do's path whenever the connection is not plain.
func TestEvalSHAMatchesDo(t *testing.T) {
	e := newEngine(t)
	load := func(src string) string {
		t.Helper()
		return mustDo(t, e, "SCRIPT", "LOAD", src).(string)
	}
	scripts := []string{
		load("redis.call('HSET', KEYS[1], 'n', ARGV[1]); return {1, KEYS[1], tonumber(ARGV[1]) * 2, false, {ok = 'S'}}"),
		load("return redis.error_reply('MY error')"),
		load("return redis.call('INCRBY', KEYS[1], 1)"),
		load("error('boom')"),
		load("return {double = 1.5}"),
		load("redis.setresp(3); return {map = {a = 1}}"),
		strings.Repeat("0", 40),
	}
	both := func(sha string, keys, argv []string) {
		t.Helper()
		args := append(append([]string{"EVALSHA", sha, strconv.Itoa(len(keys))}, keys...), argv...)
		want, wantErr := e.Do(args...)
		got, gotErr := e.EvalSHA(sha, keys, argv)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%q: error %v, Do's %v", args, gotErr, wantErr)
		}
		// INCRBY counts the calls: compare with the value one less.
		if n, ok := got.(int64); ok && strings.EqualFold(sha, scripts[2]) {
			got = n - 1
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v, Do's %#v", args, got, want)
		}
	}
	for _, sha := range scripts {
		both(sha, []string{"k" + sha[:4]}, []string{"21"})
		both(strings.ToUpper(sha), []string{"k" + sha[:4]}, []string{"21"})
	}
	mustDo(t, e, "HELLO", "3")
	for _, sha := range scripts {
		both(sha, []string{"k" + sha[:4]}, []string{"21"})
	}
	mustDo(t, e, "HELLO", "2")

	// In MULTI, EVALSHA is queued as Do queues it.
	mustDo(t, e, "MULTI")
	if got, err := e.EvalSHA(scripts[2], []string{"m"}, nil); err != nil || got != Status("QUEUED") {
		t.Errorf("EvalSHA in MULTI: %#v, %v", got, err)
	}
	if got := mustDo(t, e, "EXEC"); !reflect.DeepEqual(got, []any{int64(1)}) {
		t.Errorf("EXEC: %#v", got)
	}
}

// EvalSHA takes a script's reply as Go values, without RESP in between:
// random replies of every kind, nested, must come back as Do's (which
// reads them back from RESP), in RESP2 and in RESP3.
func TestEvalSHARepliesMatchDo(t *testing.T) {
	e := newEngine(t)
	rng := rand.New(rand.NewPCG(3, 4))
	str := func() string {
		return []string{"''", "'a'", "'two words'", "'line\\r\\nbreak'", "string.rep('x', 300)"}[rng.IntN(5)]
	}
	var value func(depth int) string
	value = func(depth int) string {
		n := 15
		if depth > 3 {
			n = 6
		}
		switch rng.IntN(n) {
		case 0:
			return strconv.Itoa(rng.IntN(2000) - 1000)
		case 1:
			return []string{"2.5", "-0.75", "1e300", "-1e300", "0.1", "2^53", "-(2^63)"}[rng.IntN(7)]
		case 2, 3:
			return str()
		case 4:
			return []string{"true", "false"}[rng.IntN(2)]
		case 5:
			return "nil"
		case 6:
			return "{err = " + str() + "}"
		case 7:
			return "{ok = " + str() + "}"
		case 8:
			return "{double = " + []string{"1.5", "-0.0", "1/0", "-1/0", "1e-300", "3"}[rng.IntN(6)] + "}"
		case 9:
			return "{big_number = '" + strconv.Itoa(rng.IntN(1e9)) + "'}"
		case 10:
			return "{verbatim_string = {format = " + []string{"'txt'", "'mkd'", "'markdown'", "''"}[rng.IntN(4)] + ", string = " + str() + "}}"
		case 11:
			return "{map = {a = " + value(depth+1) + ", b = " + value(depth+1) + ", [3] = " + value(depth+1) + "}}"
		case 12:
			return "{set = {x = true, y = true, [7] = true}}"
		}
		parts := make([]string, rng.IntN(4))
		for i := range parts {
			parts[i] = value(depth + 1)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	for i := 0; i < 400; i++ {
		src := "return " + value(0)
		sha := mustDo(t, e, "SCRIPT", "LOAD", src).(string)
		for _, hello := range []string{"2", "3"} {
			mustDo(t, e, "HELLO", hello)
			want, wantErr := e.Do("EVALSHA", sha, "0")
			got, gotErr := e.EvalSHA(sha, nil, nil)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("RESP%s, %s:\nEvalSHA %#v, %v\nDo      %#v, %v", hello, src, got, gotErr, want, wantErr)
			}
		}
	}
	mustDo(t, e, "HELLO", "2")
}

// The time limit's timer is left armed between runs: a run that starts
// after it fired idle, or after many short runs, is still stopped.
func TestTimeLimitAcrossRuns(t *testing.T) {
	e := newEngine(t, WithTimeLimit(50*time.Millisecond))
	sha := mustDo(t, e, "SCRIPT", "LOAD", "return 1").(string)
	loop := func() {
		t.Helper()
		if _, err := e.Do("EVAL", "while true do end", "0"); err == nil || !strings.HasPrefix(err.Error(), msgTimeLimit) {
			t.Errorf("endless loop: %v", err)
		}
	}
	for range 1000 {
		if _, err := e.EvalSHA(sha, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	loop()
	time.Sleep(120 * time.Millisecond) // the timer fires with nothing running
	loop()
	loop()
}

// Scripts read globals from a read-only copy of them that is their _G
// (scriptEnv); what they observe is what Redis 7 shows.
func TestScriptEnv(t *testing.T) {
	e := newEngine(t)
	for _, tt := range []struct{ src, want string }{
		{"return tostring(_G.tonumber == tonumber)", "true"},
		{"return type(KEYS) .. #ARGV", "table1"},
		{"local function f() x = 1 end return 'not called'", "not called"},
		{"_G.x = 1", "ERR user_script:1: Attempt to modify a readonly table script: "},
		{"rawset(_G, 'x', 1)", "ERR Attempt to modify a readonly table script: "},
		{"x = 1", "ERR user_script:1: Attempt to modify a readonly table script: "},
		{"local function f() tonumber = 1 end f()", "ERR user_script:1: Attempt to modify a readonly table script: "},
		{"return nosuch", "ERR user_script:1: Script attempted to access nonexistent global variable 'nosuch' script: "},
		{"return math.nosuch", ""},
		{"return loadstring('return ARGV[1]')()", "a"},
		// _G's metatable, as in Redis 7: read-only, its __index the
		// function that refuses missing names; libraries have none.
		{"getmetatable(_G).__index.tonumber = 5", "ERR user_script:1: attempt to index field '__index' (a function value) script: "},
		{"getmetatable(string).__index.upper = 5", "ERR user_script:1: attempt to index a nil value script: "},
		{"rawset(getmetatable(_G).__index, 'x', 1)", "ERR user_script:1: bad argument #1 to 'rawset' (table expected, got function) script: "},
		{"getmetatable(_G).__index = nil", "ERR user_script:1: Attempt to modify a readonly table script: "},
		{"return tostring(rawget(_G, 'tonumber') == tonumber)", "true"},
	} {
		got, err := e.Do("EVAL", tt.src, "0", "a")
		s := ""
		if err != nil {
			s = err.Error()
		} else if got != nil {
			s = got.(string)
		}
		if s != tt.want && !(strings.HasSuffix(tt.want, "script: ") && strings.HasPrefix(s, tt.want)) {
			t.Errorf("%q: %q, want %q", tt.src, s, tt.want)
		}
	}
}

// L.Number, which the sink boxes integer replies with, keeps every number
// as it is, the sign of zero included.
func TestLuaNumber(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var nums []float64
	for _, f := range []float64{0, 1, 7, 255, 256, 1023, 1024, 1e13, 1e14, 1 << 53, 1e300} {
		nums = append(nums, f, -f, f+0.5, -f-0.5)
	}
	nums = append(nums, math.Copysign(0, -1), math.Inf(1), math.NaN(), 1699999999999, 0.1)
	for _, f := range nums {
		if v, ok := L.Number(lua.LNumber(f)).(lua.LNumber); !ok || !(float64(v) == f || f != f && v != v) || math.Signbit(float64(v)) != math.Signbit(f) {
			t.Errorf("L.Number(%v) = %v", f, v)
		}
	}
}

// EVAL scripts get the same KEYS and ARGV tables run after run, emptied
// and filled again: whatever a run does to them is gone in the next, as
// with the fresh tables Redis makes.
func TestKeysArgvFreshEachRun(t *testing.T) {
	e := newEngine(t)
	spoil := mustDo(t, e, "SCRIPT", "LOAD", `
KEYS.x, ARGV.y, KEYS[9], ARGV[0] = 1, 2, 'nine', 'zero'
rawset(KEYS, 'r', true)
setmetatable(ARGV, {__index = function() return 'meta' end})
table.insert(KEYS, 'appended')
return #KEYS`).(string)
	look := mustDo(t, e, "SCRIPT", "LOAD", `
local function dump(t)
  local out = {}
  for k, v in pairs(t) do out[#out + 1] = tostring(k) .. '=' .. tostring(v) end
  table.sort(out)
  return table.concat(out, ',')
end
return {dump(KEYS), dump(ARGV), #KEYS, #ARGV, tostring(getmetatable(ARGV)), tostring(ARGV[7])}`).(string)
	want := []any{"1=k1", "1=a1,2=a2", int64(1), int64(2), "nil", "nil"}
	for _, n := range []int{3, 1} {
		keys := []string{"k1", "k2", "k3"}[:n]
		if _, err := e.EvalSHA(spoil, keys, []string{"a", "b", "c", "d"}); err != nil {
			t.Fatal(err)
		}
		got, err := e.EvalSHA(look, []string{"k1"}, []string{"a1", "a2"})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("after a run with %d keys spoiling KEYS and ARGV: %#v, %v; want %#v", n, got, err, want)
		}
		// And through EVAL and FCALL's path, Do.
		got, err = e.Do("EVALSHA", look, "1", "k1", "a1", "a2")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("EVALSHA after spoiling: %#v, %v", got, err)
		}
	}
}
