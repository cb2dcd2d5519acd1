package transactional

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// luaToNumber is Lua 5.1's tonumber as Redis builds it: base 10 goes
// through C's strtod (luaO_str2d), which reads exponents ("1e15"), hex
// ("0x1A"), "inf" and "nan", and surrounding blanks; gopher-lua's own
// rejects the first and the last two, so scripts that parse ARGV would see
// nil where Redis sees a number. Other bases go through strtoul.
func luaToNumber(L *lua.LState) int {
	v := L.CheckAny(1)
	base := L.OptInt(2, 10)
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if base == 10 {
		switch v := v.(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			if f, ok := str2d(string(v)); ok {
				L.Push(luaNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := ""
	switch v := v.(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = strconv.FormatFloat(float64(v), 'g', 14, 64)
	default:
		L.Push(lua.LNil)
		return 1
	}
	if n, ok := strtoul(s, base); ok {
		L.Push(lua.LNumber(n))
		return 1
	}
	L.Push(lua.LNil)
	return 1
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

// str2d is luaO_str2d over glibc's strtod: a whole string (to its first NUL,
// where C stops reading) that is one number between optional blanks.
func str2d(s string) (float64, bool) {
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

// strtoul reads an unsigned integer in base (with C's optional sign and,
// for base 16, 0x prefix), then blanks, to the end of s.
func strtoul(s string, base int) (float64, bool) {
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

// smallNumbers are the Lua values of the integers 0 to 1023. Making an
// LNumber a Lua value allocates, and scripts keep getting the same small
// numbers: counts, flags, replies of HSET and EXPIRE, their own arguments.
var smallNumbers = func() (t [1024]lua.LValue) {
	for i := range t {
		t[i] = lua.LNumber(i)
	}
	return t
}()

// luaNumber is lua.LNumber(f) as a Lua value, without an allocation for a
// small non-negative integer.
func luaNumber(f float64) lua.LValue {
	if f >= 0 && f < float64(len(smallNumbers)) && f == math.Trunc(f) && !math.Signbit(f) {
		return smallNumbers[int(f)]
	}
	return lua.LNumber(f)
}
