package integration

func init() {
	for _, src := range runtimeErrorSources {
		cases = append(cases, simple("runtime/"+src, src))
	}
}

// runtimeErrorSources are Lua runtime type errors: Lua 5.1 names the
// variable involved, and so must the engine.
var runtimeErrorSources = []string{
	"local t = nil; return t.x", "local t; t.x = 1", "local a = {}; return a.b.c", "local a = {}; a.b.c = 1",
	"return KEYS.x.y", "local x; return x + 1", "local x; return 1 + x", "local x = {}; return x.n * 2",
	"local s = 'a'; return s + 1", "local x; return -x", "local x; return 'a' .. x", "local x; return x .. 'a'",
	"local t = {}; return 'a' .. t.f", "local a, b = 1; return a .. b",
	"local function f() local up; return function() return up.x end end; return f()()",
	"local t = {}; return t:nomethod()", "local x; return #x", "return redis.nosuch.x", "local a = {}; return a[1][2]",
	"local ok, e = pcall(function() local t; return t.x end); return e",
	"local ok, e = pcall(function() local n; return n + 1 end); return e", "local a = {b = {}}; return a.b.c.d",
	"return ARGV[1] + 1", "local x = 'abc'; return x.y.z", "local t = {}; t[nil] = 1", "return math.floor(nil)",
	"local t = {} return t.x .. 'y'", "local n = 5; return n()", "local t = {}; return t.f()", "return KEYS()",
	"local x = true; return x + 1", "return ('x'):bad()", "local t = setmetatable({}, {__index = function() error('deep') end}); return t.x",
}
