package luaflow

import (
	"context"
	"flag"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

var numRuns = flag.Int("num.runs", 400, "random expressions TestPropertyNum evaluates on redis-server")

// numGen writes random arithmetic over two numbers x and y, of the kinds
// numOf follows.
type numGen struct{ r *rand.Rand }

func (g *numGen) expr(depth int) string {
	if depth == 0 || g.r.Intn(4) == 0 {
		return []string{"x", "y", "x", "y", "1", "0", "1000", "2.5", "-3"}[g.r.Intn(9)]
	}
	a, b := g.expr(depth-1), g.expr(depth-1)
	switch g.r.Intn(10) {
	case 0:
		return "(" + a + " + " + b + ")"
	case 1:
		return "(" + a + " - " + b + ")"
	case 2:
		return "(" + a + " * " + b + ")"
	case 3:
		return "(" + a + " % " + []string{"1", "7", "0.5", "1000"}[g.r.Intn(4)] + ")"
	case 4:
		return "(-(" + a + "))"
	case 5:
		return "math.floor(" + a + ")"
	case 6:
		return "math.ceil(" + a + ")"
	case 7:
		return "math.min(" + a + ", " + b + ")"
	case 8:
		return "math.max(" + a + ", " + b + ")"
	}
	return "#'abc' + " + a
}

var numBounds = []float64{math.Inf(-1), -safeInt, -10, -1, 0, 0.5, 1, 3, 10, safeInt, math.Inf(1)}

func (g *numGen) num() num {
	i, j := g.r.Intn(len(numBounds)), g.r.Intn(len(numBounds))
	if i > j {
		i, j = j, i
	}
	n := num{lo: numBounds[i], hi: numBounds[j], nan: g.r.Intn(3) == 0, integral: g.r.Intn(2) == 0}
	if n.integral {
		n.lo, n.hi = math.Ceil(n.lo), math.Floor(n.hi)
		if n.lo > n.hi {
			n.lo = n.hi
		}
	}
	return n
}

// samples are values n allows: its bounds, infinities where unbounded,
// NaN if allowed, and values between.
func (g *numGen) samples(n num) []float64 {
	vs := []float64{n.lo, n.hi}
	for k := 0; k < 4; k++ {
		lo, hi := math.Max(n.lo, -1e6), math.Min(n.hi, 1e6)
		if lo > hi {
			lo, hi = n.lo, n.hi
		}
		v := lo + g.r.Float64()*(hi-lo)
		if math.IsNaN(v) { // ∞ - ∞: n is one infinity
			v = n.lo
		}
		if n.integral {
			v = math.Round(v)
			if v < n.lo || v > n.hi {
				v = n.lo
			}
		}
		vs = append(vs, v)
	}
	if n.nan {
		vs = append(vs, math.NaN())
	}
	return vs
}

func luaNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// numCase is the flow at a point where x and y are numbers known as nx
// and ny, with args: every pair of their samples, as ARGV.
type numCase struct {
	a      *analyzer
	st     *state
	sc     *flowScope
	x, y   *local
	nx, ny num
	args   []any
}

func (g *numGen) newCase() numCase {
	x, y := &local{name: "x"}, &local{name: "y"}
	c := numCase{a: &analyzer{volatile: map[string]bool{}, callNums: map[*ast.FuncCallExpr]num{}}, st: newState(),
		sc: &flowScope{vars: map[string]*local{"x": x, "y": y}}, x: x, y: y, nx: g.num(), ny: g.num()}
	c.st.env[x], c.st.env[y] = tNum, tNum
	c.st.nums[x], c.st.nums[y] = c.nx, c.ny
	for _, vx := range g.samples(c.nx) {
		for _, vy := range g.samples(c.ny) {
			c.args = append(c.args, luaNumber(vx), luaNumber(vy))
		}
	}
	return c
}

// eval runs the Lua expression text on redis-server for each pair of
// args (as x and y) and returns its values, as strings.
func (c numCase) eval(t *testing.T, ctx context.Context, rc *redis.Client, text string) []string {
	t.Helper()
	lua := "local out = {} for i = 1, #ARGV, 2 do local x, y = tonumber(ARGV[i]), tonumber(ARGV[i + 1]) " +
		"out[#out + 1] = " + text + " end return out"
	got, err := rc.Eval(ctx, lua, nil, c.args...).StringSlice()
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return got
}

// outside says how v breaks what n says of it, or "".
func outside(v float64, n num) string {
	switch {
	case math.IsNaN(v):
		if !n.nan {
			return "NaN"
		}
	case v < n.lo || v > n.hi:
		return "out of bounds"
	case n.integral && !math.IsInf(v, 0) && v != math.Trunc(v):
		return "not an integer"
	}
	return ""
}

// TestPropertyNum checks the flow's knowledge of numbers (numOf) against
// Lua 5.1 as Redis runs it: for random expressions over x and y, each with
// random bounds, NaN allowed or not and integral or not, every value the
// expression takes on redis-server, for x and y at their bounds, at
// infinities, at NaN and between, lies within what numOf says.
func TestPropertyNum(t *testing.T) {
	ctx, c := start(t)
	g := &numGen{r: rand.New(rand.NewSource(*neededSeed))}
	checked := 0
	for run := 0; run < *numRuns; run++ {
		src := g.expr(3)
		chunk, err := parse.Parse(strings.NewReader("return "+src), "<expr>")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		e := chunk[0].(*ast.ReturnStmt).Exprs[0]
		nc := g.newCase()
		want := nc.a.numOf(e, nc.st, nc.sc)
		for i, s := range nc.eval(t, ctx, c, "string.format('%.17g', "+src+")") {
			v, err := strconv.ParseFloat(s, 64)
			if strings.Contains(s, "nan") {
				v, err = math.NaN(), nil
			}
			if err != nil {
				t.Fatalf("%s: reply %q", src, s)
			}
			if bad := outside(v, want); bad != "" {
				t.Fatalf("%s with x = %v %+v, y = %v %+v: %s is %s for %+v", src, nc.args[2*i], nc.nx, nc.args[2*i+1], nc.ny, s, bad, want)
			}
			checked++
		}
	}
	t.Logf("%d expressions, %d values checked", *numRuns, checked)
}

// TestPropertyNarrow checks narrowCompare the same way: after a random
// comparison of x with y or a literal held (or, for ~=, did not), every x
// and y for which it does on redis-server lie within what the flow says of
// them on that path.
func TestPropertyNarrow(t *testing.T) {
	ctx, c := start(t)
	g := &numGen{r: rand.New(rand.NewSource(*neededSeed))}
	checked := 0
	for run := 0; run < *numRuns; run++ {
		rhs := []string{"y", "0", "1", "-3", "2.5", "1000"}[g.r.Intn(6)]
		var cond string
		switch g.r.Intn(3) {
		case 0:
			cond = "x % 1 == 0"
		case 1:
			cond = "x % 1 ~= 0"
		default:
			cond = "x " + []string{"<", "<=", ">", ">="}[g.r.Intn(4)] + " " + rhs
			if g.r.Intn(2) == 0 {
				cond = rhs + " " + []string{"<", "<=", ">", ">="}[g.r.Intn(4)] + " x"
			}
		}
		chunk, err := parse.Parse(strings.NewReader("return "+cond), "<cond>")
		if err != nil {
			t.Fatalf("%s: %v", cond, err)
		}
		e := chunk[0].(*ast.ReturnStmt).Exprs[0].(*ast.RelationalOpExpr)
		nc := g.newCase()
		held, failed := nc.st.clone(), nc.st.clone()
		nc.a.narrowCompare(e, held, failed, nc.sc)
		for i, s := range nc.eval(t, ctx, c, "tostring("+cond+")") {
			path := failed
			if s == "true" {
				path = held
			}
			for k, l := range []*local{nc.x, nc.y} {
				arg := nc.args[2*i+k]
				v, _ := strconv.ParseFloat(arg.(string), 64)
				if bad := outside(v, path.nums[l]); bad != "" {
					t.Fatalf("%s is %s with x = %v %+v, y = %v %+v: %s = %v is %s for %+v", cond, s, nc.args[2*i], nc.nx, nc.args[2*i+1], nc.ny, l.name, arg, bad, path.nums[l])
				}
			}
			checked++
		}
	}
	t.Logf("%d comparisons, %d pairs checked", *numRuns, checked)
}
