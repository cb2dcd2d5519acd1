package lua51

import (
	"math"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// FormatNumber formats a number as Lua 5.1 does ("%.14g"); gopher-lua uses
// Go's shortest representation.
func FormatNumber(f float64) string { return lua.FormatNumber(f, 14) }

// ToString is lua_tolstring: strings and numbers convert, nothing else.
func ToString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return FormatNumber(float64(v)), true
	}
	return "", false
}

// Integer is C's (long long) cast of a Lua number, as Redis and its Lua
// libraries make it: truncation towards zero, and on x86-64 the "integer
// indefinite" value for anything out of range or NaN. Go leaves that case
// implementation-defined, so spell it out.
func Integer(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775807.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}
