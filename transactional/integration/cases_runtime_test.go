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

// Numbers as scripts turn them into keys, members and values: Lua 5.1
// prints them with %.14g, so a microsecond timestamp concatenated into a
// member is rounded, and two requests 100 µs apart share one member.
func init() {
	cases = append(cases,
		tcase{name: "numbers/microsecond-members", cmds: [][]string{
			ev("for _, us in ipairs({1763836800123456, 1763836800123499}) do redis.call('ZADD', KEYS[1], us, us .. '') end "+
				"return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", 1, "log"),
		}},
		tcase{name: "numbers/fractions-in-fields", cmds: [][]string{
			ev("redis.call('HSET', KEYS[1], 'rate:' .. 1/3, 2^53 .. '', 'f', table.concat({0.1 + 0.2, 1e15, -0.0 * 1}, ',')) "+
				"return redis.call('HMGET', KEYS[1], 'rate:0.33333333333333', '9.007199254741e+15', 'f')", 1, "h"),
		}},
		simple("numbers/modulo", "return {tostring(5 % math.huge), tostring(1.8e16 % 7), tostring(-7 % 3), tostring(5.5 % -2), tostring(math.mod(-5, 3))}"),
		simple("numbers/format", "return {string.format('%x|%5.2f|%d|%s|%q|%g', -2, 1/3, '42', 2^53, 'a\\0b', 1e20), string.format('%.3f', 0/0)}"),
	)
}
