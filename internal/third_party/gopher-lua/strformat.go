package lua

// This file is scriptgen's, not upstream's: string.format as Lua 5.1's
// str_format does it over glibc's sprintf, which is what Redis runs.
// Upstream handed the format to Go's fmt.Sprintf, which prints -2 as "-2"
// under %x, NaN as "NaN", and a string under %d as "%!d(string=…)", where
// Lua converts the string or raises "number expected".

import (
	"math"
	"strconv"
	"strings"
)

// cSpec is one conversion's flags, width and precision (-1: none).
type cSpec struct {
	minus, plus, space, hash, zero bool
	width, prec                    int
}

func strFormat(L *LState) int {
	format := L.CheckString(1)
	top := L.GetTop()
	arg := 1
	var b strings.Builder
	for i := 0; i < len(format); {
		c := format[i]
		i++
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i < len(format) && format[i] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		arg++
		if arg > top {
			L.ArgError(arg, "no value")
		}
		var sp cSpec
		i, sp = scanFormat(L, format, i)
		conv := byte(0)
		if i < len(format) {
			conv = format[i]
			i++
		}
		var item string
		switch conv {
		case 'c':
			item = string([]byte{byte(cInt32(float64(L.CheckNumber(arg))))})
			item = sp.pad(item, "", false)
		case 'd', 'i':
			item = sp.formatInt(cInt64(float64(L.CheckNumber(arg))))
		case 'o', 'u', 'x', 'X':
			item = sp.formatUnsigned(cUint64(float64(L.CheckNumber(arg))), conv)
		case 'e', 'E', 'f', 'g', 'G':
			item = sp.formatFloat(float64(L.CheckNumber(arg)), conv)
		case 'q':
			addQuoted(&b, L.CheckString(arg))
			continue
		case 's':
			s := L.CheckString(arg)
			if sp.prec < 0 && len(s) >= 100 {
				b.WriteString(s) // whole, NULs and all, as luaL_addvalue does
				continue
			}
			s = cString(s)
			if sp.prec >= 0 && len(s) > sp.prec {
				s = s[:sp.prec]
			}
			item = sp.pad(s, "", false)
		default:
			// lua_pushfstring's %c of the format's end writes nothing.
			L.RaiseError("invalid option '%%%s' to 'format'", cString(string([]byte{conv})))
		}
		// sprintf wrote the item into a C buffer, which is read to its first NUL.
		b.WriteString(cString(item))
	}
	L.Push(LString(b.String()))
	return 1
}

// scanFormat is Lua 5.1's scanformat: flags (at most five), then at most
// two digits of width and two of precision.
func scanFormat(L *LState, f string, i int) (int, cSpec) {
	sp := cSpec{prec: -1}
	start := i
	for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.hash = true
		case '0':
			sp.zero = true
		}
		i++
	}
	if i-start >= 6 {
		L.RaiseError("invalid format (repeated flags)")
	}
	digits := func() int {
		n, j := 0, i
		for j < len(f) && j-i < 2 && isDigit(f[j]) {
			n = n*10 + int(f[j]-'0')
			j++
		}
		i = j
		return n
	}
	sp.width = digits()
	if i < len(f) && f[i] == '.' {
		i++
		sp.prec = digits()
	}
	if i < len(f) && isDigit(f[i]) {
		L.RaiseError("invalid format (width or precision too long)")
	}
	return i, sp
}

// cString is s as C reads it: up to its first NUL.
func cString(s string) string {
	if n := strings.IndexByte(s, 0); n >= 0 {
		return s[:n]
	}
	return s
}

// cInt64 is C's (long long)f on x86-64 (cvttsd2si): NaN and values out of
// range become the "integer indefinite", the smallest int64.
func cInt64(f float64) int64 {
	if !(f > -9223372036854775809.0 && f < 9223372036854775808.0) {
		return math.MinInt64
	}
	return int64(f)
}

// cInt32 is C's (int)f on x86-64, likewise.
func cInt32(f float64) int32 {
	if !(f > -2147483649.0 && f < 2147483648.0) {
		return math.MinInt32
	}
	return int32(f)
}

// cUint64 is C's (unsigned long long)f as gcc compiles it for x86-64:
// below 2^63 (and NaN) the signed conversion's bits, from 2^63 on the
// signed conversion of f - 2^63 with the top bit flipped.
func cUint64(f float64) uint64 {
	if f >= 9223372036854775808.0 {
		return uint64(cInt64(f-9223372036854775808.0)) ^ (1 << 63)
	}
	return uint64(cInt64(f))
}

// pad widens body, after its sign or prefix, to the width: with spaces on
// the left, or on the right under '-', or with zeros between prefix and
// body when zeros apply.
func (sp cSpec) pad(body, prefix string, zeros bool) string {
	n := sp.width - len(prefix) - len(body)
	if n <= 0 {
		return prefix + body
	}
	switch {
	case sp.minus:
		return prefix + body + strings.Repeat(" ", n)
	case zeros && sp.zero:
		return prefix + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + prefix + body
}

func (sp cSpec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case sp.plus:
		return "+"
	case sp.space:
		return " "
	}
	return ""
}

// digits applies an integer conversion's precision: at least prec digits,
// and none for a zero under precision 0.
func (sp cSpec) digits(d string) string {
	if sp.prec == 0 && d == "0" {
		return ""
	}
	if len(d) < sp.prec {
		d = strings.Repeat("0", sp.prec-len(d)) + d
	}
	return d
}

func (sp cSpec) formatInt(v int64) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	return sp.pad(sp.digits(strconv.FormatUint(u, 10)), sp.sign(neg), sp.prec < 0)
}

func (sp cSpec) formatUnsigned(u uint64, conv byte) string {
	var d, prefix string
	switch conv {
	case 'u':
		d = sp.digits(strconv.FormatUint(u, 10))
	case 'o':
		d = sp.digits(strconv.FormatUint(u, 8))
		if sp.hash && !strings.HasPrefix(d, "0") {
			d = "0" + d
		}
	default:
		d = sp.digits(strconv.FormatUint(u, 16))
		if sp.hash && u != 0 {
			prefix = "0x"
		}
		if conv == 'X' {
			d, prefix = strings.ToUpper(d), strings.ToUpper(prefix)
		}
	}
	return sp.pad(d, prefix, sp.prec < 0)
}

func (sp cSpec) formatFloat(f float64, conv byte) string {
	upper := conv == 'E' || conv == 'G'
	neg := math.Signbit(f)
	var body string
	switch {
	case math.IsNaN(f):
		body = "nan"
	case math.IsInf(f, 0):
		body = "inf"
	default:
		prec := sp.prec
		if prec < 0 {
			prec = 6
		}
		a := math.Abs(f)
		switch conv {
		case 'e', 'E':
			body = strconv.FormatFloat(a, 'e', prec, 64)
			if sp.hash && prec == 0 {
				body = strings.Replace(body, "e", ".e", 1)
			}
		case 'f':
			body = strconv.FormatFloat(a, 'f', prec, 64)
			if sp.hash && prec == 0 {
				body += "."
			}
		default:
			body = formatG(a, prec, sp.hash)
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return sp.pad(body, sp.sign(neg), true)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return sp.pad(body, sp.sign(neg), false)
}

// addQuoted is Lua 5.1's addquoted: s between double quotes, with `"`, `\`
// and newlines escaped by a backslash, CR as \r and NUL as \000.
func addQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
