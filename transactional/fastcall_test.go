package transactional

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// withoutFast clears the short cuts (lua.LFunction.Fast) of the EVAL
// sandbox's math functions and tonumber: every call takes the frame path.
func withoutFast(e *Engine) {
	s := e.eval
	s.L.G.Global.RawGetString("math").(*lua.LTable).ForEach(func(_, v lua.LValue) {
		if f, ok := v.(*lua.LFunction); ok {
			f.Fast = nil
		}
	})
	s.store.RawGetString("tonumber").(*lua.LFunction).Fast = nil
}

// TestFastCallsMatchFrames runs random snippets (6,000) calling math.floor, ceil,
// abs, max, min, modf and tonumber, with arguments of every type (numbers that
// print oddly, numeric and other strings, nil, booleans, tables, none) and
// in every position (locals, constructors, arguments of other calls,
// varargs, returns, operands), on an engine with the short cuts and on one
// without: the replies and errors must be the same.
func TestFastCallsMatchFrames(t *testing.T) {
	fast, slow := newEngine(t), newEngine(t)
	withoutFast(slow)
	if f := slow.eval.L.G.Global.RawGetString("math").(*lua.LTable).RawGetString("floor").(*lua.LFunction); f.Fast != nil {
		t.Fatal("withoutFast left math.floor's short cut")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var call func(depth int) string
	arg := func(depth int) string {
		if depth < 2 && rng.IntN(4) == 0 {
			return call(depth + 1)
		}
		return pick("1.5", "-2.5", "0", "nz", "1/0", "-1/0", "0/0", "2^53", "1e308", "-1e-300", "7", "x", "y",
			"'12'", "' 0x1F '", "'1e2'", "'abc'", "''", "'-0'", "nil", "true", "{}", "(f())", "f()")
	}
	args := func(depth, n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = arg(depth)
		}
		return strings.Join(parts, ", ")
	}
	call = func(depth int) string {
		switch rng.IntN(7) {
		case 0:
			return "math.floor(" + args(depth, rng.IntN(3)) + ")"
		case 1:
			return "math.ceil(" + args(depth, rng.IntN(2)+1) + ")"
		case 2:
			return "math.abs(" + args(depth, 1) + ")"
		case 3:
			return "math.max(" + args(depth, rng.IntN(4)) + ")"
		case 4:
			return "math.min(" + args(depth, rng.IntN(4)+1) + ")"
		case 5:
			return "math.modf(" + args(depth, rng.IntN(2)+1) + ")"
		}
		return "tonumber(" + args(depth, rng.IntN(3)) + ")"
	}
	show := "local function show(...) local out = {select('#', ...)} for i = 1, select('#', ...) do local v = select(i, ...) " +
		"out[#out + 1] = type(v) .. ':' .. (type(v) == 'number' and string.format('%.17g', v) or type(v) == 'table' and '' or tostring(v)) end return table.concat(out, ' ') end "
	// nz is -0 made at run time: a literal -0 is folded into the constant 0.
	prelude := "local x, y = 3.25, '8' local nz = -(x - x) local function f() return 4, 5 end " + show
	// Where an ordering or a sign decides, first each on its own.
	for _, c := range []string{"math.max(0, nz)", "math.max(nz, 0)", "math.min(0, nz)", "math.min(nz, 0)",
		"math.max(0/0, 1)", "math.max(1, 0/0)", "math.min(0/0, 1)", "math.min(1, 0/0)", "math.max(1, 2, 0/0, 3)",
		"math.floor(nz)", "math.ceil(-0.5)", "math.abs(nz)", "math.floor(0/0)", "math.floor('3.7')", "math.max(1, '5')",
		"math.max()", "math.floor()", "math.abs(nil)", "math.min({})", "tonumber('-0')", "tonumber(' 0x10 ')",
		"tonumber('1e400')", "tonumber(true)", "tonumber()", "tonumber(nil)", "tonumber('10', 16)", "tonumber(nz)",
		"math.modf(-0.5)", "math.modf(nz)", "math.modf(-1/0)", "math.modf(0/0)", "math.modf('-2.5')", "math.modf()"} {
		src := prelude + "local v = " + c + " return show(v)"
		want, wantErr := slow.Do("EVAL", src, "0")
		got, gotErr := fast.Do("EVAL", src, "0")
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s\nshort cuts: %#v, %v\nframes:     %#v, %v", c, got, gotErr, want, wantErr)
		}
	}
	for i := 0; i < 6000; i++ {
		// A call in parentheses, or alone on the right of a local, wants
		// one value (the short cut's case); last in a list, all it returns.
		c := call(0)
		if rng.IntN(2) == 0 {
			c = "(" + c + ")"
		}
		body := pick(
			"local v = "+c+" return show(v)",
			"local a, b = "+c+", 9 return show(a, b)",
			"local a, b, c = 1, "+c+" return show(a, b, c)",
			"return show("+c+")",
			"return show("+c+", "+call(0)+")",
			"return show({"+c+", "+call(0)+"})",
			"local t = {"+c+"} return show(#t, t[1])",
			"return show(("+c+") + 1)",
			"return show(tostring("+c+") .. '|' .. tostring("+call(0)+"))",
			"return show(select('#', "+c+"))",
			"local t = {k = "+c+"} return show(t.k)",
			"return show(f(), "+c+")",
			"local v = "+c+" local w = "+call(0)+" return show(v, w)",
		)
		src := prelude + body
		want, wantErr := slow.Do("EVAL", src, "0")
		got, gotErr := fast.Do("EVAL", src, "0")
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nshort cuts: %#v, %v\nframes:     %#v, %v", body, got, gotErr, want, wantErr)
		}
	}
}
