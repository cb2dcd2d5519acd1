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
// usec_per_call, best round of 100) of each limiter of lua/ratelimit,
// plain on one redis-server 7.0.15 and wrapped on another, calls
// interleaved. On the shared 2-core machine it was written on (load 6–12),
// plain vs wrapped in µs, EVALSHA / FCALL:
//
//	token_bucket  11.2 → 20.5 (1.83) /  7.8 → 20.1 (2.6, noisy)
//	gcra           5.9 →  7.8 (1.34) /  5.3 →  6.6 (1.25)
//	cl_throttle    3.6 →  6.0 (1.65) /  3.5 →  4.1 (1.19)
//	credits        6.0 → 11.8 (1.98) /  6.0 → 10.2 (1.70)
//	concurrency    9.3 → 17.3 (1.85) /  8.8 → 14.8 (1.69)
//	window        12.3 → 24.1 (1.96) / 12.4 → 22.4 (1.81)
//	log           13.0 → 22.0 (1.69) / 12.2 → 18.0 (1.47)
//	gate           2.5 →  6.3 (2.5)  /  2.4 →  4.6 (1.95)
//	queue          3.5 → 18.7 (5.3)  /  3.1 → 15.8 (5.1)  stream without deletions: DUMP
//
// The naive prelude (DUMP + PTTL before every first write) measured 1.5–12×
// here, growing with the key (log 8.6×, queue 9.9×). The goal of 1.15× is
// not reached: each extra redis.call costs about 2 µs of server time once
// Lua's argument and reply conversion is counted (one HSET: 1.7 → 3.7 µs),
// a limiter needs at least one (PEXPIRETIME before its PEXPIRE or SET PX),
// and under EVAL the prelude's closures are created again on every call
// (2.7 µs; once per FUNCTION LOAD under FCALL).
//
// The benchmark also reports extra-calls, the commands the journal adds
// per call, which the machine's load does not blur. After SET NX from its
// reply, ZSCORE reads remembered and hash fields journaled once: gate 1.8
// → 0, window 4 → 2, concurrency 3 → 2; token_bucket and credits 1
// (PEXPIRETIME), log 3, queue 3 (XINFO, and a DUMP while the stream never
// had a deletion), gcra and cl_throttle 0. What is left per call is mostly
// Lua: set-up, xpcall and the proxy, a few hundred ns each (measured with
// redis-benchmark on one server: "return 1" 1.0 µs plain, 2.6 µs wrapped,
// 2.0 µs for the declaration alone), and for that Redis offers no cache:
// EVAL's globals and the standard tables are read-only.
package prelude
