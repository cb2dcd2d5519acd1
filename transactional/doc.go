// Package transactional is scriptgen's local runner: an embedded Redis made
// of a miniredis keyspace and a Lua sandbox built to behave like Redis 7.0's,
// so that scripts can be tested locally with Redis's real semantics.
//
// # Why not miniredis's own EVAL
//
// miniredis alone is not faithful enough to test scripts against: it lacks
// bit, struct, cmsgpack, the #!lua shebang and its flags, FUNCTION and FCALL;
// its cjson encodes {} as [] and has no cjson.null; error({err=...}) is not
// honoured; errors caught with pcall carry a position prefix; globals use
// Redis 6's wording and setmetatable(_G, nil) escapes the protection; it
// exposes os; and a script that returns a function panics it. The Engine
// therefore intercepts EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT, FUNCTION,
// FCALL and FCALL_RO with miniredis's server.SetPreHook and serves them from
// its own sandbox, while every other command (including those a script
// calls) is miniredis's.
//
// # How it stays faithful
//
//   - One Lua state for EVAL and one for FUNCTION libraries, as in Redis,
//     built with only the libraries Redis loads; the global table scripts see
//     is a read-only proxy (Redis 7's read-only globals, with its error
//     texts), and so are the library tables.
//   - Conversions follow luaReplyToRedisReply and redisProtocolToLuaType,
//     RESP3 included; Redis's pcall override, error handler and the
//     "script: <sha>, on @user_script:<line>." suffix are reproduced.
//   - redis.call checks what Redis's scriptCall checks, in its order, using
//     a command table taken from COMMAND on redis-server 7.0.15
//     (commands_table.go): unknown command, arity, noscript, write from a
//     read-only script.
//   - A script holds miniredis's lock from start to end and its commands run
//     as miniredis's own Lua calls do (nested, under that lock): scripts are
//     atomic for every other client, and a MULTI queues them in order.
//   - Time is virtual by default: TIME, key expiry and stream IDs follow
//     SetTime/Advance; like Redis's clock during a script, it stands still
//     while a script runs.
//   - Scripts are first checked by a port of Lua 5.1's lexer and parser
//     (luasyntax.go), so compile errors carry Lua's own messages ("'end'
//     expected (to close 'if' at line 1) near '<eof>'") and Lua 5.2 syntax
//     that gopher-lua would accept (goto, labels) is refused as in Redis.
//   - Every claim above is checked by the differential suite in
//     ./integration against a real redis-server.
//
// # Runaway scripts
//
// After the busy threshold (WithBusyReplyThreshold) other clients get BUSY
// and SCRIPT KILL / FUNCTION KILL stop a script that has not written, as in
// Redis. Unlike Redis, the engine also stops any script at the time limit
// (WithTimeLimit, default 5s): a test suite must not hang on an endless
// loop. The caller then gets an error in the shape of a killed script.
//
// # Known differences
//
// gopher-lua is not PUC Lua 5.1, and where it shows, the engine translates:
// runtime errors are reworded into Lua's and name the variable involved
// ("attempt to index local 't' (a nil value)", recovered from the failing
// instruction, varinfo.go) except after jumps, where the name is left out.
// What remains different: an argument that is absent reads "got nil" where
// Lua says "got no value"; hexadecimal float literals (0x1p4) do not
// compile; numbers concatenated with .. use Go's formatting instead of
// "%.14g" (tostring and string.format are right); math.random's sequence
// differs; table iteration order (pairs, and so cjson/cmsgpack maps with
// several keys, and FUNCTION LIST's order) is Go's, not Redis's hash order.
// FUNCTION DUMP/RESTORE and SCRIPT DEBUG are not implemented.
//
// # The package name
//
// The journal that gives scripts flagged "transactional" all-or-nothing
// semantics lands here too: the run state (run.go) is where it will record
// each key's first write.
package transactional
