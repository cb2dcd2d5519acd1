package transactional

import (
	"flag"
	"math/rand"
	"strings"
	"testing"
)

var (
	luaRuns = flag.Int("lua.runs", 3000, "random snippets TestLuaMatchesRedis runs")
	luaSeed = flag.Int64("lua.seed", 1, "seed of TestLuaMatchesRedis")
)

// luaGen writes random snippets of Lua 5.1 where a compiler or an
// interpreter other than Lua's tends to part from it: multiple values in
// every position (calls, varargs, constructors, select, unpack, multiple
// assignment), escapes and numerals in literals, precedence, closures over
// loop variables, metamethods, error values and levels, tonumber's bases.
type luaGen struct{ picker }

// multi is an expression that may stand for several values.
func (g *luaGen) multi() string {
	return g.pick("f2()", "f0()", "fn()", "f3n()", "(function(...) return ... end)(1, nil, 3)", "unpack({1, nil, 3})",
		"unpack({1, 2, 3}, 2)", "unpack({1, 2, 3}, -1, 1)", "select(2, 'a', 'b', 'c')", "select(-1, 'a', 'b')", "select('#')",
		"pcall(error)", "pcall(error, {})", "pcall(error, 'm', 0)", "pcall(error, 'm', 2)", "string.find('abc', 'b')", "string.byte('ab', 1, 2)")
}

func (g *luaGen) snippet() string {
	m := g.multi()
	switch g.r.Intn(13) {
	case 0, 1:
		return g.pick("{"+m+"}", "{"+m+", 9}", "{("+m+")}", "{9, "+m+"}", "{x = "+m+"}", "{"+m+", nil}", "{nil, "+m+"}", "#{"+m+"}")
	case 2:
		return g.pick("select('#', "+m+")", "select('#', ("+m+"))", "select('#', "+m+", nil)", "(select(2, "+m+"))")
	case 3:
		return g.pick("(function() local a, b, c = "+m+" return a, b, c end)()", "(function() local a, b = 1, "+m+" return a, b end)()",
			"(function() local a, b, c = "+m+", 7 return a, b, c end)()", "(function() local t = {} t.a, t.b = "+m+" return t.a, t.b end)()")
	case 4:
		return compiled(g.pick("'\\65\\066'", "'\\x41'", "'a\\z  b'", "'\\256'", "[[\nx]]", "[==[a]]b]==]", "'\\q'", "\"\\'\"", "'\\0' .. 'a'",
			"'\\9\\10'", "'\\\\n'", "#'\\0\\0'", "'a\\\nb'"))
	case 5:
		return compiled(g.pick("0x10", "0xA", "0x1p4", "1e", ".5", "5.", "0xA.8", "1e+2", "1E-2", "'10' + 1", "'0x10' + 0", "' 5 ' * 2", "'5e' + 0",
			"2^-1", "-2^2", "2^3^2", "not nil == true", "1 .. 2", "1 < 2 == true", "-'2'", "- -1", "'a' < 'b'", "'a\\0b' < 'a\\0c'", "#'abc' + 1"))
	case 6:
		return g.pick("(function() local t = {} for i = 1, 3 do t[i] = function() return i end end return t[1](), t[3]() end)()",
			"(function() local t = {} for _, v in ipairs({'a', 'b'}) do t[#t + 1] = function() return v end end return t[1](), t[2]() end)()",
			"(function() local n = 0 for i = 1, 2, 0.5 do n = n + 1 end return n end)()", "(function() local n = 0 for i = 3, 1 do n = n + 1 end return n end)()",
			"(function() local n = 0 for i = 1, 3 do local i = i * 2 n = n + i end return n end)()",
			"(function() local i = 1 while true do i = i + 1 if i > 3 then break end end return i end)()",
			"(function() local i = 0 repeat local j = i i = i + 1 until j >= 2 return i end)()")
	case 7:
		return g.pick("tonumber('10', 16)", "tonumber('zz', 36)", "tonumber('8', 8)", "tonumber('  10  ')", "tonumber('1e1', 10)", "tonumber('-ff', 16)",
			"tonumber('10', 1)", "tonumber('10', 37)", "tonumber(nil)", "tonumber({})", "tostring(nil)", "tostring(-0)", "tonumber('0x')", "tonumber('')")
	case 8:
		mt := g.pick("{__index = function(t, k) return k .. '!' end}", "{__index = {a = 1}}", "{__call = function(self, x) return x end}",
			"{__eq = function() return true end}", "{__lt = function() return true end}", "{__concat = function(a, b) return 'cat' end}",
			"{__unm = function() return 'neg' end}", "{__len = function() return 9 end}", "{__add = function() return 5 end}",
			"{__tostring = function() return 'ts' end}", "{__newindex = function(t, k, v) rawset(t, k, v * 2) end}", "{__metatable = 'locked'}")
		// Not tostring(t) but with __tostring: a table's address differs.
		use := g.pick("t.a", "t.zz", "t(4)", "t == setmetatable({}, getmetatable(t))", "t < t", "t .. 'x'", "-t", "#t", "t + 1",
			"(getmetatable(t) or {}).__tostring and tostring(t) or 'no __tostring'",
			"(function() t.b = 2 return rawget(t, 'b') end)()", "getmetatable(t)", "pcall(setmetatable, t, {})", "t <= t", "'x' .. t")
		return "(function() local t = setmetatable({}, " + mt + ") return " + use + " end)()"
	case 9:
		return g.pick("pcall(error, 'x', 1)", "select('#', pcall(error))", "pcall(error, nil)", "pcall(function() error({code = 1}) end)",
			"pcall(function() local x = nil; return x.y end)", "pcall(function() return 1 + {} end)", "pcall(function() return #5 end)",
			"pcall(function() return ('x')() end)", "pcall(function() return nil .. 'a' end)", "pcall(function() error('lvl', 2) end)",
			"pcall(function() return {} < {} end)", "pcall(function() return 1 < 'x' end)", "pcall(function() local t = {} t[nil] = 1 end)",
			"pcall(function() local t = {} t[0/0] = 1 end)", "pcall(string.rep)", "pcall(string.sub)", "pcall(ipairs)", "pcall(next, {}, 'nokey')",
			"xpcall(function() error('e') end, function(m) return 'handled: ' .. m end)", "pcall(select, 0, 'a')", "pcall(unpack, {}, 1, 1e8)")
	case 11:
		// The order pairs walks string keys in: Lua's hash order.
		keys := g.pick("{a = 1, b = 2, c = 3}", "{status = 'ok', count = 5, reason = 'none', id = 'abc'}", "{x = 1, y = 2}",
			"(function() local t = {} for i = 1, "+g.pick("3", "7", "9", "17", "33")+" do t['k' .. i] = i end return t end)()",
			"(function() local t = {} t.zeta = 1 t.alpha = 2 t.mid = 3 return t end)()", "cjson.decode('{\"b\":1,\"a\":2,\"c\":3,\"zz\":4}')")
		return "(function() local o = {} for k in pairs(" + keys + ") do o[#o + 1] = k end return table.concat(o, ',') end)()"
	case 10:
		return g.pick("(function(...) return select('#', ...) end)(nil, nil)", "(function(...) local a, b = ... return a, b end)(1)",
			"(function(a, ...) return a, ... end)()", "(function(...) return #{...} end)(1, nil, 3)", "(function(...) local t = {...} return t[3] end)(1, nil, 3)",
			"(function(...) return (...) end)(4, 5)", "(function(a, b) return b end)(1)", "(function(...) return arg end)(1)", "(function(...) return ... , 1 end)(2, 3)")
	}
	return g.pick("type(f0())", "math.max(f2())", "string.format('%s %s', f2())", "(f2())", "f2(), f2()", "f2(), 9", m+", "+m,
		"({f2()})[2]", "#"+"'"+strings.Repeat("a", 3)+"'", "(function() return "+m+" end)()", "(function() return ("+m+") end)()")
}

// compiled evaluates src through loadstring, so that one that does not
// compile fails alone (only whether it compiles is compared: gopher-lua's
// parser words its messages otherwise).
func compiled(src string) string {
	return "(function() local f = loadstring([===[return " + src + "]===]) if not f then return 'does not compile' end return f() end)()"
}

// luaHead shows tables by their array part and key count, and adds the
// functions snippets call: f0 returns nothing, f2 two values, fn a nil, f3n
// three with a nil in the middle.
const luaHead = `local function show(ok, ...)
  local function sv(v)
    if type(v) ~= 'table' then return type(v) .. ' ' .. tostring(v) end
    local parts, n = {}, 0
    for k in pairs(v) do n = n + 1 end
    for i = 1, table.maxn(v) do parts[i] = sv(v[i]) end
    return '{' .. table.concat(parts, ', ') .. '; ' .. n .. ' keys}'
  end
  if not ok then return 'error: ' .. sv((...)) end
  local parts = {}
  for i = 1, select('#', ...) do parts[i] = sv((select(i, ...))) end
  return table.concat(parts, ', ')
end
local function f0() end
local function f2() return 'p', 'q' end
local function fn() return nil end
local function f3n() return 1, nil, 3 end
`

// TestLuaMatchesRedis runs random snippets on redis-server and on the
// engine and wants the same values, or the same error, from each: the
// runner compiles and runs Lua as Redis's Lua 5.1 does.
func TestLuaMatchesRedis(t *testing.T) {
	g := &luaGen{picker{rand.New(rand.NewSource(*luaSeed))}}
	head := numbersHead + luaHead // its show shadows numbersHead's
	if differ, _ := matchRedisHead(t, head, *luaRuns, g.snippet, false); differ > 0 {
		t.Errorf("%d of %d snippets differ", differ, *luaRuns)
	}
}
