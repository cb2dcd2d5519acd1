// Package luatest runs `*_test.lua` files: script tests written in Lua, next
// to the scripts they test, in the style of `go test`.
//
// A test file defines global functions named test_*; each runs, in source
// order, against a fresh keyspace. The file runs in a harness Lua state on
// the developer's side (full standard library); the scripts under test run
// where Redis would run them: in the embedded engine, or on a real Redis
// given by URL, which is how a sandbox claim is proven against the server.
//
// The harness API:
//
//	local gate = script('gate')          -- a script of the test file's directory, by name
//	gate.call({'k'}, {1000})             -- EVAL it; an error reply raises
//	gate.pcall({'k'}, {1000})            -- an error reply comes back as {err=...}
//	redis.call('SET', 'k', 'v')          -- any command on the target; redis.pcall too
//	t.eq(got, want [, msg])              -- deep equality, with both sides shown on failure
//	t.ne(got, other [, msg]); t.ok(v [, msg]); t.fail(msg); t.log(...)
//	t.err(fn, substring)                 -- fn must raise an error containing substring
//	clock.advance(ms); clock.now(); clock.set(ms)
//
// Replies are converted as Redis converts them for a script: integers to
// numbers, bulk strings to strings, status replies to {ok=...}, nil to
// false, arrays to tables, errors to {err=...}.
//
// On a real Redis the clock is the server's: clock.advance sleeps (at most
// MaxSleep per test file in all) and clock.set is refused. Each test starts
// with FLUSHDB on the URL's database, so never point it at data you keep.
//
// Scripts come from package script (the front end) and what EVAL sends
// from package gen/bundle, as gen's wrappers send it; luatest does not
// import gen, a later stage.
package luatest
