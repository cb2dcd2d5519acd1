package transactional

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

var (
	numbersRuns = flag.Int("numbers.runs", 3000, "random expressions TestNumbersMatchRedis evaluates")
	numbersSeed = flag.Int64("numbers.seed", 1, "seed of TestNumbersMatchRedis")
)

// picker is what the random generators of the *MatchRedis tests share: a
// seeded source and a choice among strings.
type picker struct{ r *rand.Rand }

func (p picker) pick(xs ...string) string { return xs[p.r.Intn(len(xs))] }

// numbersGen writes random Lua expressions over numbers and strings that
// convert to numbers: arithmetic, the conversions between numbers and
// strings (.., tostring, tonumber, string.format, the string library,
// table.concat), comparisons and the math library, at values where C and
// Go tend to part: beyond 2^53, at ±inf and NaN (and NaN's sign), at -0,
// and in strings of every shape strtod reads.
type numbersGen struct{ picker }

var numbersLeaves = []string{
	"0", "1", "-1", "7", "-7", "2.5", "-0.5", "0.1", "(1/3)", "(2/3)", "1e14", "1e15", "123456789012345",
	"1e15+1", "2^53", "2^53+1", "2^63", "-2^63", "1e300", "1e-300", "5e-324", "1e100",
	"math.huge", "-math.huge", "(0/0)", "(-(0/0))", "(-tonumber('0'))", "1763836800123456",
	"' 12 '", "'0x1A'", "'1e500'", "'5.'", "'.5'", "'-0x10'", "'inf'", "'nan'", "'1e'", "'abc'", "'3'",
}

func (g *numbersGen) expr(depth int) string {
	if depth == 0 || g.r.Intn(4) == 0 {
		return numbersLeaves[g.r.Intn(len(numbersLeaves))]
	}
	a, b := g.expr(depth-1), g.expr(depth-1)
	switch g.r.Intn(22) {
	case 0, 1, 2:
		return "(" + a + " " + g.pick("+", "-", "*", "/", "%", "^") + " " + b + ")"
	case 3, 4:
		return "(" + a + " % " + g.pick("1", "2", "7", "-3", "0.5", "1e15", "math.huge", "-math.huge", "0", "(0/0)") + ")"
	case 5, 6:
		return "(" + a + " .. " + g.pick("''", "':'", b) + ")"
	case 7:
		return "tostring(" + a + ")"
	case 8:
		return "tonumber(" + a + ")"
	case 9:
		return "(- " + a + ")"
	case 10:
		return "(" + a + " " + g.pick("<", "<=", "==", "~=") + " " + b + ")"
	case 11:
		return "math." + g.pick("floor", "ceil", "abs", "sqrt", "exp", "log", "log10", "modf", "frexp") + "(" + a + ")"
	case 12:
		return "math." + g.pick("fmod", "min", "max", "pow", "ldexp") + "(" + a + ", " + b + ")"
	case 13, 14:
		return "string.format('" + g.pick("%d", "%i", "%5.2f", "%.3f", "%g", "%.14g", "%e", "%x", "%X", "%o", "%s", "%q", "%5s", "%-8d|", "%+d", "%.0f", "%10.4g", "%c") + "', " + a + ")"
	case 15:
		return "string." + g.pick("len", "upper", "reverse") + "(" + a + ")"
	case 16:
		return "string.rep(" + a + ", 2)"
	case 17:
		return "string.sub(" + a + ", " + g.pick("1", "2", "-3") + ")"
	case 18:
		return "table.concat({" + a + ", " + b + "}, ',')"
	case 19:
		return "#(" + a + " .. '')"
	case 20:
		return "(" + a + " " + g.pick("and", "or") + " " + b + ")"
	}
	return "select('#', " + a + ")"
}

// numbersHead starts a batch: show prints what a pcall returned, each value
// as its type and tostring, or the error.
const numbersHead = `local out = {}
local function show(ok, ...)
  if not ok then return 'error: ' .. tostring((...)) end
  local parts = {}
  for i = 1, select('#', ...) do local v = select(i, ...); parts[i] = type(v) .. ' ' .. tostring(v) end
  return table.concat(parts, ', ')
end
`

// nanSign matches a NaN as Lua prints it, with its sign.
var nanSign = regexp.MustCompile(`-?(nan|NAN)`)

// TestNumbersMatchRedis evaluates random expressions on redis-server and on
// the engine and wants the same value, or the same error, from each: the
// runner must compute and print numbers as Redis's Lua 5.1 does, or a
// script tested locally builds other keys, members and replies in
// production (a microsecond timestamp concatenated into a member is
// "1.7638368001235e+15" there).
//
// Two differences are known and left: the sign of a NaN that glibc's math
// functions make from a NaN (pow's, in corners of its special cases), which
// only shows as "nan" against "-nan" and is counted apart; and the sign of
// a literal -0, which Lua 5.1's compiler folds into its constant table,
// where -0 and 0 are one key and the first to come wins (leaves here make
// -0 at run time instead).
func TestNumbersMatchRedis(t *testing.T) {
	g := &numbersGen{picker{rand.New(rand.NewSource(*numbersSeed))}}
	differ, nanSigns := matchRedis(t, *numbersRuns, func() string { return g.expr(3) }, true)
	if differ > 0 {
		t.Errorf("%d of %d expressions differ", differ, *numbersRuns)
	}
	t.Logf("%d of %d expressions differ only in the sign of a NaN", nanSigns, *numbersRuns)
}

// matchRedis evaluates runs expressions from next, in batches, on
// redis-server and on the engine, reports each whose value or error
// differs, and returns how many did; with nanSign, a difference only in the
// sign of a NaN is counted apart (nanSigns) instead.
func matchRedis(t *testing.T, runs int, next func() string, nanSigns bool) (differ, nanOnly int) {
	t.Helper()
	return matchRedisHead(t, numbersHead, runs, next, nanSigns)
}

// matchRedisHead is matchRedis with the Lua that starts each batch (head
// must set out and show as numbersHead does).
func matchRedisHead(t *testing.T, head string, runs int, next func() string, nanSigns bool) (differ, nanOnly int) {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	e := New()
	t.Cleanup(e.Close)
	const batch = 100
	var b strings.Builder
	b.WriteString(head)
	ctx := context.Background()
	var exprs []string
	flush := func() {
		b.WriteString("return out\n")
		src := b.String()
		want, err := rdb.Eval(ctx, src, nil).StringSlice()
		if err != nil {
			t.Fatalf("redis: %v\n%s", err, src)
		}
		gotv, err := e.Do("EVAL", src, "0")
		if err != nil {
			t.Fatalf("engine: %v\n%s", err, src)
		}
		gotList, _ := gotv.([]any)
		if len(gotList) != len(want) {
			t.Fatalf("engine replied %d values, redis %d: %v", len(gotList), len(want), gotv)
		}
		for i, w := range want {
			g := fmt.Sprint(gotList[i])
			if g != w && nanSigns && nanSign.ReplaceAllString(g, "nan") == nanSign.ReplaceAllString(w, "nan") {
				nanOnly++
				continue
			}
			if g != w {
				differ++
				if differ <= 30 {
					t.Errorf("%s\n redis:  %s\n engine: %s", exprs[i], w, g)
				}
			}
		}
		b.Reset()
		b.WriteString(head)
		exprs = exprs[:0]
	}
	for i := 0; i < runs; i++ {
		x := next()
		exprs = append(exprs, x)
		fmt.Fprintf(&b, "out[#out + 1] = show(pcall(function() return %s end))\n", x)
		if len(exprs) == batch {
			flush()
		}
	}
	if len(exprs) > 0 {
		flush()
	}
	return differ, nanOnly
}
