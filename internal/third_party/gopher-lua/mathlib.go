package lua

import (
	"math"
	"math/rand"
)

func OpenMath(L *LState) int {
	mod := L.RegisterModule(MathLibName, mathFuncs).(*LTable)
	for name, f := range mathFast {
		mod.RawGetString(name).(*LFunction).Fast = f
	}
	mod.RawSetString("pi", LNumber(math.Pi))
	mod.RawSetString("huge", LNumber(math.MaxFloat64))
	L.Push(mod)
	return 1
}

var mathFuncs = map[string]LGFunction{
	"abs":        mathAbs,
	"acos":       mathAcos,
	"asin":       mathAsin,
	"atan":       mathAtan,
	"atan2":      mathAtan2,
	"ceil":       mathCeil,
	"cos":        mathCos,
	"cosh":       mathCosh,
	"deg":        mathDeg,
	"exp":        mathExp,
	"floor":      mathFloor,
	"fmod":       mathFmod,
	"frexp":      mathFrexp,
	"ldexp":      mathLdexp,
	"log":        mathLog,
	"log10":      mathLog10,
	"max":        mathMax,
	"min":        mathMin,
	"mod":        mathFmod, // scriptgen: Lua 5.1's LUA_COMPAT_MOD alias of fmod
	"modf":       mathModf,
	"pow":        mathPow,
	"rad":        mathRad,
	"random":     mathRandom,
	"randomseed": mathRandomseed,
	"sin":        mathSin,
	"sinh":       mathSinh,
	"sqrt":       mathSqrt,
	"tan":        mathTan,
	"tanh":       mathTanh,
}

func mathAbs(L *LState) int {
	L.PushNumber(LNumber(math.Abs(float64(L.CheckNumber(1)))))
	return 1
}

func mathAcos(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Acos, float64(L.CheckNumber(1)))))
	return 1
}

func mathAsin(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Asin, float64(L.CheckNumber(1)))))
	return 1
}

func mathAtan(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Atan, float64(L.CheckNumber(1)))))
	return 1
}

func mathAtan2(L *LState) int {
	// The second first, as gcc evaluates atan2's arguments (scriptgen).
	x := float64(L.CheckNumber(2))
	L.PushNumber(LNumber(math.Atan2(float64(L.CheckNumber(1)), x)))
	return 1
}

func mathCeil(L *LState) int {
	L.PushNumber(LNumber(math.Ceil(float64(L.CheckNumber(1)))))
	return 1
}

func mathCos(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Cos, float64(L.CheckNumber(1)))))
	return 1
}

func mathCosh(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Cosh, float64(L.CheckNumber(1)))))
	return 1
}

func mathDeg(L *LState) int {
	L.PushNumber(LNumber(float64(L.CheckNumber(1)) / (math.Pi / 180))) // scriptgen: Lua's RADIANS_PER_DEGREE
	return 1
}

func mathExp(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Exp, float64(L.CheckNumber(1)))))
	return 1
}

func mathFloor(L *LState) int {
	L.PushNumber(LNumber(math.Floor(float64(L.CheckNumber(1)))))
	return 1
}

// mathFmod is C's fmod as glibc computes it on x86-64 (scriptgen: a NaN it
// makes, of a zero divisor or an infinite dividend, is negative, as 0/0 is;
// a NaN argument comes back as it is).
func mathFmod(L *LState) int {
	b, a := float64(L.CheckNumber(2)), float64(L.CheckNumber(1)) // as gcc evaluates fmod's arguments
	r := math.Mod(a, b)
	switch {
	case math.IsNaN(a):
		r = a
	case math.IsNaN(b):
		r = b
	case math.IsNaN(r):
		r = math.Copysign(r, -1)
	}
	L.PushNumber(LNumber(r))
	return 1
}

func mathFrexp(L *LState) int {
	v1, v2 := math.Frexp(float64(L.CheckNumber(1)))
	L.PushNumber(LNumber(v1))
	L.PushNumber(LNumber(v2))
	return 2
}

func mathLdexp(L *LState) int {
	// scriptgen: the exponent is luaL_checkint's, a C int.
	e := int(int32(L.CheckInt64(2))) // checked first, as gcc evaluates ldexp's arguments
	L.PushNumber(LNumber(math.Ldexp(float64(L.CheckNumber(1)), e)))
	return 1
}

func mathLog(L *LState) int {
	L.PushNumber(LNumber(cMath1(cLog, float64(L.CheckNumber(1)))))
	return 1
}

func mathLog10(L *LState) int {
	L.PushNumber(LNumber(cLog10(float64(L.CheckNumber(1)))))
	return 1
}

func mathMax(L *LState) int {
	if L.GetTop() == 0 {
		L.RaiseError("wrong number of arguments")
	}
	max := L.CheckNumber(1)
	top := L.GetTop()
	for i := 2; i <= top; i++ {
		v := L.CheckNumber(i)
		if v > max {
			max = v
		}
	}
	L.PushNumber(max)
	return 1
}

func mathMin(L *LState) int {
	if L.GetTop() == 0 {
		L.RaiseError("wrong number of arguments")
	}
	min := L.CheckNumber(1)
	top := L.GetTop()
	for i := 2; i <= top; i++ {
		v := L.CheckNumber(i)
		if v < min {
			min = v
		}
	}
	L.PushNumber(min)
	return 1
}

func mathModf(L *LState) int {
	v1, v2 := cModf(float64(L.CheckNumber(1)))
	L.PushNumber(LNumber(v1))
	L.PushNumber(LNumber(v2))
	return 2
}

func mathPow(L *LState) int {
	y := float64(L.CheckNumber(2)) // checked first, as gcc evaluates pow's arguments
	L.PushNumber(LNumber(cPow(float64(L.CheckNumber(1)), y)))
	return 1
}

func mathRad(L *LState) int {
	L.PushNumber(LNumber(float64(L.CheckNumber(1)) * (math.Pi / 180))) // scriptgen: no overflow at 1e308
	return 1
}

// mathRandom is Redis's redis_math_random over Go's generator: C int
// bounds (luaL_checkint), "interval is empty" for an empty one and
// "wrong number of arguments" past two (scriptgen: upstream handed the
// bounds to rand.Intn, which panics on an empty interval). As in C, the
// width u-l+1 wraps around in 32 bits.
func mathRandom(L *LState) int {
	return PushRandom(L, rand.Float64())
}

// PushRandom is math.random's argument handling over a number r in [0, 1)
// that the caller's generator drew (scriptgen: so that an embedder can put
// Redis's own generator behind math.random).
func PushRandom(L *LState, r float64) int {
	switch L.GetTop() {
	case 0:
		L.PushNumber(LNumber(r))
	case 1:
		u := int32(L.CheckCInt(1))
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.PushNumber(LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l, u := int32(L.CheckCInt(1)), int32(L.CheckCInt(2))
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.PushNumber(LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func mathRandomseed(L *LState) int {
	rand.Seed(int64(L.CheckCInt(1)))
	return 0
}

func mathSin(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Sin, float64(L.CheckNumber(1)))))
	return 1
}

func mathSinh(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Sinh, float64(L.CheckNumber(1)))))
	return 1
}

func mathSqrt(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Sqrt, float64(L.CheckNumber(1)))))
	return 1
}

func mathTan(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Tan, float64(L.CheckNumber(1)))))
	return 1
}

func mathTanh(L *LState) int {
	L.PushNumber(LNumber(cMath1(math.Tanh, float64(L.CheckNumber(1)))))
	return 1
}

//

// Fast versions of the math functions scripts call most (scriptgen): the
// same results for numbers; anything else goes to the function itself.

func fastMath1(f func(float64) float64) LFastFunction {
	return func(L *LState, args []LValue) (LValue, bool) {
		if n, ok := args[0].(LNumber); ok {
			return L.alloc.LNumber2I(LNumber(f(float64(n)))), true
		}
		return nil, false
	}
}

// fastMathPick is math.max (greater) or math.min: the first argument,
// replaced by each later one that compares so, as mathMax and mathMin do.
func fastMathPick(greater bool) LFastFunction {
	return func(L *LState, args []LValue) (LValue, bool) {
		pick, ok := args[0].(LNumber)
		if !ok {
			return nil, false
		}
		for _, a := range args[1:] {
			v, ok := a.(LNumber)
			if !ok {
				return nil, false
			}
			if greater && v > pick || !greater && v < pick {
				pick = v
			}
		}
		return L.alloc.LNumber2I(pick), true
	}
}

// modfInt is math.modf's first result, all that a call for one result
// (the only kind a fast function serves) keeps: the integral part,
// truncated toward zero.
func modfInt(x float64) float64 {
	i, _ := cModf(x)
	return i
}

var mathFast = map[string]LFastFunction{
	"abs": fastMath1(math.Abs), "ceil": fastMath1(math.Ceil), "floor": fastMath1(math.Floor),
	"max": fastMathPick(true), "min": fastMathPick(false), "modf": fastMath1(modfInt),
}
