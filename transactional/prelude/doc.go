// Package prelude is the pure-Lua rollback runtime that gives a script
// flagged `transactional` all-or-nothing semantics on a real Redis: the
// bundler wraps the script in it (Wrap for EVAL, Declare and Run for a
// Functions library; package gen does both).
//
// # How
//
// The wrapper shadows `redis` with a local table whose call and pcall
// journal an undo for each write before it runs, execute the body under
// xpcall, and on a raised error run the undos newest first before raising
// the original error again. xpcall, not pcall: Redis 7 replaces pcall by
// one that turns error tables into strings, which would lose the error's
// code (`WRONGTYPE …` would reach the client as `ERR user_script:…`). A
// script that returns an error reply has not failed and keeps its writes,
// as in Redis.
//
// The undo of a write is the cheapest exact one (prelude.lua, one handler
// per command family):
//   - by default a snapshot before the key's first write: PEXPIRETIME, and
//     DUMP if the key exists; undone by RESTORE … REPLACE ABSTTL (an
//     absolute expiry survives the time the script takes, a PTTL would
//     drift) or DEL. Later writes to that key need nothing.
//   - hash fields (HSET, HINCRBY, HDEL …), sorted-set members (ZADD,
//     ZINCRBY, ZREM, ZREMRANGEBY*), set members and counters are journaled
//     by reading only what the write touches (HMGET, ZMSCORE,
//     SMISMEMBER, ZRANGEBYSCORE, GET) and undone by the inverse write, so a
//     limiter's growing log costs what it touches, not a DUMP of the key;
//   - what the script itself read (GET, HGET, HMGET, ZSCORE) is
//     remembered, so an HSET of fields the script just read, a ZADD of a
//     member whose score it just got, or a SET of a string it just got,
//     reads nothing more; a hash field once journaled is not journaled
//     again (its first undo restores it), so a script that writes one hash
//     many times reads each field at most once;
//   - a SET NX reads nothing: its reply says whether the key was absent
//     (undone by DEL) or nothing changed;
//   - expiry changes (EXPIRE family, PERSIST, and removals that may empty
//     the key) journal PEXPIRETIME once per key, except an expiry already
//     past, which deletes the key and so takes a snapshot; pushes are
//     undone by pops and need no read at all; an XADD is undone by XDEL
//     and XSETID once the stream has ever had a deletion (XSETID cannot
//     set its max-deleted-entry-id back to 0-0, so before that it is a
//     snapshot).
//
// A write that fails leaves its key unchanged, so its undo is dropped: an
// OOM-refused first write then needs no RESTORE, which would be refused
// too.
//
// Which arguments are keys of a write comes from Redis 7.0.15's command
// table (package internal/commands) for the commands the code names in
// string literals; only the handlers of those commands are rendered into
// the script. A command named only at run time is asked about once per run
// with COMMAND INFO and snapshotted, movable-key commands through COMMAND
// GETKEYS. Writes that reach beyond the current database's keys
// (FLUSHALL, FLUSHDB, SWAPDB, MOVE, SELECT, COPY … DB) raise an error in a
// transactional run before they execute, and the run is rolled back.
//
// # Hosts
//
// An engine that journals writes itself (package transactional) runs the
// very text Wrap and Declare produce: Unwrap and SplitDeclared recognise it
// (by rendering it again), Hosted is the one-line declaration it puts in
// place of the runtime's, taking the host's call, pcall and run, and
// Refused lists what a run of the code refuses. The proxy, the line that
// raises a failed run's error again and the refusals are the runtime's, so
// replies and error texts stay the same.
//
// # Errors and line numbers
//
// Errors keep their text and code; only Redis's " script: <sha>, on
// @user_script:<line>." suffix names the line where the prelude raises the
// error again. The prelude sits on the first line, before the script's own
// first line, so line numbers inside messages ("user_script:12: …") are
// those of the unwrapped script. In a library the prelude is declared once
// before the helpers, so that their writes are journaled; functions of that
// library without the flag go through its pass-through, which only changes
// that suffix for their errors. While FUNCTION LOAD runs, a library sees
// neither redis.call nor any other global but redis, so the runtime reads
// nothing global before a call.
//
// # Cost
//
// BenchmarkServerTime measures server time (INFO commandstats
// usec_per_call, best round of 100) of each limiter of lua/ratelimit on its
// writing path, plain on one redis-server 7.0.15 and wrapped on another,
// calls interleaved; an error reply fails it. Medians of 3 runs on a shared
// 2-core EPYC, plain → wrapped in µs, EVALSHA / FCALL:
//
//	token_bucket   7.1 → 12.6 (1.77) /  7.3 → 11.5 (1.56)
//	gcra           3.9 →  6.3 (1.61) /  3.7 →  4.9 (1.33)
//	cl_throttle    7.0 → 11.2 (1.58) /  7.2 → 10.4 (1.45)
//	credits        7.1 → 12.2 (1.72) /  7.1 → 11.3 (1.59)
//	concurrency   11.2 → 18.5 (1.71) /  9.8 → 16.4 (1.63)
//	window        13.2 → 22.4 (1.69) / 13.3 → 21.6 (1.62)
//	log           14.2 → 21.0 (1.49) / 13.4 → 19.2 (1.44)
//	gate           2.5 →  6.0 (2.42) /  2.5 →  4.5 (1.77)
//	queue          3.7 → 22.7 (5.37) /  3.5 → 14.8 (4.22)  never drained: DUMP
//	queue/drained  3.4 → 11.5 (3.19) /  3.7 →  9.6 (2.50)  XINFO STREAM
//
// Server time on a shared machine is noisy; instructions are not. Counted
// with callgrind (redis-server under valgrind, 2,000 EVALSHA calls, ECHO's
// cost per call taken off), thousands of instructions per call, plain →
// wrapped, before and after the runtime's rework (handlers per command
// family, one spelling per command in W, the journal's tables made at the
// first write):
//
//	token_bucket   81.6 → 173.4 (2.12), now 151.4 (1.86)
//	gcra           48.0 →  85.7 (1.79), now  77.0 (1.61)
//	cl_throttle    79.2 → 137.6 (1.74), now 128.3 (1.61)
//	credits        72.6 → 162.1 (2.23), now 140.6 (1.92)
//	concurrency    98.8 → 212.6 (2.15), now 188.6 (1.90)
//	window        144.7 → 303.9 (2.10), now 257.5 (1.78)
//	log           129.6 → 245.6 (1.90), now 229.0 (1.75)
//	gate           28.5 →  77.6 (2.73), now  71.8 (2.49)
//
// The goal of 1.15× is not reached, and a journal kept in Lua at call time
// cannot reach it on these scripts. Taking token_bucket apart (ablations of
// the wrapped text, same count): the declaration and the proxy's
// pass-through cost 30 k (under EVAL every closure and table of the
// runtime is made again on each call, a closure 400-700 instructions, a
// table about 600, and Redis 7 leaves a script nowhere to keep them), the
// run and its dispatch 12.5 k, journaling the HSET 10 k, the PEXPIRE 11 k
// (its PEXPIRETIME is a redis.call, about 7 k like any), remembering the
// HMGET 6 k. A journal written by hand for this one script, which reuses
// the script's own HMGET reply and needs no dispatch, costs 9 k (1.11×):
// most of it the one PEXPIRETIME that any undo of an expiry needs, which
// alone is 8% of token_bucket and 15% of gcra. FCALL saves the
// declaration (made once per FUNCTION LOAD), which is why the library
// form is the cheaper one for transactional scripts. A queue that
// consumers drain has had deletions, so an XADD is undone by XDEL and
// XSETID after one XINFO STREAM; one never drained needs a DUMP of the
// whole stream (XSETID cannot set the max-deleted-entry-id back to 0-0).
//
// The benchmark also reports extra-calls, the commands the journal adds
// per call: token_bucket, cl_throttle and credits 1 (PEXPIRETIME),
// concurrency and window 2, log 3, gate and gcra 0 (SET NX undone from its
// reply, GET's reply remembered), queue 3 or, drained, 1.
package prelude
