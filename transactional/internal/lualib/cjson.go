package lualib

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
)

// cjson follows Redis 7's deps/lua/src/lua_cjson.c (Lua CJSON 2.1.0 with
// Redis's patches): an empty table encodes as {}, null decodes to
// cjson.null, numbers use "%.14g", '/' is escaped, and the error texts are
// the C library's. miniredis's gopher-json gets {} and null wrong.

// cjsonNull marks cjson.null, Lua CJSON's NULL light userdata, so that
// tostring can print it as Lua 5.1 prints a NULL pointer.
type cjsonNull struct{}

const (
	cjsonDefaultMaxDepth   = 1000
	cjsonSparseRatio       = 2
	cjsonSparseSafe        = 10
	cjsonDefaultPrecision  = 14
	cjsonDefaultMaxDecoded = 1000
)

type cjsonConfig struct {
	encodeMaxDepth    int
	decodeMaxDepth    int
	precision         int
	sparseConvert     bool
	sparseRatio       int
	sparseSafe        int
	encodeInvalidNums bool
	decodeInvalidNums bool
	encodeKeepBuffer  bool
}

func openCjson(L *lua.LState) *lua.LTable {
	null := L.NewUserData()
	null.Value = cjsonNull{}
	return newCjson(L, null)
}

// newCjson is lua_cjson_new: a module table with a configuration of its
// own. cjson.new makes another, as in Redis; its null is the same value
// (Lua CJSON's is the NULL light userdata).
func newCjson(L *lua.LState, null *lua.LUserData) *lua.LTable {
	cfg := &cjsonConfig{
		encodeMaxDepth: cjsonDefaultMaxDepth, decodeMaxDepth: cjsonDefaultMaxDepth,
		precision: cjsonDefaultPrecision, sparseRatio: cjsonSparseRatio, sparseSafe: cjsonSparseSafe,
		decodeInvalidNums: true, encodeKeepBuffer: true,
	}
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"new": func(L *lua.LState) int {
			L.Push(newCjson(L, null))
			return 1
		},
		"encode": func(L *lua.LState) int { return cjsonEncode(L, cfg, null) },
		"decode": func(L *lua.LState) int { return cjsonDecode(L, cfg, null) },
		"encode_max_depth": func(L *lua.LState) int {
			return cjsonIntOption(L, "encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
		},
		"decode_max_depth": func(L *lua.LState) int {
			return cjsonIntOption(L, "decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
		},
		"encode_number_precision": func(L *lua.LState) int {
			return cjsonIntOption(L, "encode_number_precision", &cfg.precision, 1, 14)
		},
		"encode_keep_buffer": func(L *lua.LState) int {
			return cjsonBoolOption(L, &cfg.encodeKeepBuffer)
		},
		"encode_invalid_numbers": func(L *lua.LState) int {
			return cjsonBoolOption(L, &cfg.encodeInvalidNums)
		},
		"decode_invalid_numbers": func(L *lua.LState) int {
			return cjsonBoolOption(L, &cfg.decodeInvalidNums)
		},
		"encode_sparse_array": func(L *lua.LState) int {
			if L.GetTop() >= 1 {
				cfg.sparseConvert = L.ToBool(1)
			}
			if L.GetTop() >= 2 {
				cfg.sparseRatio = L.CheckCInt(2)
			}
			if L.GetTop() >= 3 {
				cfg.sparseSafe = L.CheckCInt(3)
			}
			L.Push(lua.LBool(cfg.sparseConvert))
			L.Push(lua.LNumber(cfg.sparseRatio))
			L.Push(lua.LNumber(cfg.sparseSafe))
			return 3
		},
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

func cjsonIntOption(L *lua.LState, name string, v *int, min, max int) int {
	if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
		n := L.CheckCInt(1)
		if n < min || n > max {
			argError(L, 1, name, fmt.Sprintf("expected integer between %d and %d", min, max))
		}
		*v = n
	}
	L.Push(lua.LNumber(*v))
	return 1
}

func cjsonBoolOption(L *lua.LState, v *bool) int {
	if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
		*v = L.ToBool(1)
	}
	L.Push(lua.LBool(*v))
	return 1
}

// argError raises Lua 5.1's luaL_argerror text.
func argError(L *lua.LState, n int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fname, msg)
}

type cjsonEncoder struct {
	L    *lua.LState
	cfg  *cjsonConfig
	null *lua.LUserData
	b    strings.Builder
}

func cjsonEncode(L *lua.LState, cfg *cjsonConfig, null *lua.LUserData) int {
	if L.GetTop() != 1 {
		argError(L, 1, "encode", "expected 1 argument")
	}
	enc := &cjsonEncoder{L: L, cfg: cfg, null: null}
	enc.value(L.Get(1), 0)
	L.Push(lua.LString(enc.b.String()))
	return 1
}

func (enc *cjsonEncoder) fail(v lua.LValue, reason string) {
	enc.L.RaiseError("Cannot serialise %s: %s", v.Type().String(), reason)
}

func (enc *cjsonEncoder) value(v lua.LValue, depth int) {
	enc.L.Step() // a kill reaches a long encoding
	switch v := v.(type) {
	case lua.LString:
		enc.str(string(v))
	case lua.LNumber:
		enc.number(float64(v))
	case lua.LBool:
		if v {
			enc.b.WriteString("true")
		} else {
			enc.b.WriteString("false")
		}
	case *lua.LNilType:
		enc.b.WriteString("null")
	case *lua.LUserData:
		if v == enc.null {
			enc.b.WriteString("null")
			return
		}
		enc.fail(v, "type not supported")
	case *lua.LTable:
		depth++
		if depth > enc.cfg.encodeMaxDepth {
			enc.L.RaiseError("Cannot serialise, excessive nesting (%d)", depth)
		}
		n := enc.arrayLength(v)
		if n > 0 {
			enc.b.WriteByte('[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					enc.b.WriteByte(',')
				}
				enc.value(v.RawGetInt(i), depth)
			}
			enc.b.WriteByte(']')
			return
		}
		enc.object(v, depth)
	default:
		enc.fail(v, "type not supported")
	}
}

// arrayLength is lua_array_length: the highest index when every key is a
// positive integer and the array is not "excessively sparse", else 0 (an
// object); -1 never escapes, sparse arrays raise.
func (enc *cjsonEncoder) arrayLength(t *lua.LTable) int {
	max, items := 0, 0
	isArray := true
	t.ForEach(func(k, _ lua.LValue) {
		if !isArray {
			return
		}
		n, ok := k.(lua.LNumber)
		if !ok || float64(n) < 1 || float64(n) != math.Floor(float64(n)) {
			isArray = false
			return
		}
		if int(n) > max {
			max = int(n)
		}
		items++
	})
	if !isArray {
		return 0
	}
	if enc.cfg.sparseRatio > 0 && max > items*enc.cfg.sparseRatio && max > enc.cfg.sparseSafe {
		if !enc.cfg.sparseConvert {
			enc.fail(t, "excessively sparse array")
		}
		return 0
	}
	return max
}

func (enc *cjsonEncoder) object(t *lua.LTable, depth int) {
	enc.b.WriteByte('{')
	first := true
	t.ForEach(func(k, v lua.LValue) {
		if !first {
			enc.b.WriteByte(',')
		}
		first = false
		switch k := k.(type) {
		case lua.LString:
			enc.str(string(k))
		case lua.LNumber:
			enc.b.WriteByte('"')
			enc.number(float64(k))
			enc.b.WriteByte('"')
		default:
			enc.fail(k, "table key must be a number or string")
		}
		enc.b.WriteByte(':')
		enc.value(v, depth)
	})
	enc.b.WriteByte('}')
}

func (enc *cjsonEncoder) number(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if !enc.cfg.encodeInvalidNums {
			enc.fail(lua.LNumber(f), "must not be NaN or Inf")
		}
		if math.IsNaN(f) {
			enc.b.WriteString("nan")
		} else if f > 0 {
			enc.b.WriteString("inf")
		} else {
			enc.b.WriteString("-inf")
		}
		return
	}
	enc.b.WriteString(lua.FormatNumber(f, enc.cfg.precision))
}

// cjsonEscapes is char2escape from lua_cjson.c.
func cjsonEscape(c byte) string {
	switch c {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '/':
		return `\/`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if c < 0x20 || c == 0x7f {
		return fmt.Sprintf(`\u%04x`, c)
	}
	return ""
}

func (enc *cjsonEncoder) str(s string) {
	enc.b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if esc := cjsonEscape(s[i]); esc != "" {
			enc.b.WriteString(esc)
		} else {
			enc.b.WriteByte(s[i])
		}
	}
	enc.b.WriteByte('"')
}

type cjsonDecoder struct {
	L     *lua.LState
	cfg   *cjsonConfig
	null  *lua.LUserData
	s     string
	pos   int
	depth int
}

func cjsonDecode(L *lua.LState, cfg *cjsonConfig, null *lua.LUserData) int {
	if L.GetTop() != 1 {
		argError(L, 1, "decode", "expected 1 argument")
	}
	s, ok := lua51.ToString(L.Get(1))
	if !ok {
		argError(L, 1, "decode", "string expected, got "+argTypeName(L, 1))
	}
	d := &cjsonDecoder{L: L, cfg: cfg, null: null, s: s}
	// Lua CJSON refuses UTF-16/32 input by looking at the first two bytes.
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		L.RaiseError("JSON parser does not support UTF-16 or UTF-32")
	}
	v := d.value()
	d.skipSpace()
	if d.pos < len(d.s) {
		d.fail("the end", d.tokenName())
	}
	L.Push(v)
	return 1
}

// argTypeName is luaL_typename for argument n: "no value" past the last
// argument, where an explicit nil is "nil".
func argTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

func (d *cjsonDecoder) fail(expected, found string) {
	d.L.RaiseError("Expected %s but found %s at character %d", expected, found, d.pos+1)
}

func (d *cjsonDecoder) skipSpace() {
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *cjsonDecoder) tokenName() string {
	if d.pos >= len(d.s) {
		return "T_END"
	}
	switch c := d.s[d.pos]; {
	case c == '{':
		return "T_OBJ_BEGIN"
	case c == '}':
		return "T_OBJ_END"
	case c == '[':
		return "T_ARR_BEGIN"
	case c == ']':
		return "T_ARR_END"
	case c == ',':
		return "T_COMMA"
	case c == ':':
		return "T_COLON"
	case c == '"':
		return "T_STRING"
	case c == '-' || c >= '0' && c <= '9':
		return "T_NUMBER"
	case strings.HasPrefix(d.s[d.pos:], "true") || strings.HasPrefix(d.s[d.pos:], "false"):
		return "T_BOOLEAN"
	case strings.HasPrefix(d.s[d.pos:], "null"):
		return "T_NULL"
	}
	return "invalid token"
}

func (d *cjsonDecoder) value() lua.LValue {
	d.L.Step() // a kill reaches a long decoding
	d.skipSpace()
	if d.pos >= len(d.s) {
		d.fail("value", "T_END")
	}
	switch c := d.s[d.pos]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return lua.LString(d.str())
	case c == '-' || c >= '0' && c <= '9' || c == 'i' || c == 'n' && strings.HasPrefix(d.s[d.pos:], "nan") || c == 'I' || c == 'N':
		if c == 'n' || c == 'i' || c == 'I' || c == 'N' {
			if !d.cfg.decodeInvalidNums {
				d.fail("value", "invalid number")
			}
		}
		return d.number()
	case strings.HasPrefix(d.s[d.pos:], "true"):
		d.pos += 4
		return lua.LTrue
	case strings.HasPrefix(d.s[d.pos:], "false"):
		d.pos += 5
		return lua.LFalse
	case strings.HasPrefix(d.s[d.pos:], "null"):
		d.pos += 4
		return d.null
	}
	d.fail("value", d.tokenName())
	return lua.LNil
}

func (d *cjsonDecoder) enter() {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth {
		d.L.RaiseError("Found too many nested data structures (%d) at character %d", d.depth, d.pos+1)
	}
}

func (d *cjsonDecoder) object() lua.LValue {
	d.enter()
	d.pos++
	t := d.L.CreateTable(0, 0) // lua_newtable, as lua_cjson makes them
	d.skipSpace()
	if d.pos < len(d.s) && d.s[d.pos] == '}' {
		d.pos++
		d.depth--
		return t
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.s) || d.s[d.pos] != '"' {
			d.fail("object key string", d.tokenName())
		}
		k := d.str()
		d.skipSpace()
		if d.pos >= len(d.s) || d.s[d.pos] != ':' {
			d.fail("colon", d.tokenName())
		}
		d.pos++
		t.RawSetString(k, d.value())
		d.skipSpace()
		if d.pos < len(d.s) && d.s[d.pos] == '}' {
			d.pos++
			d.depth--
			return t
		}
		if d.pos >= len(d.s) || d.s[d.pos] != ',' {
			d.fail("comma or object end", d.tokenName())
		}
		d.pos++
	}
}

func (d *cjsonDecoder) array() lua.LValue {
	d.enter()
	d.pos++
	t := d.L.CreateTable(0, 0) // lua_newtable, as lua_cjson makes them
	d.skipSpace()
	if d.pos < len(d.s) && d.s[d.pos] == ']' {
		d.pos++
		d.depth--
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value())
		d.skipSpace()
		if d.pos < len(d.s) && d.s[d.pos] == ']' {
			d.pos++
			d.depth--
			return t
		}
		if d.pos >= len(d.s) || d.s[d.pos] != ',' {
			d.fail("comma or array end", d.tokenName())
		}
		d.pos++
	}
}

func (d *cjsonDecoder) str() string {
	d.pos++
	var b strings.Builder
	for {
		// lua-cjson reports a string's errors where it stopped: the end,
		// or the backslash of the bad escape.
		if d.pos >= len(d.s) {
			d.fail("value", "unexpected end of string")
		}
		c := d.s[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b.String()
		case c == '\\':
			if d.pos+1 >= len(d.s) {
				d.fail("value", "invalid escape code")
			}
			e := d.s[d.pos+1]
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, used := d.unicode(d.pos)
				if used == 0 {
					d.fail("value", "invalid unicode escape code")
				}
				var buf [4]byte
				n := utf8.EncodeRune(buf[:], r)
				b.Write(buf[:n])
				d.pos += used
				continue
			default:
				d.fail("value", "invalid escape code")
			}
			d.pos += 2
		default:
			b.WriteByte(c)
			d.pos++
		}
	}
}

// unicode decodes \uXXXX (and a following low surrogate) at i.
func (d *cjsonDecoder) unicode(i int) (rune, int) {
	hex4 := func(j int) (rune, bool) {
		if j+6 > len(d.s) || d.s[j] != '\\' || d.s[j+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(d.s[j+2:j+6], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex4(i)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r >= 0xdc00 {
			return 0, 0
		}
		lo, ok := hex4(i + 6)
		if !ok || lo < 0xdc00 || lo > 0xdfff {
			return 0, 0
		}
		return utf16.DecodeRune(r, lo), 12
	}
	return r, 6
}

func (d *cjsonDecoder) number() lua.LValue {
	start := d.pos
	end := start
	for end < len(d.s) && strings.IndexByte("+-0123456789.eExXaAbBcCdDfFiInNtTyY", d.s[end]) >= 0 {
		end++
	}
	text := d.s[start:end]
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X") {
			if n, err2 := strconv.ParseInt(text[2:], 16, 64); err2 == nil {
				d.pos = end
				return lua.LNumber(n)
			}
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			d.pos = end
			return lua.LNumber(f)
		}
		d.fail("value", "invalid number")
	}
	d.pos = end
	return lua.LNumber(f)
}
