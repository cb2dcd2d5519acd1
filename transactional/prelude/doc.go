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
// # Writes that need no undo
//
// A write after which nothing in its run can fail needs no undo: if the
// run fails, it fails before that write or in it, and a Redis command that
// fails changes nothing. Needed proves this on the source (needed.go): a
// forward pass over the main chunk tracks the Lua types each local may
// hold, narrowed by the conditions a path passed (`if not n`, `type(t) ==
// 'table'` …) and by operations that
// succeeded, follows calls into the script's local functions, and knows
// which commands reply with an integer; every operation that may raise
// (a redis.call, arithmetic on what may not be a number, indexing what may
// not be a table, error, an unknown function …) after a write refutes it.
// A write in a function body is never final; one in a loop is when nothing
// in a later iteration or after the loop may fail (the loop's fixed point
// carries the writes an iteration opened to the top of the next). Wrap and Run send
// the final writes straight to Redis (rawName, the third local of the
// declaration), and a script all of whose writes are final needs no
// runtime at all: the bundler ships it unwrapped (every limiter of the
// library). TestPropertyNeeded checks the
// proof on redis-server with random scripts and arguments: every failed run
// of a script said to need no runtime leaves the keyspace as it was.
//
// Explain lists the writes a failed run must undo and, for each, the first
// thing after it found to possibly fail (or why the proof gave up):
// `scriptgen lint` reports them for transactional scripts (rule journal).
//
// # Commands that cannot fail
//
// A redis.call is a possible failure, except the few commands sure.go knows
// cannot fail once the run has shown enough. They are the commands the
// limiters use, by family:
//   - sorted sets: ZSCORE, ZCARD, ZCOUNT, ZRANGE and ZRANGEBYSCORE
//     (WITHSCORES); ZADD with options that go together, ZREM and
//     ZREMRANGEBYSCORE;
//   - hashes: HGET, HMGET, HLEN, HEXISTS; HSET and HMSET of field-value
//     pairs, HDEL;
//   - strings: GET, STRLEN;
//   - any type: SET (no option but PX of an integer in [1, 2^53]), EXISTS,
//     TYPE, PTTL, PEXPIRETIME, DEL of one key, PEXPIRE of an integer in
//     [1, 2^53].
//
// Such a command cannot fail when three things hold:
//   - Its key is KEYS[n], or a local set to it once, or the element of a
//     loop over ipairs(KEYS), and the script never changes KEYS.
//   - An earlier command of the same family on that key succeeded, so the
//     key holds that type or nothing (a command of any type needs only
//     that some command on the key succeeded: the key is then not nil).
//   - No write since then may have deleted the key (another KEYS[m] may
//     name the same key). While a key's slot migrates, a cluster node
//     refuses a script's command on a key the script deleted: this was
//     seen on redis-server 7.0.15, and TestSureMigratingSlot shows it.
//
// A loop over ipairs(KEYS) that writes nothing, before any write of the
// run, shows what every element holds, and a later loop over KEYS knows it
// of its element: read everything, then write. Until a write that may
// delete a key has run, every KEYS element is stable: a cluster node runs
// the script only if each of its keys exists or its slot is not migrating
// (EVAL is answered ASK or TRYAGAIN otherwise).
//
// Its arguments must also fit. For that, the flow tracks what is known of
// each numeric local: its bounds, whether it may be NaN, and whether it is
// an integer. These facts are narrowed by comparisons (after x > 0, x is
// not NaN and at least 0; where x > MAX did not hold, x is at most MAX or
// NaN, so `if x > MAX then x = MAX end` bounds x as math.min(x, MAX) does)
// and by `x % 1 == 0`. The flow follows arithmetic
// (∞ - ∞ is NaN), math.floor, ceil, min and max with Lua 5.1's NaN rules,
// and the returns of the script's own local functions (the library's
// int(v, min) returns an integer in [min, 2^53 - 1]).
//   - A score or a range bound must be a number that is not NaN, or a
//     literal Redis parses.
//   - An index must be an integer within ±2^53, which redis.call writes
//     without an exponent.
//
// # Tables and sweeps
//
// A script's numbers often come through a table: log parses a JSON array
// of [window, limit] into one window per key and reads it back in the loop
// that writes. The flow knows what a table local holds when that local
// alone names it and only the main chunk changes it (owned: never handed
// to a function, returned, aliased by `x and t`, stored into by a function
// body, or assigned again). It then tracks the types of the values stored
// in it and what is known of their numbers, so that `w[i]` is one of them
// or nil, and the element of `for _, v in ipairs(w)` one of them. A loop
// over ipairs(KEYS) that stores a value that cannot be nil at its own index
// on every path through its body (a path may return instead) fills the
// table: after it, `w[i]` in a loop over ipairs(KEYS) is never nil, until a
// store that may be nil.
//
// A ZREMRANGEBYSCORE may empty its key, and so make a later command on
// another name for that key fail while the slot migrates, except when it
// removes scores below a member it cannot reach: after a plain ZADD of a
// score held by a local L (no option but CH, L a number in [0, 2^53]), a
// removal up to L - d, with d a number of at least 1, leaves that member,
// and the key exists. The fact lasts while L is not assigned and nothing
// may have removed or moved the member (another ZADD of another score,
// another removal, a SET of another name). A repeat loop runs its body at
// least once, so what its body's end shows holds after it: log adds its
// entries in one.
//
// A table whose values are all records (constructors of named fields,
// `{id = j, count = n}`), owned, and whose records reach no local but the
// element of an ipairs loop that only looks at it (the table is never read
// as t[k], unpacked or handed on), has its fields followed: `c.count` in
// `for _, c in ipairs(charges)` is what the constructors put there, nil
// where one lacks it. window keeps what its first pass decided to write as
// such records and writes them in a loop over KEYS that picks each key's.
//
// A loop the flow cannot settle (a search that breaks, a counter that
// grows) is widened: what it assigns is unknown. What the keys hold is
// kept when one iteration from the widened state leaves it as it was (the
// body writes nothing and calls nothing that may), and a library call
// calls back into the script only when given a function that calls
// something (table.sort's comparator does not).
//
// A call of a library function that returns one value (string.format,
// tostring, math.floor …) as the last argument counts as one argument, and
// pcall of cjson's or cmsgpack's codec calls nothing of the script's back.
//
// Errors that come from the server's configuration are not considered: an
// ACL that denies the user a command the script makes fails every run at
// that command. Nor are changes a script would have to run for seconds to
// meet: while a script is BUSY, Redis still reads its connections, so the
// cluster's state or the count of good replicas (min-replicas-to-write)
// could change between two of its writes.
//
// concurrency was rewritten to read everything before it writes. It counts
// live slots with ZCOUNT, takes the slot with ZADD GT, sets the TTL, and
// sweeps expired slots last with ZREMRANGEBYSCORE. A release marks its slot
// for the sweep with ZADD XX -inf, because a ZREM could empty the key
// before the PEXPIRE. Every write is thus final, and the script ships
// unwrapped.
//   - Its replies and keyspace matched the old script's over 12,000 random
//     calls on redis-server.
//   - It costs 1.05× the old script's instructions (callgrind: 103.7 k
//     against 98.9 k), because one more score is converted between text
//     and number.
//
// log and window were rewritten the same way.
//
// log counts each log with ZCOUNT from just
// past its window instead of sweeping first, decides, and only when every
// key admits does it add the entries (one ZADD each, in a repeat loop,
// scored by the time), set the TTL and sweep below the window, last. A
// refusal writes nothing. Server time (INFO commandstats, 900 EVALSHA
// calls each, old and new script side by side): 12.25 → 12.74 µs at cost
// 1, within this machine's noise; 1,520 → 1,949 µs (1.28×) at cost 1,000,
// where the old script added 500 entries per ZADD. Its own tests pass, as
// do the library's on redis-server and a cluster.
//
// window keeps its sub-buckets in a ring of ceil(duration / precision)
// slots, each "<n>:<count>" for sub-bucket n, written over when the ring
// comes round instead of deleted: an HDEL may empty a key another name in
// KEYS stands for, and a HINCRBY may fail on what the field holds. Its
// first pass reads the count, the mark and the current slot of every limit
// of every key (and the slots leaving the window when the mark moves),
// decides, and keeps what to write as records; the second writes each with
// one HSET, then "t" and the TTL. Memory per identifier keeps its bound
// (three fields per limit and at most one slot per sub-bucket), but slots
// of sub-buckets that left stay until written over or the key expires. A
// refusal or a look (cost 0) writes nothing. Server time against the old
// script, side by side on two redis-servers (1,600 EVALSHA calls each, then
// with the servers swapped): 19.7 → 19.7 and 18.3 → 20.2 µs for one fixed
// window, 20.2 → 19.2 and 19.9 → 19.3 µs for one sliding, 31.2 → 34.7 and
// 32.7 → 31.2 µs for two sliding limits: the same within this machine's
// noise. Over 60,000 random calls
// (seven limit sets, one or two keys, costs 0-3, times moving by 0 to 15
// s), its replies and TTLs matched the old script's on redis-server. Two
// differences, both on purpose: a key named twice in KEYS is charged once
// (it was charged twice, having been checked once), and a look or refusal
// at a later time no longer moves the mark, so a request whose clock is
// behind it still counts the sub-buckets inside its own window.
//
// The proof is tested four ways:
//   - TestPropertyNum and TestPropertyNarrow check what the flow knows of
//     numbers against Lua 5.1 as Redis runs it: random expressions and
//     comparisons over two numbers of random bounds, evaluated on
//     redis-server at the bounds, at infinities, at NaN and between. They
//     found two unsound rules, since fixed: a later argument of math.min
//     that may be NaN does not bound the result, and x % b stays in
//     [0, b] only while |x| <= 2^53.
//   - TestPropertySure runs random scripts of these commands, with
//     arguments such as nan, inf, 2.5 and 2^53+1, on keys of every type and
//     on one key under two names. No failed run of a cleared script may
//     change the keyspace.
//   - TestSureWitnesses takes each condition in turn. It gives a script
//     that breaks only that condition, which Needed must refuse, and shows
//     that the script leaves a write behind on redis-server.
//   - TestSureMigratingSlot does the same for stability on a real cluster,
//     and runs concurrency whole while its key's slot migrates;
//     TestSureMigratingSlotLog runs log whole there on one key under two
//     names that holds only entries its sweep removes.
//   - TestPropertyTables runs random scripts in log's shape (tables filled
//     or not, sweeps below a score just added or not, repeat loops, later
//     failures) on redis-server; a proof that takes any table read as
//     non-nil fails it.
//
// # The inline journal
//
// The same pass finds hash reads whose reply a local keeps untouched
// (`local state = redis.call('HMGET', KEYS[1], 'l', 't')`, made before
// any write of the run) and hash writes of those fields on that key. When
// every write that is not final is such a write, Wrap needs neither proxy
// nor dispatch: it wraps those calls as __scriptgen_h(redis.call(...),
// KEYS[1], 'l', state[1], 't', state[2]), which logs the fields' values
// from before the run once the write succeeded, and run puts them back
// (HSET, or HDEL for a field that was absent) if the body raises. Undos
// are applied newest first, so the oldest one for a field, the value
// before the run, is what stays, whatever other writes came between. This
// was token_bucket's and credits' case (HMGET, HSET, then a PEXPIRE) until
// their PEXPIRE was shown unable to fail; a variant whose PEXPIRE could fail
// is still (TestInlineLimiters).
// The engine runs this text as the Lua it is. TestPropertyInline checks it
// on redis-server against the plain script, as TestPropertyRollback does
// the runtime.
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
// writing path, plain on one redis-server 7.0.15 and, on another, as the
// bundler ships it transactional (-prelude.always: wrapped even when not
// Needed), calls interleaved; an error reply fails it. Ratio shipped/plain,
// median of 5 runs on a shared 2-core EPYC, EVALSHA / FCALL, with the
// runtime for every script (before Needed) and now:
//
//	token_bucket   1.77 / 1.56  →  0.99 / 1.01  unwrapped (TTL bounded)
//	credits        1.72 / 1.59  →  1.00 / 0.95  unwrapped (TTL bounded)
//	gcra           1.61 / 1.33  →  0.96 / 1.02  unwrapped
//	cl_throttle    1.58 / 1.45  →  1.01 / 1.00  unwrapped
//	gate           2.42 / 1.77  →  1.08 / 1.02  unwrapped
//	queue          5.37 / 4.22  →  1.07 / 1.05  unwrapped
//	queue/drained  3.19 / 2.50  →  1.16 / 1.02  unwrapped
//	concurrency    1.71 / 1.63  →  1.01 / 1.00  unwrapped (reads first)
//	window         1.69 / 1.62  →  1.01 / 0.91  unwrapped (reads first)
//	log            1.49 / 1.44  →  0.82 / 1.01  unwrapped (reads first)
//
// The unwrapped rows run the same text on both servers: their spread
// (0.82 to 1.16) is this machine's noise. Instructions are not noisy.
// Counted with callgrind (redis-server under valgrind, 2,000 EVALSHA
// calls, ECHO's cost per call taken off), thousands of instructions per
// call, plain → wrapped: the first runtime, after its rework (handlers per
// command family, one spelling per command in W, the journal's tables made
// at the first write), and as shipped now:
//
//	token_bucket   81.6 → 173.4 (2.12), 151.4 (1.86),  82.0 (1.00)
//	credits        72.6 → 162.1 (2.23), 140.6 (1.92),  74.0 (1.02)
//	gcra           48.0 →  85.7 (1.79),  77.0 (1.61),  48.1 (1.01)
//	cl_throttle    79.2 → 137.6 (1.74), 128.3 (1.61),  79.3 (1.00)
//	gate           28.5 →  77.6 (2.73),  71.8 (2.49),  28.4 (0.99)
//	concurrency    98.8 → 212.6 (2.15), 188.6 (1.90), 103.7 (1.05)
//	window        144.7 → 303.9 (2.10), 257.5 (1.78), 151.9 (1.05)
//	log           129.6 → 245.6 (1.90), 229.0 (1.75), 133.5 (1.03)
//
// Shipped unwrapped, a script is its own plain text; the last figure of
// token_bucket, credits, concurrency, window and log is that text against
// the script before the change that let it ship unwrapped (bounding the
// TTL, reading first): what a user of the plain script pays for it. The
// old window and log measure 144.9 k and 131.3 k in the same count as the
// new ones (window sliding by the second: 148.8 k → 154.7 k, 1.04).
//
// Before that, token_bucket and credits ran under the inline journal. By
// FCALL (the function in a library as the bundler writes it, same count):
// token_bucket 79.8 → 91.8 (1.15) with the inline journal made on each
// call, 86.9 (1.09) with it declared once per library and its log's table
// kept from call to call; credits 71.1 → 82.9 (1.17), 78.0 (1.10).
//
// Where token_bucket's 10.5 k go under the inline journal (ablations of
// the text, same count): the body as a function and its call 2.2 k, the
// journal's functions 2.5 k, xpcall 3.2 k, logging the HSET's two fields
// 1.8 k (a log table made with room for them; letting it grow cost 6.5 k).
// Under the runtime it was 70 k: its declaration and the proxy's
// pass-through 30 k (under EVAL every closure and table is made again on
// each call, a closure 400-700 instructions, a table about 600, and Redis
// 7 leaves a script nowhere to keep them), the run and its dispatch
// 12.5 k, journaling the HSET 10 k, the PEXPIRE 11 k (its PEXPIRETIME is a
// redis.call, about 7 k like any), remembering the HMGET 6 k.
//
// Under the runtime, a removal's undo needs a read the script does not
// make, because the reply is only a count. A key the removal may empty also
// needs its expiry read (PEXPIRETIME). Each such read is a redis.call of
// about 7 k instructions, 5-7% of these scripts. FCALL saves the runtime's declaration (made once
// per FUNCTION LOAD). A queue that consumers drain has had deletions, so
// an XADD is undone by XDEL and XSETID after one XINFO STREAM; one never
// drained needs a DUMP of the whole stream (XSETID cannot set the
// max-deleted-entry-id back to 0-0); both matter only when the queue is
// wrapped, which it no longer is.
//
// The benchmark also reports extra-calls, the commands the journal adds
// per call: 0 for every limiter (window's were 2, log's 3).
package prelude
