package integration

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
)

func sha(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// ev builds EVAL script numkeys key... arg...
func ev(script string, nkeys int, rest ...string) []string {
	return append([]string{"EVAL", script, strconv.Itoa(nkeys)}, rest...)
}

func cmd(args ...string) []string { return args }

// simple is a case of one EVAL with no setup.
func simple(name, script string) tcase {
	return tcase{name: name, cmds: [][]string{ev(script, 0)}}
}

var cases = []tcase{
	// Lua → RESP conversion.
	simple("conv/integer", "return 42"),
	simple("conv/float-truncates", "return 3.99"),
	simple("conv/negative-float-truncates", "return -3.99"),
	simple("conv/huge-float", "return 1e300"),
	simple("conv/negative-huge-float", "return -1e300"),
	simple("conv/nan", "return 0/0"),
	simple("conv/string", "return 'hello'"),
	simple("conv/empty-string", "return ''"),
	simple("conv/binary-string", `return "a\0b\r\nc"`),
	simple("conv/true", "return true"),
	simple("conv/false", "return false"),
	simple("conv/nil", "return nil"),
	simple("conv/no-return", "local x = 1"),
	simple("conv/array", "return {1, 'two', 3}"),
	simple("conv/array-stops-at-nil", "return {1, 2, nil, 4}"),
	simple("conv/array-with-hole-index", "local t = {1,2}; t[4] = 4; return t"),
	simple("conv/hash-part-ignored", "return {1, 2, a = 3}"),
	simple("conv/only-hash", "return {a = 1}"),
	simple("conv/nested", "return {1, {2, {3, {'x'}}}}"),
	simple("conv/bools-in-array", "return {true, false, 1}"),
	simple("conv/floats-in-array", "return {1.5, -2.5, 0.1}"),
	simple("conv/status-table", "return {ok = 'FINE'}"),
	simple("conv/error-table", "return {err = 'MYERR custom'}"),
	simple("conv/error-table-no-code", "return {err = 'plain'}"),
	simple("conv/error-and-ok", "return {err = 'E1', ok = 'O1'}"),
	simple("conv/nested-status-error", "return {1, {ok = 'x'}, {err = 'y'}}"),
	simple("conv/error-with-newline", "return {err = 'bad\\nthing'}"),
	simple("conv/function-value", "return function() end"),
	simple("conv/function-in-array", "return {1, function() end, 3}"),
	simple("conv/double-table-resp2", "return {double = 1.5}"),
	simple("conv/map-table-resp2", "return {map = {a = 1}}"),
	simple("conv/set-table-resp2", "return {set = {a = true}}"),
	simple("conv/big-number-resp2", "return {big_number = '123456789012345678901234567890'}"),
	simple("conv/self-reference", "local t = {}; t[1] = t; return t"),
	simple("conv/number-string", "return tostring(12.5)"),
	simple("conv/int-max", "return 9007199254740993"),
	simple("conv/negative-zero", "return -0"),

	// RESP → Lua conversion.
	{name: "call/integer-reply", setup: [][]string{{"SET", "n", "10"}}, cmds: [][]string{ev("return redis.call('INCRBY', KEYS[1], 5)", 1, "n")}},
	{name: "call/bulk-reply", setup: [][]string{{"SET", "k", "v"}}, cmds: [][]string{ev("return redis.call('GET', KEYS[1])", 1, "k")}},
	simple("call/nil-bulk-is-false", "return type(redis.call('GET', 'missing'))"),
	simple("call/nil-bulk-returned", "return redis.call('GET', 'missing')"),
	simple("call/status-is-table", "local r = redis.call('SET', 'k', 'v'); return {type(r), r.ok}"),
	simple("call/status-returned", "return redis.call('PING')"),
	{name: "call/array-reply", setup: [][]string{{"RPUSH", "l", "a", "b", "c"}}, cmds: [][]string{ev("return redis.call('LRANGE', KEYS[1], 0, -1)", 1, "l")}},
	simple("call/empty-array", "return redis.call('LRANGE', 'nolist', 0, -1)"),
	{name: "call/nested-array", setup: [][]string{{"ZADD", "z", "1", "a", "2", "b"}}, cmds: [][]string{ev("return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", 1, "z")}},
	{name: "call/hgetall", setup: [][]string{{"HSET", "h", "f", "v"}}, cmds: [][]string{ev("return redis.call('HGETALL', KEYS[1])", 1, "h")}},
	simple("call/number-args", "redis.call('SET', 'k', 1.5); redis.call('SET', 'k2', 0.1); redis.call('SET', 'k3', 1e20); return {redis.call('GET', 'k'), redis.call('GET', 'k2'), redis.call('GET', 'k3')}"),
	simple("call/special-number-args", "redis.call('SET', 'a', 1/0); redis.call('SET', 'b', -1/0); redis.call('SET', 'c', 0/0); redis.call('SET', 'd', -(0/0)); return redis.call('MGET', 'a', 'b', 'c', 'd')"),
	simple("call/big-number-args", "redis.call('SET', 'a', 2^53); redis.call('SET', 'b', 2^63); redis.call('SET', 'c', 1/3); redis.call('SET', 'd', -1e-7); return redis.call('MGET', 'a', 'b', 'c', 'd')"),
	simple("string/nan-tostring", "return {tostring(0/0), tostring(-(0/0)), tostring(1/0), tostring(-1/0)}"),
	simple("call/integer-arg", "redis.call('SET', 'k', 42); return redis.call('GET', 'k')"),
	simple("call/negative-arg", "redis.call('SET', 'k', -7); return redis.call('INCR', 'k')"),
	simple("call/bool-arg", "return redis.call('SET', 'k', true)"),
	simple("call/nil-arg", "return redis.call('SET', 'k', nil)"),
	simple("call/table-arg", "return redis.call({})"),
	simple("call/no-args", "return redis.call()"),
	simple("call/unknown-command", "return redis.call('nosuch')"),
	simple("call/wrong-arity", "return redis.call('GET')"),
	// redis.call resolves a name once per spelling (scriptCmdFor): the same
	// name in three cases, and a container whose subcommand decides.
	simple("call/name-cache-spellings", "redis.call('set', 'k', 'v'); return {redis.call('GET', 'k'), redis.call('get', 'k'), redis.call('gEt', 'k'), redis.call('GET', 'k')}"),
	simple("call/name-cache-container", "redis.call('XADD', 's', '1-1', 'f', 'v'); local a = redis.pcall('XINFO', 'nosuch', 's'); return {a, redis.pcall('xinfo', 'STREAM', 'nokey'), redis.pcall('XINFO', 'nosuch', 's'), redis.call('XINFO', 'STREAM', 's')[2]}"),
	simple("call/wrong-arity-pcall", "return redis.pcall('GET')"),
	simple("call/noscript-command", "return redis.call('MULTI')"),
	simple("call/blocking-command", "return redis.call('BLPOP', 'l', 0)"),
	simple("call/eval-inside", "return redis.call('EVAL', 'return 1', 0)"),
	simple("call/unknown-subcommand", "return redis.call('CONFIG', 'foo')"),
	simple("call/xread-block", "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', 's', '0')"),
	simple("call/case-insensitive", "return redis.call('sEt', 'k', 'v')"),
	{name: "call/wrongtype", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("return redis.call('LPUSH', KEYS[1], 'x')", 1, "s")}},
	{name: "call/wrongtype-line", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("local a = 1\nlocal b = 2\nredis.call('LPUSH', KEYS[1], 'x')", 1, "s")}},
	{name: "call/wrongtype-in-function", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("local function f()\n  redis.call('LPUSH', KEYS[1], 'x')\nend\nf()", 1, "s")}},
	{name: "call/error-keeps-earlier-writes", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("redis.call('SET', 'a', '1')\nredis.call('LPUSH', KEYS[1], 'x')\nredis.call('SET', 'b', '1')", 1, "s")}},
	{name: "pcall/wrongtype-table", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("local r = redis.pcall('LPUSH', KEYS[1], 'x'); return r.err", 1, "s")}},
	{name: "pcall/returned-error", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("return redis.pcall('LPUSH', KEYS[1], 'x')", 1, "s")}},
	{name: "pcall/fields", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("local r = redis.pcall('LPUSH', KEYS[1], 'x'); local t = {}; for k in pairs(r) do t[#t+1] = k end; table.sort(t); return t", 1, "s")}},
	simple("pcall/unknown-command", "return redis.pcall('nosuch')"),
	simple("pcall/lua-pcall-of-call", "local ok, e = pcall(redis.call, 'nosuch'); return {tostring(ok), e}"),
	{name: "pcall/lua-pcall-wrongtype", setup: [][]string{{"SET", "s", "1"}}, cmds: [][]string{ev("local ok, e = pcall(redis.call, 'LPUSH', KEYS[1], 'x'); return {type(e), e}", 1, "s")}},
	simple("pcall/lua-pcall-error-table", "local ok, e = pcall(error, {err = 'X'}); return {type(e), e}"),
	simple("pcall/lua-pcall-error-table-nested", "local ok, e = pcall(function() error({err = 'Y'}) end); return e"),
	simple("pcall/lua-pcall-runtime", "local ok, e = pcall(function() return nil + 1 end); return e"),
	simple("pcall/lua-pcall-string", "local ok, e = pcall(error, 'x'); return {tostring(ok), e}"),
	simple("pcall/lua-pcall-success", "return {pcall(function(a, b) return a + b, 'z' end, 1, 2)}"),
	simple("pcall/xpcall-keeps-table", "local ok, e = xpcall(function() error({err = 'x'}) end, function(e) return e end); return type(e)"),
	simple("pcall/not-callable", "local ok, e = pcall(42); return e"),

	// Error shapes.
	simple("error/string", "error('boom')"),
	simple("error/table", "error({err = 'MY boom'})"),
	simple("error/table-with-code", "error({err = 'ERR with code'})"),
	simple("error/number", "error(12)"),
	simple("error/nil", "error(nil)"),
	simple("error/no-args", "error()"),
	simple("error/level-0", "error('x', 0)"),
	simple("error/level-2-main", "error('x', 2)"),
	simple("error/level-2-function", "local function f() error('x', 2) end\nf()"),
	simple("error/multiline-position", "local x = 1\nlocal y = 2\nerror('third')"),
	simple("error/arith-nil", "local x = 1\nlocal y = nil + 1"),
	simple("error/concat-nil", `return "x" .. nil`),
	simple("error/index-nil", "return (nil).x"),
	simple("error/call-nil", "return (nil)()"),
	simple("error/compare", "return 1 < 'x'"),
	simple("error/error-reply", "return redis.error_reply('My Error')"),
	simple("error/error-reply-dash", "return redis.error_reply('-FOO bar')"),
	simple("error/error-reply-dash-only-code", "return redis.error_reply('-FOO')"),
	simple("error/error-reply-empty", "return redis.error_reply('')"),
	simple("error/error-reply-not-string", "return redis.error_reply(1)"),
	simple("error/error-reply-table", "local t = redis.error_reply('x'); local k = {}; for n in pairs(t) do k[#k+1] = n end; return {k[1], t.err}"),
	simple("error/status-reply", "return redis.status_reply('FINE')"),
	simple("error/status-reply-not-string", "return redis.status_reply(1)"),
	tcase{name: "error/compile", cmds: [][]string{ev("return 1 +", 0)}},
	tcase{name: "error/compile-token", cmds: [][]string{ev("return +", 0)}, prefix: 60},
	tcase{name: "error/compile-script-load", cmds: [][]string{{"SCRIPT", "LOAD", "return +"}}, prefix: 60},

	// Global protection.
	simple("globals/create", "x = 1"),
	simple("globals/create-function", "function f() end"),
	simple("globals/read-missing", "return y"),
	simple("globals/overwrite-existing", "redis = nil"),
	simple("globals/rawset", "rawset(_G, 'x', 1)"),
	simple("globals/setmetatable", "setmetatable(_G, nil)"),
	simple("globals/getmetatable", "return getmetatable(_G)"),
	simple("globals/library-write", "string.x = 1"),
	simple("globals/library-overwrite", "table.insert = nil"),
	simple("globals/redis-write", "redis.call = nil"),
	simple("globals/rawset-library", "rawset(string, 'x', 1)"),
	simple("globals/keys-writable", "KEYS[1] = 'x'; return KEYS[1]"),
	simple("globals/local-ok", "local x = 1; return x"),
	simple("globals/list", "local t = {}; for k in pairs(_G) do t[#t+1] = k end; table.sort(t); return t"),
	simple("globals/redis-fields", "local t = {}; for k in pairs(redis) do t[#t+1] = k end; table.sort(t); return t"),
	simple("globals/no-os", "return os"),
	simple("globals/no-io", "return io"),
	simple("globals/no-print", "return print"),
	simple("globals/no-require", "return require"),
	simple("globals/no-dofile", "return dofile"),
	simple("globals/no-debug", "return debug"),
	simple("globals/no-package", "return package"),
	simple("globals/no-setfenv", "return setfenv"),
	simple("globals/no-getfenv", "return getfenv"),
	simple("globals/no-newproxy", "return newproxy"),
	simple("globals/version", "return _VERSION"),
	simple("globals/types", "return {type(loadstring), type(load), type(gcinfo), type(collectgarbage), type(coroutine), type(unpack), type(xpcall)}"),
	simple("globals/loadstring-env", "local f = loadstring('return KEYS'); return type(f())"),
	simple("globals/loadstring-cannot-set-global", "local f = loadstring('z = 1'); f()"),
	simple("globals/loadstring-syntax-error", "local f, e = loadstring('return +'); return type(f)"),
	simple("globals/string-metatable-write", "getmetatable('').__index.upper = nil"),
	simple("globals/string-metatable-new-key", "getmetatable('').x = 1"),
	simple("globals/string-metatable-index", "return tostring(getmetatable('').__index == string)"),
	simple("globals/metatable-of-G-write", "getmetatable(_G).__index = nil"),
	simple("globals/metatable-of-G-newindex", "getmetatable(_G).__newindex = nil"),
	simple("globals/method-call", "return ('x'):rep(3)"),
	// A call in a named last field of a constructor sets that field only.
	simple("conv/named-last-field-call", "local f = function() return 'a', 'b' end return {1, x = f()}"),
	simple("conv/named-last-field-error-reply", "return {1, x = redis.error_reply('E')}"),
	// The string library as Lua 5.1.5's lstrlib.
	simple("strings/metatable-of-strings", "return tostring(getmetatable('') == string) .. tostring(rawget(string, '__index'))"),
	simple("strings/gmatch-called-directly", "local it = string.gmatch('a b c', '%a') return {it(), it(), it(), tostring(it())}"),
	simple("strings/gfind", "return type(string.gfind)"),
	simple("strings/match-no-match", "return {select('#', string.match('abc', '%d')), tostring(string.match('abc', '%d'))}"),
	simple("strings/gsub-count", "return {string.gsub('aaa', 'a', 'b', 0), string.gsub('aaa', 'a', 'b', -1), string.gsub('aaa', 'a', 'b', 2)}"),
	simple("strings/gsub-false-replacement", "return {string.gsub('abc', '%w', function() return false end)}"),
	simple("strings/byte-default", "return {string.byte('abc')}"),
	simple("strings/find-plain-past-end", "return tostring(string.find('abc', 'b', 10, true))"),
	simple("strings/malformed-percent", "return string.find('abc', '%')"),
	simple("strings/malformed-bracket", "return string.find('abc', '[a')"),
	simple("strings/capture-index-lazy", "return {string.gsub('abc', 'x', '%9')}"),
	simple("strings/nul-ends-pattern", "return {string.find('a\\0b', 'a\\0c')}"),
	simple("strings/upper-high-bytes", "return string.upper('\\255a\\128')"),
	// table.remove as Lua 5.1's tremove.
	simple("tables/remove-empty", "local t = {} return select('#', table.remove(t))"),
	simple("tables/remove-out-of-range", "local t = {1, 2, 3} return {select('#', table.remove(t, 5)), select('#', table.remove(t, 0)), #t}"),
	simple("tables/remove-first-and-last", "local t = {1, 2, 3} return {table.remove(t, 1), table.remove(t), t[1], #t}"),
	// Libraries, _G and the string metatable are read-only tables, as Redis 7
	// marks them, not proxies: rawget and next see their contents.
	simple("globals/rawget-library", "return type(rawget(math, 'floor')) .. type(rawget(redis, 'call')) .. type(rawget(cjson, 'decode')) .. type(rawget(table, 'insert'))"),
	simple("globals/rawget-more-libraries", "return type(rawget(bit, 'band')) .. type(rawget(struct, 'pack')) .. type(rawget(cmsgpack, 'pack')) .. type(rawget(string, 'rep'))"),
	simple("globals/next-library", "return type(next(math))"),
	simple("globals/library-metatable", "return tostring(getmetatable(math)) .. tostring(getmetatable(redis)) .. tostring(getmetatable(string))"),
	simple("globals/table-insert-library", "table.insert(math, 1)"),
	simple("globals/table-remove-library", "return tostring(table.remove(math))"),
	simple("globals/table-sort-library", "table.sort(math) return 'sorted'"),
	simple("globals/setmetatable-library", "setmetatable(math, {})"),
	simple("globals/G-is-globals", "return tostring(rawget(_G, 'math') == math) .. tostring(_G._G == _G)"),
	simple("globals/G-metatable-index", "return type(getmetatable(_G).__index)"),
	simple("globals/loadstring-sees-G", "return loadstring('return tostring(rawget(_G, \\'math\\') == math) .. tostring(_G == _G._G)')()"),
	simple("globals/G-metatable-rawset", "rawset(getmetatable(_G), '__index', nil)"),
	simple("globals/string-metatable-rawget", "return type(rawget(getmetatable(''), '__index'))"),
	simple("globals/pairs-G-has-keys", "local n = 0 for k, v in pairs(_G) do if k == 'KEYS' or k == 'ARGV' then n = n + 1 end end return n"),
	{name: "globals/no-leak-between-scripts", cmds: [][]string{ev("pcall(function() getmetatable('').__index.upper = nil end); pcall(function() string.upper = nil end)", 0), ev("return string.upper('ok')", 0)}},
	simple("globals/state-not-shared", "local ok = pcall(function() x = 1 end); return tostring(ok)"),

	// redis.* functions.
	simple("redis/sha1hex", "return redis.sha1hex('')"),
	simple("redis/sha1hex-number", "return redis.sha1hex(1)"),
	simple("redis/sha1hex-table", "return redis.sha1hex({})"),
	simple("redis/sha1hex-no-args", "return redis.sha1hex()"),
	simple("redis/log", "redis.log(redis.LOG_WARNING, 'hello', 1, {}); return 'done'"),
	simple("redis/log-no-args", "return redis.log()"),
	simple("redis/log-bad-level", "return redis.log('x', 'y')"),
	simple("redis/log-invalid-level", "return redis.log(9, 'y')"),
	simple("redis/log-constants", "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
	simple("redis/repl-constants", "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}"),
	simple("redis/set-repl", "redis.set_repl(redis.REPL_ALL); return 1"),
	simple("redis/set-repl-no-args", "return redis.set_repl()"),
	simple("redis/set-repl-bad", "return redis.set_repl(9)"),
	simple("redis/replicate-commands", "return redis.replicate_commands()"),
	simple("redis/version", "return redis.REDIS_VERSION"),
	simple("redis/version-num", "return redis.REDIS_VERSION_NUM"),
	simple("redis/setresp-no-args", "return redis.setresp()"),
	simple("redis/setresp-bad", "return redis.setresp(4)"),
	simple("redis/setresp-string", "return redis.setresp('x')"),
	simple("redis/acl-check-cmd", "return redis.acl_check_cmd('get')"),
	simple("redis/acl-check-cmd-unknown", "return redis.acl_check_cmd('nosuch')"),
	simple("redis/acl-check-cmd-no-args", "return redis.acl_check_cmd()"),
	simple("redis/breakpoint", "return redis.breakpoint()"),
	simple("redis/debug", "return redis.debug('x')"),
	simple("redis/server-alias-absent-in-eval", "return server"),

	// RESP3.
	simple("resp3/setresp-false-resp2-client", "redis.setresp(3); return false"),
	simple("resp3/setresp-true-resp2-client", "redis.setresp(3); return true"),
	simple("resp3/setresp-double-resp2", "redis.setresp(3); return {double = 1.5}"),
	simple("resp3/null-is-nil", "redis.setresp(3); return redis.call('GET', 'missing') == nil"),
	{name: "resp3/hgetall-map", setup: [][]string{{"HSET", "h", "f", "v"}}, cmds: [][]string{ev("redis.setresp(3); local r = redis.call('HGETALL', KEYS[1]); return r.map.f", 1, "h")}},
	{name: "resp3/smembers-set", setup: [][]string{{"SADD", "s", "m"}}, cmds: [][]string{ev("redis.setresp(3); local r = redis.call('SMEMBERS', KEYS[1]); return tostring(r.set.m)", 1, "s")}},
	{name: "resp3/zscore-double", setup: [][]string{{"ZADD", "z", "1.5", "m"}}, cmds: [][]string{ev("redis.setresp(3); local r = redis.call('ZSCORE', KEYS[1], 'm'); return tostring(r.double)", 1, "z")}},
	{name: "resp3/client-map", resp3: true, cmds: [][]string{ev("return {map = {a = 1}}", 0)}},
	{name: "resp3/client-double-tenth", resp3: true, cmds: [][]string{ev("return {double = 0.1}", 0)}},
	{name: "resp3/client-double-inf", resp3: true, cmds: [][]string{ev("return {double = 1/0}", 0)}},
	{name: "resp3/client-nested-map", resp3: true, cmds: [][]string{ev("return {1, {map = {k = {set = {x = true}}}}}", 0)}},
	{name: "resp3/script-zrange-pairs", setup: [][]string{{"ZADD", "z", "1.5", "a", "2", "b"}}, cmds: [][]string{ev("redis.setresp(3); return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", 1, "z"), ev("redis.setresp(3); return redis.pcall('ZPOPMIN', KEYS[1], 1)", 1, "z"), ev("redis.setresp(3); return redis.pcall('ZPOPMIN', KEYS[1], 'x')", 1, "z")}},
	{name: "resp3/script-hgetall-to-client", resp3: true, setup: [][]string{{"HSET", "h", "f", "v"}}, cmds: [][]string{ev("redis.setresp(3); return redis.call('HGETALL', KEYS[1])", 1, "h")}},
	{name: "resp3/script-resp2-hgetall-to-client", resp3: true, setup: [][]string{{"HSET", "h", "f", "v"}}, cmds: [][]string{ev("return redis.call('HGETALL', KEYS[1])", 1, "h")}},
	{name: "resp3/client-set", resp3: true, cmds: [][]string{ev("return {set = {a = true}}", 0)}},
	{name: "resp3/client-double", resp3: true, cmds: [][]string{ev("return {double = 2.5}", 0)}},
	{name: "resp3/client-true-resp2-script", resp3: true, cmds: [][]string{ev("return true", 0)}},
	{name: "resp3/client-false-resp2-script", resp3: true, cmds: [][]string{ev("return false", 0)}},
	{name: "resp3/client-bool-resp3-script", resp3: true, cmds: [][]string{ev("redis.setresp(3); return {true, false}", 0)}},
	{name: "resp3/client-nil", resp3: true, cmds: [][]string{ev("return nil", 0)}},
	{name: "resp3/client-big-number", resp3: true, cmds: [][]string{ev("return {big_number = '12345678901234567890'}", 0)}},
	{name: "resp3/client-verbatim", resp3: true, cmds: [][]string{ev("return {verbatim_string = {format = 'txt', string = 'hello'}}", 0)}},
	{name: "resp3/client-verbatim-odd-formats", resp3: true, cmds: [][]string{ev("return {verbatim_string = {format = 'markdown', string = 'long'}}", 0),
		ev("return {verbatim_string = {format = 'md', string = 'short'}}", 0), ev("return {verbatim_string = {format = '', string = 'none'}}", 0)}},
	{name: "resp3/client-error", resp3: true, cmds: [][]string{ev("return {err = 'E r'}", 0)}},

	// EVAL family and SCRIPT.
	{name: "eval/keys-argv", cmds: [][]string{ev("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV}", 2, "k1", "k2", "a1", "a2")}},
	{name: "eval/negative-numkeys", cmds: [][]string{ev("return 1", -1)}},
	{name: "eval/too-many-numkeys", cmds: [][]string{ev("return 1", 2, "a")}},
	{name: "eval/numkeys-not-int", cmds: [][]string{{"EVAL", "return 1", "x"}}},
	{name: "eval/wrong-arity", cmds: [][]string{{"EVAL", "return 1"}}},
	{name: "eval/evalsha", cmds: [][]string{{"SCRIPT", "LOAD", "return 'loaded'"}, {"EVALSHA", "e5be3bbd0bbd1fbbcafd8ecfd3ebe58e4acea16f", "0"}}},
	{name: "eval/evalsha-uppercase", cmds: [][]string{{"SCRIPT", "LOAD", "return 'loaded'"}, {"EVALSHA", "E5BE3BBD0BBD1FBBCAFD8ECFD3EBE58E4ACEA16F", "0"}}},
	{name: "eval/evalsha-missing", cmds: [][]string{{"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"}}},
	{name: "eval/evalsha-short", cmds: [][]string{{"EVALSHA", "1234", "0"}}},
	{name: "eval/eval-caches", cmds: [][]string{ev("return 7", 0), {"EVALSHA", sha("return 7"), "0"}, {"SCRIPT", "EXISTS", sha("return 7")}}},
	{name: "eval/script-exists", cmds: [][]string{{"SCRIPT", "LOAD", "return 1"}, {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "abc"}}},
	{name: "eval/script-flush", cmds: [][]string{{"SCRIPT", "LOAD", "return 1"}, {"SCRIPT", "FLUSH"}, {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"}}},
	{name: "eval/script-flush-sync", cmds: [][]string{{"SCRIPT", "FLUSH", "SYNC"}, {"SCRIPT", "FLUSH", "ASYNC"}}},
	{name: "eval/script-flush-bad", cmds: [][]string{{"SCRIPT", "FLUSH", "foo"}}},
	{name: "eval/script-unknown", cmds: [][]string{{"SCRIPT", "foo"}}},
	{name: "eval/script-no-sub", cmds: [][]string{{"SCRIPT"}}},
	{name: "eval/script-load-arity", cmds: [][]string{{"SCRIPT", "LOAD"}}},
	{name: "eval/script-kill-idle", cmds: [][]string{{"SCRIPT", "KILL"}}},
	{name: "eval/select-in-script", cmds: [][]string{ev("redis.call('SELECT', 1); redis.call('SET', 'db1key', 'v'); return redis.call('GET', 'db1key')", 0), {"GET", "db1key"}}},
	{name: "eval/select-does-not-leak", setup: [][]string{{"SET", "k", "db0"}}, cmds: [][]string{ev("redis.call('SELECT', 1); return 1", 0), {"GET", "k"}}},
	{name: "watch/untouched", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, {"MULTI"}, {"GET", "k"}, {"EXEC"}}},
	{name: "watch/set", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, {"SET", "k", "2"}, {"MULTI"}, {"GET", "k"}, {"EXEC"}, {"GET", "k"}}},
	{name: "watch/missing-key-made", cmds: [][]string{{"WATCH", "k"}, {"HSET", "k", "f", "v"}, {"MULTI"}, {"HGET", "k", "f"}, {"EXEC"}}},
	{name: "watch/del", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, {"DEL", "k"}, {"MULTI"}, {"SET", "k", "3"}, {"EXEC"}, {"EXISTS", "k"}}},
	{name: "watch/del-missing", cmds: [][]string{{"WATCH", "k"}, {"DEL", "k"}, {"MULTI"}, {"SET", "k", "3"}, {"EXEC"}}},
	{name: "watch/other-key", cmds: [][]string{{"WATCH", "k"}, {"SET", "j", "1"}, {"MULTI"}, {"SET", "k", "3"}, {"EXEC"}}},
	{name: "watch/pexpire", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, {"PEXPIRE", "k", "100000"}, {"MULTI"}, {"GET", "k"}, {"EXEC"}}},
	{name: "watch/script-writes", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, ev("return redis.call('INCR', KEYS[1])", 1, "k"), {"MULTI"}, {"GET", "k"}, {"EXEC"}}},
	{name: "watch/script-reads", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, ev("return redis.call('GET', KEYS[1])", 1, "k"), {"MULTI"}, {"GET", "k"}, {"EXEC"}}},
	{name: "watch/unwatch", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, {"UNWATCH"}, {"SET", "k", "2"}, {"MULTI"}, {"GET", "k"}, {"EXEC"}}},
	{name: "watch/restore", setup: [][]string{{"SET", "k", "1"}}, cmds: [][]string{{"WATCH", "k"}, {"COPY", "k", "k2"}, {"WATCH", "k2"}, {"COPY", "k", "k2", "REPLACE"}, {"MULTI"}, {"GET", "k2"}, {"EXEC"}}},
	{name: "substr", setup: [][]string{{"SET", "k", "hello world"}, {"RPUSH", "l", "a"}}, cmds: [][]string{{"SUBSTR", "k", "0", "4"}, {"SUBSTR", "k", "-5", "-1"}, {"SUBSTR", "k", "-1", "-5"}, {"SUBSTR", "k", "5", "2"}, {"SUBSTR", "k", "x", "2"}, {"SUBSTR", "missing", "0", "-1"}, {"SUBSTR", "l", "0", "1"}, {"SUBSTR", "k", "0"}, ev("return redis.call('substr', KEYS[1], 6, -1)", 1, "k")}},
	{name: "select/out-of-range", cmds: [][]string{{"SELECT", "16"}, {"SELECT", "-1"}, {"SWAPDB", "0", "16"}, {"SELECT", "15"}, {"SET", "k", "in15"}, {"SWAPDB", "15", "0"}, {"SELECT", "0"}, {"GET", "k"}, {"MOVE", "k", "16"}, {"MOVE", "k", "x"}, {"MOVE", "k", "-1"}, {"MULTI"}, {"MOVE", "k", "16"}, {"MOVE", "k", "3"}, {"EXEC"}, {"SELECT", "3"}, {"GET", "k"}}},
	{name: "eval/select-out-of-range", cmds: [][]string{ev("return redis.pcall('SELECT', 16)", 0), ev("redis.call('SELECT', 15); redis.call('SET', 'k', 'v'); return redis.call('DBSIZE')", 0)}},
	{name: "eval/caller-db", setup: [][]string{{"SELECT", "1"}, {"SET", "k", "in1"}}, cmds: [][]string{ev("return redis.call('GET', 'k')", 0)}},
	{name: "eval/multi-exec", cmds: [][]string{{"MULTI"}, ev("return redis.call('INCR', 'c')", 0), {"INCR", "c"}, ev("return redis.call('INCR', 'c')", 0), {"EXEC"}}},
	{name: "eval/multi-arity-aborts", cmds: [][]string{{"MULTI"}, {"EVAL", "return 1"}, {"SET", "a", "1"}, {"EXEC"}}},
	{name: "eval/multi-discard", cmds: [][]string{{"MULTI"}, ev("return redis.call('SET', 'x', '1')", 0), {"DISCARD"}, {"EXISTS", "x"}}},
	{name: "eval/math-random-range", cmds: [][]string{ev("local r = math.random(10); return tostring(r >= 1 and r <= 10)", 0)}},
	{name: "eval/expire-in-script", cmds: [][]string{ev("redis.call('SET', KEYS[1], 'v'); redis.call('EXPIRE', KEYS[1], 100); return redis.call('TTL', KEYS[1])", 1, "k")}},

	// Shebang flags and EVAL_RO.
	simple("shebang/plain", "#!lua\nreturn 1"),
	simple("shebang/no-writes-write", "#!lua flags=no-writes\nreturn redis.call('SET', 'a', '1')"),
	simple("shebang/no-writes-pcall", "#!lua flags=no-writes\nreturn redis.pcall('SET', 'a', '1')"),
	simple("shebang/no-writes-lua-pcall", "#!lua flags=no-writes\nlocal ok, e = pcall(redis.call, 'SET', 'a', '1') return e"),
	simple("shebang/no-writes-read", "#!lua flags=no-writes\nreturn redis.call('GET', 'a')"),
	simple("shebang/bogus-flag", "#!lua flags=bogus\nreturn 1"),
	simple("shebang/multiple-flags", "#!lua flags=no-writes,allow-oom\nreturn 1"),
	simple("shebang/all-flags", "#!lua flags=allow-oom,no-cluster,allow-stale,allow-cross-slot-keys\nreturn 1"),
	simple("shebang/name-option", "#!lua name=foo\nreturn 1"),
	simple("shebang/empty-flags", "#!lua flags=\nreturn 1"),
	simple("shebang/extra-space", "#!lua  flags=no-writes\nreturn 1"),
	simple("shebang/bad-engine", "#!luax\nreturn 1"),
	simple("shebang/python", "#!python\nreturn 1"),
	simple("shebang/unknown-option", "#!lua flags=no-writes x=1\nreturn 1"),
	simple("shebang/no-newline", "#!lua flags=no-writes"),
	simple("shebang/duplicate-flag", "#!lua flags=no-writes,no-writes\nreturn 1"),
	simple("shebang/write-allowed", "#!lua\nreturn redis.call('SET', 'a', '1')"),
	simple("shebang/line-numbers", "#!lua\nlocal x = 1\nerror('line three')"),
	{name: "ro/write-compat", cmds: [][]string{{"EVAL_RO", "return redis.call('SET', 'a', '1')", "0"}}},
	{name: "ro/pcall-compat", cmds: [][]string{{"EVAL_RO", "return redis.pcall('SET', 'a', '1')", "0"}}},
	{name: "ro/read", setup: [][]string{{"SET", "a", "v"}}, cmds: [][]string{{"EVAL_RO", "return redis.call('GET', 'a')", "0"}}},
	{name: "ro/shebang-without-no-writes", cmds: [][]string{{"EVAL_RO", "#!lua\nreturn redis.call('GET', 'a')", "0"}}},
	{name: "ro/shebang-no-writes", cmds: [][]string{{"EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('GET', 'a')", "0"}}},
	{name: "ro/evalsha-ro", cmds: [][]string{{"SCRIPT", "LOAD", "return redis.call('SET', 'a', '1')"}, {"EVALSHA_RO", sha("return redis.call('SET', 'a', '1')"), "0"}}},

	// Libraries.
	simple("cjson/encode-empty-table", "return cjson.encode({})"),
	simple("cjson/encode-array", "return cjson.encode({1, 2, 'x', true, false})"),
	simple("cjson/encode-object", "return cjson.encode({a = 1})"),
	simple("cjson/encode-nested", "return cjson.encode({a = {1, 2, {b = 'c'}}})"),
	simple("cjson/encode-escapes", `return cjson.encode("a/b\"c\\d\n\t\001")`),
	simple("cjson/encode-numbers", "return cjson.encode({1.5, 0.1, 1e20, -3, 1/3, 2^53})"),
	simple("cjson/encode-null", "return cjson.encode({cjson.null})"),
	simple("cjson/encode-sparse", "local t = {}; t[20] = 1; return cjson.encode(t)"),
	simple("cjson/encode-function", "return cjson.encode(function() end)"),
	simple("cjson/encode-bad-key", "return cjson.encode({[true] = 1})"),
	simple("cjson/encode-numeric-key", "return cjson.encode({[1.5] = 'x'})"),
	simple("cjson/encode-deep", "local t = {}; local c = t; for i = 1, 1100 do c[1] = {}; c = c[1] end; return cjson.encode(t)"),
	simple("cjson/decode-array", `return cjson.decode("[1,2,3]")`),
	simple("cjson/decode-object", `local t = cjson.decode('{"a":{"b":[1,"x"]}}'); return t.a.b`),
	simple("cjson/decode-null", `local t = cjson.decode('[null]'); return {tostring(t[1] == cjson.null), type(t[1])}`),
	simple("cjson/null-tostring", "return tostring(cjson.null)"),
	simple("cjson/decode-unicode", `return cjson.decode('"\\u00e9\\ud83d\\ude00"')`),
	simple("cjson/decode-numbers", `return cjson.decode('[1.5e3, -0.25, 12]')[1]`),
	simple("cjson/decode-error-eof", `return cjson.decode('[1,')`),
	simple("cjson/decode-error-token", `return cjson.decode('{"a" 1}')`),
	simple("cjson/decode-error-trailing", `return cjson.decode('[1] x')`),
	simple("cjson/decode-error-empty", `return cjson.decode('')`),
	simple("cjson/roundtrip", `return cjson.encode(cjson.decode('{"k":[1,2,{"z":null}]}'))`),
	simple("cjson/decode-bool", `local t = cjson.decode('[true,false]'); return {tostring(t[1]), tostring(t[2])}`),
	simple("bit/band-bor-bxor", "return {bit.band(0xff, 0x0f0f), bit.bor(1, 2, 4), bit.bxor(0xf0, 0xff)}"),
	simple("bit/tobit", "return {bit.tobit(2^32 + 5), bit.tobit(-1), bit.tobit(2^31)}"),
	simple("bit/bnot", "return bit.bnot(0)"),
	simple("bit/shifts", "return {bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.lshift(1, 33)}"),
	simple("bit/rotate", "return {bit.rol(0x12345678, 8), bit.ror(0x12345678, 8)}"),
	simple("bit/bswap", "return bit.bswap(0x12345678)"),
	simple("bit/tohex", "return {bit.tohex(255), bit.tohex(-1, -4), bit.tohex(0x1234, 2)}"),
	simple("bit/bad-arg", "return bit.band('x')"),
	simple("struct/pack-unpack-int", "return {struct.unpack('>i2', struct.pack('>i2', -2))}"),
	simple("struct/pack-bytes", "return struct.pack('>I4<H', 1, 2)"),
	simple("struct/unpack-string", "return {struct.unpack('s', 'hello\\0rest')}"),
	simple("struct/size", "return {struct.size('>i4'), struct.size('!8bd'), struct.size('hhl')}"),
	simple("struct/fixed-string", "return {struct.unpack('c3c2', 'abcde')}"),
	simple("struct/double", "return {struct.unpack('<d', struct.pack('<d', 1.25))}"),
	simple("struct/too-short", "return struct.unpack('>i4', 'ab')"),
	simple("struct/bad-option", "return struct.pack('q', 1)"),
	simple("struct/c0", "return {struct.unpack('bc0', struct.pack('bc0', 3, 'xyz'))}"),
	simple("cmsgpack/pack-array", "return cmsgpack.pack({1, 2, 3})"),
	simple("cmsgpack/pack-types", "return cmsgpack.pack(true, false, 'str', 1.5, -1, 300, -300, 70000, 2^40, 0.1)"),
	simple("cmsgpack/pack-map", "return cmsgpack.pack({a = 1})"),
	simple("cmsgpack/pack-empty", "return cmsgpack.pack({})"),
	simple("cmsgpack/pack-long-string", "return cmsgpack.pack(string.rep('x', 40))"),
	simple("cmsgpack/roundtrip", "return {cmsgpack.unpack(cmsgpack.pack({1, {2, 'x'}}, 'y'))}"),
	simple("cmsgpack/unpack-one", "local off, v = cmsgpack.unpack_one(cmsgpack.pack(1, 2)); return {off, v}"),
	simple("cmsgpack/unpack-limit", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"),
	simple("cmsgpack/missing-bytes", "return cmsgpack.unpack('\\205')"),
	simple("cmsgpack/bad-format", "return cmsgpack.unpack('\\193')"),
	simple("cmsgpack/no-input", "return cmsgpack.pack()"),
	simple("cmsgpack/deep-nesting", "local t = {}; local c = t; for i = 1, 20 do c[1] = {}; c = c[1] end; return cmsgpack.pack(t)"),
	simple("string/format", "return string.format('%s %d %5.2f %x', 'a', 3, 1/3, 255)"),
	simple("string/tostring-numbers", "return {tostring(1/3), tostring(1e15), tostring(2^53), tostring(-0), tostring(100)}"),
	simple("string/rep-sub-gsub", "return {string.rep('ab', 3), ('hello'):sub(2, 3), (string.gsub('a-b-c', '-', '+'))}"),
	simple("string/find-match", "return {string.find('hello world', 'wor'), string.match('key:123', '(%d+)')}"),
	simple("string/byte-char", "return {string.byte('A'), string.char(72, 105)}"),
	simple("string/upper-lower-len", "return {string.upper('abc'), string.lower('ABC'), string.len('four'), #'x'}"),
	simple("table/concat-insert-remove", "local t = {'a', 'b'}; table.insert(t, 'c'); table.remove(t, 1); return table.concat(t, ',')"),
	simple("table/sort", "local t = {3, 1, 2}; table.sort(t); return t"),
	simple("table/sort-comparator", "local t = {3, 1, 2}; table.sort(t, function(a, b) return a > b end); return t"),
	// Array reads: in place, or through __index for a hole, a key past the
	// end or one that is not an integer.
	simple("table/index-array-and-meta", "local t = setmetatable({1, nil, 3, false}, {__index = function(_, k) return 'meta' .. k end}) "+
		"local u = {10, 20} return {t[1], t[2], t[3], tostring(t[4]), t[5], t[1.5], t[0], t[-1], u[2], tostring(u[3]), tostring(u[2.0])}"),
	simple("table/getn-maxn", "return {table.getn({1, 2, 3}), table.maxn({1, 2, [10] = 3})}"),
	simple("math/functions", "return {math.floor(3.7), math.ceil(3.2), math.abs(-4), math.max(1, 5, 3), math.min(2, 0), math.fmod(7, 3), math.sqrt(16), math.pow(2, 10)}"),
	simple("math/huge-pi", "return {tostring(math.huge), tostring(math.pi)}"),
	simple("math/mod", "return math.mod(7, 3)"),
	// One result (the VM's fast path) and both (the function itself).
	simple("math/modf", "local a, b, c, d = math.modf(-3.7), math.modf(1/0), math.modf(-0.5), math.modf(2^53) local i, f = math.modf(5.25) local j, g = math.modf(-1/0) "+
		"return {tostring(a), tostring(b), tostring(c), tostring(d), tostring(i), tostring(f), tostring(j), tostring(g), tostring(math.modf(-7.5) / math.modf(2.9))}"),
	simple("math/modf-not-a-number", "return math.modf('x')"),
	simple("unpack/select", "return {select('#', unpack({1, 2, 3})), select(2, 'a', 'b', 'c')}"),
	simple("tonumber/conversions", "return {tonumber('10'), tonumber('0x10'), tonumber('z', 36), tonumber(' 5 '), tostring(tonumber('x'))}"),
	simple("tonumber/strtod-forms", "return {tostring(tonumber('1e15')), tostring(tonumber('0x1A')), tostring(tonumber(' 5 ')), tostring(tonumber('inf')), tostring(tonumber('nan')), tostring(tonumber('1e')), tostring(tonumber('10', 2)), tostring(tonumber('z', 36)), tostring(tonumber(''))}"),
	simple("coroutine/basic", "local co = coroutine.create(function(a) local b = coroutine.yield(a + 1); return b * 2 end); local _, x = coroutine.resume(co, 1); local _, y = coroutine.resume(co, 10); return {x, y, coroutine.status(co)}"),

	// Seed-style scripts: rate limiter, lock, queue.
	{name: "seed/token-bucket", cmds: [][]string{
		ev(tokenBucket, 1, "bucket", "10", "1", "1000", "3", "5000"),
		ev(tokenBucket, 1, "bucket", "10", "1", "1000", "9", "5000"),
		ev(tokenBucket, 1, "bucket", "10", "1", "1000", "1", "7000"),
	}},
	{name: "seed/lock-acquire-release", cmds: [][]string{
		ev(lockAcquire, 1, "lock", "owner-a", "30000"),
		ev(lockAcquire, 1, "lock", "owner-b", "30000"),
		ev(lockRelease, 1, "lock", "owner-b"),
		ev(lockRelease, 1, "lock", "owner-a"),
		ev(lockAcquire, 1, "lock", "owner-b", "30000"),
	}},
	{name: "seed/queue-move", setup: [][]string{{"RPUSH", "q", "j1", "j2", "j3"}}, cmds: [][]string{
		ev(queueClaim, 2, "q", "inflight", "2"),
		ev(queueClaim, 2, "q", "inflight", "5"),
	}},
	{name: "seed/counter-json", cmds: [][]string{
		ev(counterJSON, 1, "stats", `{"views":3,"clicks":1}`),
		ev(counterJSON, 1, "stats", `{"views":2}`),
	}},

	// Integers as Redis reads them (string2ll): no "+", no leading zero, no
	// "-0" (miniredis's strconv.Atoi takes them), in arguments and in stored
	// values, from a client and from a script.
	{name: "int/strict-arguments", setup: [][]string{{"RPUSH", "l", "a", "b", "c"}, {"ZADD", "z", "1", "a", "2", "b"}, {"SADD", "s", "a", "b"}, {"SET", "k", "5"}, {"HSET", "h", "f", "v"}},
		cmds: [][]string{cmd("LPOP", "l", "01"), cmd("LPOP", "l", "+1"), cmd("LPOP", "l", "-1"), cmd("RPOP", "l", "0"), cmd("LRANGE", "l", "00", "-1"),
			cmd("LTRIM", "l", "0", "+5"), cmd("LREM", "l", "01", "a"), cmd("LSET", "l", "01", "x"), cmd("LINDEX", "l", "-0"), cmd("ZRANGE", "z", "00", "-1"),
			cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"), cmd("ZREMRANGEBYRANK", "z", "00", "0"), cmd("SPOP", "s", "01"), cmd("SRANDMEMBER", "s", "01"),
			cmd("SET", "k", "1", "EX", "010"), cmd("SET", "k", "1", "px", "+5"), cmd("GETEX", "k", "EX", "01"), cmd("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "00", "1"),
			cmd("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "01"), cmd("ZRANGE", "z", "(1", "+inf", "BYSCORE"), cmd("HRANDFIELD", "h", "01"),
			cmd("ZRANDMEMBER", "z", "01"), cmd("LPOS", "l", "a", "RANK", "01"), cmd("BITCOUNT", "k", "00", "1"), cmd("GETBIT", "k", "01"), cmd("SETBIT", "k", "01", "1"),
			cmd("INCRBY", "k", "01"), cmd("INCRBY", "k", "01", "x"), cmd("EXPIRE", "k", "01"), cmd("EXPIRE", "k", "-0"), cmd("INCRBY", "k", "-9223372036854775808"),
			cmd("INCRBY", "n", "9223372036854775808"), cmd("INCRBY", "k", "1"),
			ev("return {redis.pcall('INCRBY', KEYS[1], '01'), redis.pcall('EXPIRE', KEYS[1], '+5'), redis.pcall('LRANGE', KEYS[2], '00', -1), redis.pcall('SET', KEYS[1], 1, 'PX', '010')}", 2, "k", "l")}},
	{name: "int/strict-stored", setup: [][]string{{"SET", "t", "01"}, {"SET", "p", "+1"}, {"SET", "m", "-0"}, {"HSET", "h", "n", "01", "o", "7"}},
		cmds: [][]string{cmd("INCR", "t"), cmd("DECR", "p"), cmd("INCRBY", "m", "1"), cmd("DECRBY", "t", "1"), cmd("HINCRBY", "h", "n", "1"), cmd("HINCRBY", "h", "o", "1"),
			ev("return {redis.pcall('INCR', KEYS[1]), redis.pcall('HINCRBY', KEYS[2], 'n', 1), redis.pcall('HINCRBY', KEYS[2], 'o', 1)}", 2, "t", "h")}},
	// LPOS reads its options in order, each with its own text: RANK as an
	// integer, COUNT and MAXLEN as integers not below 0 ("can't be
	// negative" for "x" too), before it looks at the key.
	{name: "int/lpos-options", setup: [][]string{{"RPUSH", "l", "a", "b", "a"}, {"SET", "s", "x"}},
		cmds: [][]string{cmd("LPOS", "l", "a", "COUNT", "x"), cmd("LPOS", "l", "a", "MAXLEN", "x"), cmd("LPOS", "l", "a", "COUNT", "01"),
			cmd("LPOS", "l", "a", "MAXLEN", "+1"), cmd("LPOS", "l", "a", "COUNT", "-0"), cmd("LPOS", "l", "a", "RANK", "01"),
			cmd("LPOS", "l", "a", "MAXLEN", "-1", "RANK", "x", "COUNT", "-1"), cmd("LPOS", "l", "a", "RANK", "x", "COUNT", "-1", "MAXLEN", "-1"),
			cmd("LPOS", "l", "a", "COUNT", "-1", "MAXLEN", "-1", "RANK", "x"), cmd("LPOS", "l", "a", "RANK", "0", "COUNT", "x"),
			cmd("LPOS", "l", "a", "RANK", "01", "COUNT"), cmd("LPOS", "l", "a", "FOO", "1", "COUNT", "x"), cmd("LPOS", "l", "a", "COUNT", "0", "MAXLEN", "0"),
			cmd("LPOS", "s", "a", "COUNT", "x"), cmd("LPOS", "none", "a", "MAXLEN", "x"),
			ev("return {redis.pcall('LPOS', KEYS[1], 'a', 'COUNT', 'x'), redis.pcall('LPOS', KEYS[1], 'a', 'RANK', -1, 'MAXLEN', '01'), redis.call('LPOS', KEYS[1], 'a', 'RANK', -1, 'COUNT', 0)}", 1, "l")}},
	// What used to crash the engine or put a connection out of step: an
	// empty *STORE result kept as a nil set, SETBIT/SETRANGE beyond 512 MB,
	// XLEN of another type (two replies); and the checks around them.
	{name: "crash/empty-store-then-add", setup: [][]string{{"SADD", "d", "old"}, {"SET", "s", "x"}},
		cmds: [][]string{cmd("SINTERSTORE", "d", "a", "b"), cmd("TYPE", "d"), cmd("SADD", "d", "v"), cmd("ZUNIONSTORE", "z", "1", "none"),
			cmd("ZADD", "z", "1", "m"), cmd("SUNIONSTORE", "d", "s"), cmd("SMEMBERS", "d"), cmd("ZINTERSTORE", "z", "2", "z", "s"),
			cmd("ZINTERSTORE", "z", "1", "z", "WEIGHTS", "nan"), cmd("ZRANGE", "z", "0", "-1", "WITHSCORES"),
			ev("return {redis.pcall('SDIFFSTORE', KEYS[1], 'x', 'y'), redis.pcall('SADD', KEYS[1], 'w'), redis.pcall('SMEMBERS', KEYS[1])}", 1, "e")}},
	{name: "crash/huge-offsets", setup: [][]string{{"SET", "k", "v"}},
		cmds: [][]string{cmd("SETBIT", "k", "9223372036854775807", "1"), cmd("SETBIT", "k", "4294967296", "1"), cmd("GETBIT", "k", "4294967296"),
			cmd("SETRANGE", "k", "9223372036854775807", "x"), cmd("SETRANGE", "k", "536870912", "x"), cmd("SETRANGE", "n", "5", ""),
			cmd("SETRANGE", "k", "5", ""), cmd("SETBIT", "k", "1", "+1"), cmd("GET", "k"), cmd("EXISTS", "n")}},
	{name: "crash/xlen-of-another-type", setup: [][]string{{"SET", "k", "v"}, {"XADD", "x", "1-1", "f", "v"}},
		cmds: [][]string{cmd("XLEN", "k"), cmd("PING"), cmd("XLEN", "x"), cmd("XADD", "n", "0-0", "f", "v"), cmd("EXISTS", "n"),
			cmd("XADD", "k", "x", "f", "v"), cmd("XTRIM", "k", "MINID", "x"),
			ev("return {redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 0) == false, #redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 0)}", 2, "x", "none"),
			cmd("XDEL", "x", "1"), cmd("XLEN", "x")}},

	// XADD's and XTRIM's options as Redis reads them: in any order, "~" or
	// "=" before the threshold, LIMIT only with "~", and XADD's ending at
	// its ID, so that a field named like an option is a field. Thresholds
	// stay out of "~"'s reach: Redis trims whole nodes, miniredis exactly.
	{name: "stream/trim-options", setup: [][]string{{"XADD", "s", "1-1", "f", "v"}, {"XADD", "s", "2-1", "f", "v"}, {"XADD", "s", "3-1", "f", "v"}, {"SET", "str", "x"}},
		cmds: [][]string{cmd("XADD", "s", "MAXLEN", "~", "1000", "4-1", "f", "v"), cmd("XADD", "s", "5-1", "limit", "x"), cmd("XADD", "s", "6-1", "minid", "x", "maxlen", "y"),
			cmd("XADD", "s", "NOMKSTREAM", "MAXLEN", "10", "7-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "10", "NOMKSTREAM", "8-1", "f", "v"),
			cmd("XADD", "s", "MAXLEN", "~", "1000", "LIMIT", "10", "9-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "5", "LIMIT", "10", "10-1", "f", "v"),
			cmd("XADD", "s", "LIMIT", "0", "10-1", "f", "v"), cmd("XADD", "s", "LIMIT", "1", "10-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "1", "MINID", "1", "10-1", "f", "v"),
			cmd("XADD", "s", "MAXLEN", "-1", "10-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "10-1", "f", "v"),
			cmd("XADD", "s", "NOMKSTREAM", "MAXLEN", "1", "LIMIT", "2"), cmd("XADD", "s", "MAXLEN", "01", "10-1", "f", "v"), cmd("XADD", "s", "MINID", "~", "-", "10-1", "f", "v"),
			cmd("XADD", "s", "10-*", "f", "v"), cmd("XADD", "s", "11-1", "f"), cmd("XADD", "none", "NOMKSTREAM", "MAXLEN", "~", "10", "11-1", "f", "v"),
			cmd("XADD", "str", "MAXLEN", "x", "1-1", "f", "v"), cmd("XADD", "s", "MAXLEN", "=", "8", "12-1", "f", "v"), cmd("XLEN", "s"),
			cmd("XTRIM", "s", "MAXLEN", "=", "100"), cmd("XTRIM", "s", "FOO", "1", "MAXLEN", "x"), cmd("XTRIM", "s", "MAXLEN", "1", "FOO"),
			cmd("XTRIM", "s", "LIMIT", "1"), cmd("XTRIM", "s", "LIMIT", "0"), cmd("XTRIM", "s", "MAXLEN", "~"), cmd("XTRIM", "s", "MAXLEN", "1", "MAXLEN", "2"),
			cmd("XTRIM", "s", "minid", "0", "limit", "5"), cmd("XTRIM", "none", "MAXLEN", "~", "0", "LIMIT", "5"), cmd("XTRIM", "s", "UNKNOWN_STRATEGY", "4"),
			cmd("XTRIM", "str", "MAXLEN", "x"), cmd("XTRIM", "s", "MINID", "=", "9"), cmd("XRANGE", "s", "-", "+"), cmd("XTRIM", "s", "MAXLEN", "=", "0"), cmd("XLEN", "s"),
			ev("return {redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', 1000, '1-1', 'f', 'v'), redis.pcall('XADD', KEYS[1], '2-1', 'limit', 'x'), redis.pcall('XADD', KEYS[1], 'MAXLEN', 5, 'LIMIT', 10, '3-1', 'f', 'v'), redis.pcall('XTRIM', KEYS[1], 'MAXLEN', '=', 0)}", 1, "k")}},

	// TTL rounds to the nearest second, as Redis does; miniredis truncates.
	{name: "ttl/rounds", setup: [][]string{{"SET", "k", "v", "PX", "10700"}, {"SET", "j", "v", "PX", "300"}, {"SET", "p", "v"}},
		cmds: [][]string{cmd("TTL", "k"), cmd("TTL", "j"), cmd("TTL", "p"), cmd("TTL", "none"),
			ev("return {redis.call('TTL', KEYS[1]), redis.call('TTL', KEYS[2]), redis.call('TTL', KEYS[3])}", 3, "k", "j", "none")}},

	// A list moved onto itself: one element keeps its key and expiry
	// (miniredis would pop it, deleting the key, and push it onto a new one).
	{name: "list/lmove-onto-itself-one", setup: [][]string{{"RPUSH", "l", "a"}, {"EXPIRE", "l", "1000"}},
		cmds: [][]string{cmd("LMOVE", "l", "l", "LEFT", "RIGHT"), cmd("TTL", "l"), cmd("RPOPLPUSH", "l", "l"),
			cmd("BLMOVE", "l", "l", "right", "left", "0"), cmd("BRPOPLPUSH", "l", "l", "0"), cmd("TTL", "l"),
			ev("return {redis.call('LMOVE', KEYS[1], KEYS[1], 'RIGHT', 'LEFT'), redis.call('RPOPLPUSH', KEYS[1], KEYS[1]), redis.call('TTL', KEYS[1])}", 1, "l")}},
	{name: "list/lmove-onto-itself-many", setup: [][]string{{"RPUSH", "l", "a", "b", "c"}, {"EXPIRE", "l", "1000"}},
		cmds: [][]string{cmd("LMOVE", "l", "l", "LEFT", "RIGHT"), cmd("RPOPLPUSH", "l", "l"), cmd("LRANGE", "l", "0", "-1"), cmd("TTL", "l")}},
	{name: "list/lmove-onto-itself-edges", setup: [][]string{{"SET", "s", "x"}, {"RPUSH", "l", "a"}},
		cmds: [][]string{cmd("LMOVE", "none", "none", "LEFT", "RIGHT"), cmd("LMOVE", "s", "s", "LEFT", "RIGHT"),
			cmd("LMOVE", "l", "l", "UP", "RIGHT"), cmd("LMOVE", "l", "l", "LEFT"), cmd("RPOPLPUSH", "s", "s"),
			cmd("MULTI"), cmd("LMOVE", "l", "l", "LEFT", "RIGHT"), cmd("EXEC"), cmd("TTL", "l")}},
}

const tokenBucket = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or capacity
local ts = tonumber(state[2]) or now
local refill = math.floor((now - ts) / period) * rate
tokens = math.min(capacity, tokens + refill)
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('PEXPIRE', KEYS[1], 60000)
return {allowed, tokens}
`

const lockAcquire = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
`

const lockRelease = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`

const queueClaim = `
local moved = {}
for i = 1, tonumber(ARGV[1]) do
  local job = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
  if not job then break end
  moved[#moved + 1] = job
end
return moved
`

const counterJSON = `
local delta = cjson.decode(ARGV[1])
local out = {}
for _, field in ipairs({'clicks', 'views'}) do
  if delta[field] then
    out[#out + 1] = redis.call('HINCRBY', KEYS[1], field, delta[field])
  end
end
return out
`
