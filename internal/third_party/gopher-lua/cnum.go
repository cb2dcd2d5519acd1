package lua

// This file is scriptgen's, not upstream's: Lua 5.1's conversions between
// numbers and strings as Redis's C build makes them. Strings read as numbers
// through glibc's strtod (luaO_str2d), in literals, in arithmetic on strings
// and in tonumber; numbers print as C's printf("%.14g") (lua_number2str),
// in tostring, in .., in the string library and in table.concat. gopher-lua
// used Go's strconv for both, which reads "1e500" as an error and prints
// 2^53 as "9007199254740992" and 1/3 with 16 digits, where Redis prints
// "9.007199254741e+15" and "0.33333333333333".

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// FormatNumber is C's printf("%.<prec>g", f) as glibc prints it, with
// "inf", "-inf", and "nan" or "-nan" by the sign of the NaN (0/0 is "-nan"
// on x86-64). Lua prints numbers with prec 14, Redis its doubles with 17.
func FormatNumber(f float64, prec int) string {
	switch {
	case math.IsNaN(f) && math.Signbit(f):
		return "-nan"
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if prec < 19 && f == math.Trunc(f) && !(f == 0 && math.Signbit(f)) && math.Abs(f) < math.Pow10(prec) {
		// The common case, an integer of at most prec digits: its digits.
		return strconv.FormatInt(int64(f), 10)
	}
	return formatG(f, prec, false)
}

// formatG is C's printf("%.<prec>g") of a finite f, or "%#.<prec>g" when
// alt: trailing zeros kept and a decimal point always.
func formatG(f float64, prec int, alt bool) string {
	if prec == 0 {
		prec = 1
	}
	// The exponent is %e's: rounding can carry into the next decade (9.99…→10).
	es := strconv.FormatFloat(f, 'e', prec-1, 64)
	mant, e, _ := strings.Cut(es, "e")
	exp, _ := strconv.Atoi(e)
	s, suffix := mant, "e"+e // strconv writes at least two exponent digits, as C does
	if exp >= -4 && exp < prec {
		s, suffix = strconv.FormatFloat(f, 'f', prec-1-exp, 64), ""
	}
	switch {
	case alt && !strings.Contains(s, "."):
		s += "."
	case !alt && strings.Contains(s, "."):
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + suffix
}

// The NaNs of glibc's math functions, where they differ from Go's in
// sign, which Lua shows ("nan" or "-nan"): a NaN argument comes back as it
// is, and a result that is invalid (log of a negative number) is the
// negative NaN that 0/0 makes on x86-64. Go's functions return a positive
// NaN for both.

// cMath1 is f(x) with glibc's NaNs.
func cMath1(f func(float64) float64, x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	if r := f(x); !math.IsNaN(r) {
		return r
	}
	return math.Copysign(math.NaN(), -1)
}

// cLog is log, right for subnormal numbers too (Go's, on amd64, is not:
// it gives -709.09 for 5e-324, whose log is -744.44).
func cLog(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// cLog10 is glibc's log10: exact at powers of ten, which Go's misses by
// an ulp (14.999999999999998 for 1e15, so %d prints 14), right for
// subnormal numbers, and with a positive NaN for a negative number.
func cLog10(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	r := cLog(x) * (1 / math.Ln10)
	if k := math.Round(r); k >= -22 && k <= 22 && x == math.Pow10(int(k)) {
		return k
	}
	if math.IsNaN(r) {
		return math.NaN()
	}
	return r
}

// cModf is C's modf: ±inf's fractional part is a zero of its sign (Go's
// math.Modf gives NaN).
func cModf(x float64) (float64, float64) {
	if math.IsInf(x, 0) {
		return x, math.Copysign(0, x)
	}
	return math.Modf(x)
}

// cPow is glibc's pow: a NaN y comes back as x + y does; a NaN x squared,
// its sign flipped when negative to an odd power, then inverted for a
// negative y, all of which keep it NaN; an invalid power (a negative base
// to a fractional exponent) is 0/0's NaN.
func cPow(x, y float64) float64 {
	if r, ok := intPow(x, y); ok {
		return r
	}
	r := math.Pow(x, y)
	switch {
	case !math.IsNaN(r):
		return r
	case math.IsNaN(y):
		return x + y
	case math.IsNaN(x):
		if math.Signbit(x) && math.Abs(y) < 1<<53 && math.Mod(y, 2) != 0 && y == math.Trunc(y) {
			return math.Copysign(x, 1)
		}
		return x
	}
	return math.Copysign(r, -1)
}

// intPow is x^y for an integral y of at most 64 in magnitude, correctly
// rounded as glibc's pow is (Go's multiplies by repeated squaring, and
// can be an ulp off: (-999999999999999)^5 prints 1e+75 where Redis
// prints 9.9999999999999e+74).
func intPow(x, y float64) (float64, bool) {
	if y != math.Trunc(y) || math.Abs(y) > 64 || x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	switch y {
	case 0:
		return 1, true
	case 1:
		return x, true
	case 2:
		return x * x, true
	case -1:
		return 1 / x, true
	}
	n := int(math.Abs(y))
	p := new(big.Float).SetPrec(4096).SetFloat64(1)
	bx := new(big.Float).SetPrec(4096).SetFloat64(x)
	for i := 0; i < n; i++ {
		p.Mul(p, bx) // exact: 64 factors of 53 bits fit in 4096
	}
	if y < 0 {
		p.Quo(new(big.Float).SetPrec(4096).SetFloat64(1), p)
	}
	f, _ := p.Float64()
	return f, true
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// cPrefix reads what C's number parsers skip: s ends at its first NUL, then
// leading blanks and an optional sign. start is where the sign (or number)
// begins, i where the digits do.
func cPrefix(s string) (cs string, start, i int, neg bool) {
	if n := strings.IndexByte(s, 0); n >= 0 {
		s = s[:n]
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start = i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	return s, start, i, neg
}

// StrToNumber is luaO_str2d over glibc's strtod: a whole string (to its
// first NUL, where C stops reading) that is one number between optional
// blanks: decimal, with an exponent, hexadecimal (integer or C99 float),
// "inf", "infinity" or "nan".
func StrToNumber(s string) (float64, bool) {
	if f, ok := plainInteger(s); ok {
		return f, true
	}
	s, start, i, _ := cPrefix(s)
	var f float64
	end, ok, word := 0, false, true
	rest := s[i:]
	lower := strings.ToLower(rest)
	switch {
	case strings.HasPrefix(lower, "0x") && len(rest) > 2 && isHexStart(rest[2:]):
		f, end, ok = hexFloat(s, start, i+2)
		word = false
	case strings.HasPrefix(lower, "infinity"):
		f, end, ok = math.Inf(1), i+8, true
	case strings.HasPrefix(lower, "inf"):
		f, end, ok = math.Inf(1), i+3, true
	case strings.HasPrefix(lower, "nan"):
		f, end, ok = math.NaN(), i+3, true
		if end < len(s) && s[end] == '(' {
			if j := strings.IndexByte(s[end:], ')'); j >= 0 && nanChars(s[end+1:end+j]) {
				end += j + 1
			}
		}
	default:
		f, end, ok = decFloat(s, start, i)
		word = false
	}
	if !ok {
		return 0, false
	}
	if word && s[start] == '-' {
		f = -f
	}
	for end < len(s) && isCSpace(s[end]) {
		end++
	}
	return f, end == len(s)
}

func isHexStart(s string) bool {
	return isHex(s[0]) || s[0] == '.' && len(s) > 1 && isHex(s[1])
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func nanChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// decFloat reads digits [. digits] [e [sign] digits] from s[i:].
func decFloat(s string, start, i int) (float64, int, bool) {
	j := i
	digits := 0
	for j < len(s) && isDigit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(s[start:j], 64)
	if err != nil && !isRange(err) {
		return 0, 0, false
	}
	return f, j, true
}

// hexFloat reads a C99 hex float: hex digits [. hex digits] [p [sign] digits].
func hexFloat(s string, start, i int) (float64, int, bool) {
	j := i
	for j < len(s) && isHex(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isHex(s[j]) {
			j++
		}
	}
	mant := s[start:j]
	exp := "p0"
	if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			exp = s[j:k]
			j = k
		}
	}
	f, err := strconv.ParseFloat(mant+exp, 64)
	if err != nil && !isRange(err) {
		return 0, 0, false
	}
	return f, j, true
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// StrToUnsigned is tonumber(s, base) for a base other than 10: C's strtoul
// in that base (with its optional sign and, for base 16, 0x prefix), then
// blanks, to the end of s.
func StrToUnsigned(s string, base int) (float64, bool) {
	s, _, i, neg := cPrefix(s)
	if base == 16 && i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
	}
	var n uint64
	digits := 0
	overflow := false
	for ; i < len(s); i++ {
		d := digitVal(s[i])
		if d >= base {
			break
		}
		if n > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		n = n*uint64(base) + uint64(d)
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, false
	}
	switch {
	case overflow:
		// ULONG_MAX, whatever the sign.
		n = math.MaxUint64
	case neg:
		n = -n
	}
	return float64(n), true
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// plainInteger reads the numbers scripts mostly parse, such as ARGV's and
// hash fields': an optional minus and 1 to 15 decimal digits, nothing
// else. Such a number is exact as a double, so strtod reads the same (-0
// included).
func plainInteger(s string) (float64, bool) {
	digits := s
	if len(s) > 0 && s[0] == '-' {
		digits = s[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n)
	if len(digits) < len(s) {
		f = -f
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
