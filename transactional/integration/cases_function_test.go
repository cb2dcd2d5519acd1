package integration

// fload is FUNCTION LOAD of a library called lib with the given body.
func fload(body string) []string {
	return []string{"FUNCTION", "LOAD", "#!lua name=lib\n" + body}
}

const libBasic = `redis.register_function('echo', function(keys, args) return {keys[1], args[1], #keys, #args} end)
redis.register_function{function_name = 'setter', callback = function(keys, args) return redis.call('SET', keys[1], args[1]) end}
redis.register_function{function_name = 'getter', callback = function(keys, args) return redis.call('GET', keys[1]) end, flags = {'no-writes'}, description = 'reads'}
redis.register_function('fails', function() error('inside') end)
redis.register_function('wrongtype', function(keys)
  return redis.call('LPUSH', keys[1], 'x')
end)
redis.register_function('sneaky', function(keys) return redis.call('SET', keys[1], 'x') end)`

func init() {
	cases = append(cases, functionCases...)
}

var functionCases = []tcase{
	{name: "function/load-reply", cmds: [][]string{fload(libBasic)}},
	{name: "function/missing-metadata", cmds: [][]string{{"FUNCTION", "LOAD", "return 1"}}},
	{name: "function/no-name", cmds: [][]string{{"FUNCTION", "LOAD", "#!lua\nreturn 1"}}},
	{name: "function/empty-name", cmds: [][]string{{"FUNCTION", "LOAD", "#!lua name=\nreturn 1"}}},
	{name: "function/bad-name", cmds: [][]string{{"FUNCTION", "LOAD", "#!lua name=my-lib\nreturn 1"}}},
	{name: "function/bad-metadata", cmds: [][]string{{"FUNCTION", "LOAD", "#!lua name=lib x=1\nreturn 1"}}},
	{name: "function/bad-engine", cmds: [][]string{{"FUNCTION", "LOAD", "#!pyth name=lib\nreturn 1"}}},
	{name: "function/no-functions", cmds: [][]string{fload("return 1")}},
	{name: "function/compile-error", cmds: [][]string{fload("return +")}},
	{name: "function/runtime-error-at-load", cmds: [][]string{fload("error('boom')")}},
	{name: "function/call-at-load", cmds: [][]string{fload("redis.call('SET', 'x', '1')")}},
	{name: "function/global-at-load", cmds: [][]string{fload("x = 1")}},
	{name: "function/missing-global-at-load", cmds: [][]string{fload("return y")}},
	{name: "function/string-lib-at-load", cmds: [][]string{fload("local s = string.rep('a', 2)")}},
	{name: "function/bad-function-name", cmds: [][]string{fload("redis.register_function('f-x', function() end)")}},
	{name: "function/single-non-table", cmds: [][]string{fload("redis.register_function('f')")}},
	{name: "function/no-args", cmds: [][]string{fload("redis.register_function()")}},
	{name: "function/bad-flag", cmds: [][]string{fload("redis.register_function{function_name = 'f', callback = function() end, flags = {'bogus'}}")}},
	{name: "function/unknown-named-arg", cmds: [][]string{fload("redis.register_function{function_name = 'f', callback = function() end, foo = 1}")}},
	{name: "function/no-callback", cmds: [][]string{fload("redis.register_function{function_name = 'f'}")}},
	{name: "function/duplicate-in-library", cmds: [][]string{fload("redis.register_function('f', function() end); redis.register_function('f', function() end)")}},
	{name: "function/library-exists", cmds: [][]string{fload(libBasic), fload(libBasic)}},
	{name: "function/replace", cmds: [][]string{fload(libBasic), {"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function('echo', function() return 'v2' end)"}, {"FCALL", "echo", "0"}, {"FCALL", "setter", "1", "k", "v"}}},
	{name: "function/name-taken-by-other-library", cmds: [][]string{fload(libBasic), {"FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('echo', function() end)"}}},
	{name: "function/fcall-args", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL", "echo", "1", "k", "a"}}},
	{name: "function/fcall-write", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL", "setter", "1", "k", "v"}, {"GET", "k"}}},
	{name: "function/fcall-ro-write-flag", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL_RO", "setter", "1", "k", "v"}}},
	{name: "function/fcall-ro-no-writes", setup: [][]string{fload(libBasic), {"SET", "k", "v"}}, cmds: [][]string{{"FCALL_RO", "getter", "1", "k"}}},
	{name: "function/fcall-not-found", cmds: [][]string{{"FCALL", "nosuch", "0"}}},
	{name: "function/fcall-too-many-keys", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL", "echo", "2", "k"}}},
	{name: "function/fcall-negative-keys", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL", "echo", "-1"}}},
	{name: "function/fcall-bad-keys", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL", "echo", "x"}}},
	{name: "function/fcall-arity", cmds: [][]string{{"FCALL"}, {"FCALL", "f"}}},
	{name: "function/fcall-error", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FCALL", "fails", "0"}}},
	{name: "function/fcall-wrongtype", setup: [][]string{fload(libBasic), {"SET", "s", "1"}}, cmds: [][]string{{"FCALL", "wrongtype", "1", "s"}}},
	{name: "function/no-keys-global", setup: [][]string{fload("redis.register_function('k', function() return KEYS end)")}, cmds: [][]string{{"FCALL", "k", "0"}}},
	{name: "function/runtime-globals", setup: [][]string{fload("redis.register_function('t', function() return {type(string), type(cjson), type(redis.call), type(redis.register_function)} end)")}, cmds: [][]string{{"FCALL", "t", "0"}}},
	{name: "function/no-writes-flag-blocks-write", setup: [][]string{fload("redis.register_function{function_name = 'w', callback = function(keys) return redis.call('SET', keys[1], 'x') end, flags = {'no-writes'}}")}, cmds: [][]string{{"FCALL", "w", "1", "k"}}},
	{name: "function/delete", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FUNCTION", "DELETE", "lib"}, {"FCALL", "echo", "0"}, {"FUNCTION", "DELETE", "lib"}}},
	{name: "function/flush-bad", cmds: [][]string{{"FUNCTION", "FLUSH", "foo"}}},
	{name: "function/flush", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FUNCTION", "FLUSH"}, {"FCALL", "echo", "0"}}},
	{name: "function/list", setup: [][]string{fload("redis.register_function{function_name = 'getter', callback = function() end, flags = {'no-writes', 'allow-stale'}, description = 'reads'}")}, cmds: [][]string{{"FUNCTION", "LIST"}, {"FUNCTION", "LIST", "WITHCODE"}, {"FUNCTION", "LIST", "LIBRARYNAME", "li*"}, {"FUNCTION", "LIST", "LIBRARYNAME", "x*"}}},
	{name: "function/list-resp3", resp3: true, setup: [][]string{fload("redis.register_function('f', function() end)")}, cmds: [][]string{{"FUNCTION", "LIST"}}},
	{name: "function/list-bad-arg", cmds: [][]string{{"FUNCTION", "LIST", "bogus"}}},
	{name: "function/unknown-subcommand", cmds: [][]string{{"FUNCTION", "foo"}}},
	{name: "function/kill-idle", cmds: [][]string{{"FUNCTION", "KILL"}}},
	{name: "function/stats", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"FUNCTION", "STATS"}}},
	{name: "function/error-line", setup: [][]string{fload("redis.register_function('f', function()\n  local x = 1\n  error('third')\nend)")}, cmds: [][]string{{"FCALL", "f", "0"}}},
	{name: "function/setresp", setup: [][]string{fload("redis.register_function('f', function() redis.setresp(3); return {double = 2.5} end)")}, cmds: [][]string{{"FCALL", "f", "0"}}},
	{name: "function/multi", setup: [][]string{fload(libBasic)}, cmds: [][]string{{"MULTI"}, {"FCALL", "setter", "1", "k", "v"}, {"FCALL", "getter", "1", "k"}, {"EXEC"}}},
}
