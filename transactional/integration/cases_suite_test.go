package integration

// Cases from the differences Redis 7.0.15's own suite (tests/unit/
// scripting.tcl and functions.tcl) found between redis-server and the
// engine: FUNCTION's argument checks and texts, function names that are
// case-insensitive, and COMMAND GETKEYS on scripts.
func init() {
	cases = append(cases, suiteCases...)
}

// flib is FUNCTION LOAD of code as given, shebang included.
func flib(code string) []string { return []string{"FUNCTION", "LOAD", code} }

var suiteCases = []tcase{
	{name: "suite/fcall-case-insensitive", setup: [][]string{fload("redis.register_function('Test', function() return 'hello1' end)")},
		cmds: [][]string{{"FCALL", "TEST", "0"}, {"FCALL", "test", "0"}, {"FCALL", "Test", "0"}, {"FCALL_RO", "tEST", "0"}}},
	{name: "suite/function-name-collision-case", setup: [][]string{fload("redis.register_function('f1', function() return 1 end)")},
		cmds: [][]string{flib("#!lua name=other\nredis.register_function('F1', function() return 2 end)"), {"FUNCTION", "LIST"}}},
	{name: "suite/function-load-options", cmds: [][]string{
		{"FUNCTION", "LOAD", "foo", "bar", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
		{"FUNCTION", "LOAD", "REPLACE", "replace", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
		{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function('f', function() return 2 end)"},
		{"FCALL", "f", "0"},
	}},
	{name: "suite/function-flush-args", cmds: [][]string{{"FUNCTION", "FLUSH", "bad_arg"}, {"FUNCTION", "FLUSH", "sync", "extra_arg"}, {"FUNCTION", "FLUSH", "ASYNC"}}},
	{name: "suite/function-list-repeated", setup: [][]string{fload("redis.register_function('f', function() return 1 end)")},
		cmds: [][]string{{"FUNCTION", "LIST", "withcode", "withcode"}, {"FUNCTION", "LIST", "withcode", "libraryname", "foo", "libraryname", "foo"},
			{"FUNCTION", "LIST", "libraryname", ""}, {"FUNCTION", "LIST", "LIBRARYNAME", "l?b", "WITHCODE"}, {"FUNCTION", "LIST", "libraryname"}}},
	{name: "suite/function-metadata", cmds: [][]string{
		flib("#!lua name=foo name=bar\nredis.register_function('foo', function() return 1 end)"),
		flib("#!lua name=foo x=1 name=bar\nredis.register_function('foo', function() return 1 end)"),
		flib("#!lua name=\"foo\"\nredis.register_function('foo', function() return 1 end)"),
		flib("#!lua NAME=upper\nredis.register_function('up', function() return 1 end)"),
		flib("#!lua name=noline"),
		flib("#!nosuch name=bad-name\nreturn 1"),
		flib("#!nosuch name=ok\nreturn 1"),
		// One library at a time: Redis lists them in its hash order.
		{"FUNCTION", "LIST", "LIBRARYNAME", "foo"},
		{"FUNCTION", "LIST", "LIBRARYNAME", "upper"},
		{"FUNCTION", "STATS"},
	}},
	{name: "suite/register-function-texts", cmds: [][]string{
		fload("redis.register_function('f1', function() return 1 end)\nredis.register_function('f2', 'not a function')"),
		fload("redis.register_function(1, function() return 1 end)"),
		fload("redis.register_function({}, function() return 1 end)"),
		fload("redis.register_function{[{}] = 'x'}"),
		fload("redis.register_function{[1] = 'x'}"),
		fload("redis.register_function{FUNCTION_NAME = 'f', Callback = function() return 3 end, DESCRIPTION = 'd'}"),
		fload("redis.register_function{function_name = 7, callback = function() return 3 end}"),
		{"FUNCTION", "LIST"},
	}},
	{name: "suite/script-debug", cmds: [][]string{{"SCRIPT", "DEBUG", "no"}, {"SCRIPT", "DEBUG", "bogus"}, {"SCRIPT", "DEBUG"}}},
	{name: "suite/register-function-flags", cmds: [][]string{
		fload("redis.register_function{function_name='f', callback=function() return 1 end, flags={'NO-WRITES', 'Allow-Stale'}}"),
		{"FUNCTION", "LIST"},
		{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function{function_name='f', callback=function() return 1 end, flags={x='bogus'}}"},
		{"FUNCTION", "LIST"},
		{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function{function_name='f', callback=function() return 1 end, flags={'no-writes', nil, 'bogus'}}"},
		{"FUNCTION", "LIST"},
		{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function{function_name='f', callback=function() return 1 end, flags={1}}"},
		{"FUNCTION", "LOAD", "REPLACE", "#!lua name=lib\nredis.register_function{function_name='f', callback=function() return 1 end, flags={'no-writes', {}}}"},
		{"EVAL", "#!lua flags=NO-WRITES\nreturn 1", "0"},
	}},
	// Not error({}) nor error({err=true}): redis-server 7.0.15 crashes.
	{name: "suite/error-table-fields", cmds: [][]string{
		ev("return error({err=1})", 0),
		ev("return error({err=1.5})", 0),
		ev("return error({err='E1', source='@x', line=7})", 0),
		ev("return error({err='E2', source='@x'})", 0),
		ev("return error({err='E3', source=5, line='9'})", 0),
		fload("redis.register_function{function_name=1, callback=function() return 1 end}"),
		{"FCALL", "1", "0"},
	}},
	{name: "suite/function-load-timeout", cmds: [][]string{fload("local a = 1\nwhile 1 do a = a + 1 end"), {"FUNCTION", "STATS"}}},
	{name: "suite/flush-args-in-multi", setup: [][]string{fload("redis.register_function('f', function() return 1 end)"), {"SCRIPT", "LOAD", "return 1"}},
		cmds: [][]string{{"MULTI"}, {"FUNCTION", "FLUSH", "a", "b"}, {"FUNCTION", "flush", "bad"}, {"SCRIPT", "FLUSH", "bad"},
			{"FUNCTION", "RESTORE", "x", "y", "z"}, {"FUNCTION", "FLUSH"}, {"EXEC"}, {"FCALL", "f", "0"}}},
	{name: "suite/getkeys-scripts", cmds: [][]string{
		{"COMMAND", "GETKEYS", "fcall", "test", "1", "x", "foo"},
		{"COMMAND", "GETKEYS", "FCALL_RO", "test", "2", "x", "y", "foo"},
		{"COMMAND", "GETKEYS", "eval", "return 1", "0"},
		{"COMMAND", "GETKEYS", "eval", "return 1", "3", "a", "b"},
		{"COMMAND", "GETKEYS", "evalsha_ro", "abc", "1", "k"},
		{"COMMAND", "GETKEYS", "eval", "x"},
		{"COMMAND", "GETKEYS", "script", "flush"},
		{"COMMAND", "GETKEYS", "function", "load", "x"},
	}},
}
