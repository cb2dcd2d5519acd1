// Package luaflow is the Lua analyser: what a script's values are, read
// from its AST, as facts for the stages after it. It holds two passes, with
// one scope type (scope.go) and one frame type (frame.go):
//   - the key walk (Walk, keys.go): a flow-insensitive reading of the
//     script and its includes that gives every expression an abstract
//     value (where a key comes from), follows helpers and resolves each
//     redis.call's command and key positions; it returns Facts, which
//     package lint words as findings;
//   - the proof (Analyze, Needed, Explain: flow.go and the files it
//     names): a forward pass over the main chunk that knows, at each
//     point, what each local may hold (its Lua types, the bounds of its
//     numbers, what an owned table's values are), which key each
//     redis.call touches (KEYS[n], a local set to it, the element of a
//     loop over KEYS) and what is known of that key, and which writes of
//     the run something after them may still undo; package prelude takes
//     its journal plan from it.
//
// It holds facts, not rules or messages: what a fact means to a user is
// lint's to say.
//
// # Imports
//
// luaflow reads source text or gopher-lua's AST and may import the parser
// (internal/third_party/gopher-lua), Redis's command table
// (internal/commands) and the front end (internal/script). It must not
// import lint, the bundler, gen, or anything under transactional: they are
// later stages and read its facts.
//
// # The key walk
//
// Walk reads gopher-lua's AST once per pass and gives every expression an
// abstract value: a KEYS element, a string derived from one (KEYS[1] ..
// ':x', string.format('%s:x', KEYS[1]), KEYS[1]:sub(…)), something that
// depends on a function parameter, or anything else (ARGV, literals,
// replies, arithmetic), with a word on where it came from. A variable's
// value is the join of everything assigned to it anywhere, so a local is a key only when it is assigned only from KEYS;
// passes repeat until the values settle, because a loop may assign after a
// use.
//
// Where a redis.call (or an alias, `local rcall = redis.call`, or
// pcall(redis.call, …)) names a command, its key positions come from Redis's own key specs and
// getkeys procedures (package internal/commands, generated from a real
// redis-server), never from a guess; when an argument that decides them is
// known only at run time, or the command name is held in a variable, the
// walk records that (DynamicCommand, DynamicSubcommand, DynamicKeys) and
// checks nothing it cannot prove.
//
// Local helpers are followed: a function body is read once where it is
// defined, with its parameters unknown, and again at every call with the
// caller's argument values (memoised per argument shape, bounded in depth),
// so `local function incr(key) return rcall('INCR', key) end` called with
// ARGV[1] yields a fact at the helper's call of INCR, naming the call site.
// A function no call reads again with its arguments (one stored with
// others in a dispatch table, `API[ARGV[1]](…)`, or a method, `function
// Q:len() … end`) still has its keys checked where a literal prefix
// settles them: `'ql:q:' .. name` is no KEYS element as passed, whatever
// name is (fields.go). A table keeps what is stored under each constant
// field name (`Q.ns = 'ql:j:'`), and `self.key` of an object known only as
// a parameter starts with a literal when every store of that field name
// in the script does. On qless.lua, which takes no KEYS, this finds a key
// at each of its 271 redis.call sites with keys, where 133 were found
// before. In a vararg function, `arg` is Lua 5.1's local table of the
// extra arguments (Redis builds Lua with LUA_COMPAT_VARARG), never a
// global.
//
// Functions libraries (`#!lua name=…`) are read the same way: a
// redis.register_function callback gets the keys table as its first
// parameter, whatever it is named, and its `no-writes` flag.
//
// # Writes that need no undo
//
// A write after which nothing in its run can fail needs no undo: if the
// run fails, it fails before that write or in it, and a Redis command that
// fails changes nothing. Needed proves this on the source (flow.go): a
// forward pass over the main chunk tracks the Lua types each local may
// hold, narrowed by the conditions a path passed (`if not n`, `type(t) ==
// 'table'` …) and by operations that
// succeeded, follows calls into the script's local functions, and knows
// which commands reply with an integer; every operation that may raise
// (a redis.call, arithmetic on what may not be a number, indexing what may
// not be a table, error, an unknown function …) after a write refutes it.
// A write in a function body is never final; one in a loop is when nothing
// in a later iteration or after the loop may fail (the loop's fixed point
// carries the writes an iteration opened to the top of the next). The
// prelude sends the final writes straight to Redis, and ships a script all
// of whose writes are final unwrapped. TestPropertyNeeded checks the
// proof on redis-server with random scripts and arguments: every failed run
// of a script said to need no runtime leaves the keyspace as it was.
//
// A local every declaration of which is `local rcall = redis.call` (or
// every one redis.pcall), never assigned and only ever called, holds
// Redis's own function wherever it is read: the proof reads `rcall(…)`,
// where rcall is in scope, as `redis.call(…)` (alias.go), and Flow.Offsets
// finds those sites for the prelude to edit. BullMQ and Bull write every
// script so, and their helpers may call themselves: a `local function` is
// in scope in its own body (followed to the same bounded depth). An alias that is
// handed on (`pcall(rcall, …)`, `f(rcall)`), assigned, or shadowed by a
// local of another kind is none: the proof gives up there, saying so.
// TestPropertyNeededAlias runs TestPropertyNeeded's scripts through
// aliases, with reads through a helper that calls one, and checks that the
// aliases alone change no answer of the proof.
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
package luaflow
