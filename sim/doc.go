// Package sim drives rate-limiter scripts on the local runner's virtual clock
// with a described workload and measures what gets through: admitted and
// denied requests per interval and per caller, how fairly callers were
// served, and the largest burst a limiter let through in any window.
//
// A limiter is any script whose reply has an `allowed` field (or
// cl_throttle's inverted `limited`); the other fields are not read, so a
// user's script with the same result shape simulates as well as the library's.
// Scripts run by EVALSHA on a transactional.Engine, the same runner `scriptgen
// test` uses, so a simulation shows what the Lua really does, rounding and
// key expiry included, not a model of it.
//
// # Time
//
// Requests arrive at exact virtual instants computed from the workload, and
// the engine's clock is set to each instant before the request runs, so TIME,
// PTTL and key expiry follow the simulation. Scripts that take a `now_ms`
// argument get the caller's clock instead: virtual time plus that caller's
// skew, which is how skewed client clocks are simulated. Nothing depends on
// the wall clock, so a run is reproducible to the request.
//
// # Speed
//
// Each limiter gets its own Engine and goroutine, so several limiters compare
// side by side at the cost of one on a multi-core machine. Within one
// limiter requests are sequential: each is a full EVALSHA run in the engine
// (through Engine.EvalSHA, which skips the RESP command line and miniredis's
// dispatch but nothing of the run), about 2.5-2.9 µs for token_bucket on
// a 2-core EPYC whose speed moves by a fifth from hour to hour, and more
// when its neighbours are busy. One virtual hour at 1,000 requests/s
// (3.6 M runs, BenchmarkHour with -hour, or the CLI's `scriptgen sim
// -duration 1h -rate 1000`) takes 8.2-9.5 s in most runs and up to 10.9 s
// when the machine is slow, against 10.5-11.8 s and up to 12.9 s in the
// same runs for the engine and library of the day before (-20%). That day
// token_bucket.lua checked each argument with a helper function and
// refilled with math.min and math.max: a Lua call costs more here (about
// 600 machine instructions) than the check it makes, and the same script
// without them costs 18% fewer instructions a run and Redis 7 5-9% less
// time (EVALSHA's usec_per_call). The engine of two days before took
// 10.9-12.3 s, 13-14 s the one of three, and 15-18 s on a quiet day the
// week before. It took 56 s at first; the steps since, each measured with
// benchstat against the one before:
// Engine.EvalSHA, copied globals and integer fast paths (36 → 26 s);
// the VM, copied into internal/third_party/gopher-lua, looking at its kill
// context every 256 instructions (-17.5%); clock moves that walk only the
// keys with a TTL instead of sorting every key (-10%); string keys in fixed
// table slots, which lets global and library lookups skip hashing (-5 to
// -10%, within this machine's noise); and miniredis, copied into
// internal/third_party/miniredis, handing a redis.call's reply to the
// script as Lua values where it wrote RESP with fmt for the engine to parse
// back (-17%); then the run itself (-19% a request, n = 8, p = 0.002): no
// channel per run and numbers boxed from the VM's blocks, the reply handed
// to EvalSHA as Go values instead of RESP parsed back, short cuts for the
// Go functions scripts call most (math.floor, ceil, abs, max, min,
// tonumber: no call frame for a call with fixed arguments and one result),
// and one KEYS and one ARGV table for every EVAL run; then what surrounds
// a script's commands and the build (-17% a request, n = 6, p = 0.002):
// redis.call resolves a command name once per spelling and runs
// miniredis's handler without Dispatch's lookups, its arguments in a slice
// kept from call to call; HSET looks its hash up once a call, not once a
// field; a set clock that has not moved skips the tick each command made;
// the guards in front of every command test names with switches, not
// maps; EXPIRE's options and the TTL heap's entries no longer allocate;
// GETGLOBAL and GETTABLEKS read their cache inline; the registers above a
// new top are cleared one by one, not by a memclr with a bulk write
// barrier; and the CLI is built with profile-guided optimization
// (cmd/scriptgen/default.pgo, from this package's benchmarks: make pgo;
// make bench uses it too). Counted in instructions, which this machine's
// noise does not touch (valgrind with GOGC=off, BenchmarkRequest): 45,424
// → 39,360 a request (-13%; 40,519 without the profile), 21 → 18
// allocations. Then (37,493 with the profile, -4.7%; 38,613 without):
// numbers boxed from a fixed block by index, the call stack a concrete
// type the VM inlines, equals by dynamic type; miniredis's databases in a
// slice instead of a map looked up on every command and walked on every
// clock move, and key versions moved only once a WATCH has been made; a
// script's command name found by where its bytes are before hashing it;
// the caller's clock in integers. Then the script itself (above), and
// GETTABLE reading an array index in place: 29,708 instructions a request
// with the profile (-20.9%; 30,921 without), 16 allocations. Of what is left, half is the Lua of the script in the VM
// (the dispatch loop alone is 3,800 machine instructions, 30 a Lua
// instruction; boxed numbers, the calls to Go functions), a third the
// commands, and the rest allocation, the run around them and the
// simulator. Tried and dropped, as no gain showed: the opcodes as one
// switch instead of a table of functions; the JMP after a test taken by
// the test, as the reference VM does (-0.3%); a table's small array part
// in its own allocation; the frame's code kept at hand in the loop (2,400
// more instructions a request: the checks cost more than the loads they
// saved); a larger GOGC (the collector runs on the other core: the best of
// 8 runs moved 0.4%); a 32 or 64 MiB heap ballast during a run (fewer
// collections, but within the noise on the CLI's hour, for 5 to 8 times
// the memory). Going much below that means another interpreter, or a
// path that skips the engine the scripts are tested on; the figure is
// kept honest instead.
//
// Many callers, each with a key that has a TTL, cost little more per
// request than one: miniredis (as copied here) keeps TTLs as deadlines in a
// heap, so a clock move costs the keys it expires. BenchmarkCallers measures
// it with Poisson arrivals (a move per request): 4.4 µs a request with 10
// live keys, 5.1 µs with 1,000, 7.0 µs with 5,000. Upstream miniredis
// subtracted the time elapsed from every TTL on each move, after sorting
// every key: 641 µs a request with 5,000 keys, 85 µs once the engine walked
// the TTLs itself instead of sorting.
//
// The sliding log keeps an entry per admitted request in a sorted set, read
// in order several times a request. miniredis sorted the whole set on each
// such read. Its copy keeps the order and finds score ranges by binary
// search, so the log costs about the same at any size: 10.8 µs a request
// with 1,000 entries and 13.0 µs with 10,000, where it cost 290 µs and
// 3.0 ms (BenchmarkLog).
//
// BenchmarkLimiters runs every limiter of the library at 1,000 req/s, each
// letting about half through. Per request, the best of 3 at a slow hour:
// gate 1.8 µs, credits 2.6, token_bucket 3.3, gcra 3.5, cl_throttle 4.4,
// concurrency (1,000 slots) 6.6, log (a minute, up to 30,000 entries) 9.8,
// fixed window 13.9, sliding window (60 sub-buckets) 18.3. The scripts
// that check their arguments in line instead of with a helper function
// (and cl_throttle truncating with math.modf, which has a short cut) cost
// in instructions a request: token_bucket 38,634 → 31,462, gcra 38,586 →
// 31,571, cl_throttle 53,712 → 41,380, credits 38,438 → 33,513,
// concurrency 70,377 → 67,569. The windows are the Lua of the script (its
// limits decoded from JSON, its sub-buckets named and parsed with string
// functions), not the engine. A refused request of the sliding window read
// the whole ring to find when enough sub-buckets leave the window; it now
// starts from the oldest sub-bucket holding a count, which each charge
// keeps in the hash, and reads in runs that double until it has enough:
// 38.3 → 27.6 µs a request for the runs, 27.3 → 18.1 µs for the field
// (n = 6 each), the same replies. The VM makes records of up to 8 string
// keys without a map ({a = i, b = 2}: 906 → 313 ns), closures in one
// allocation with their upvalues, and ipairs's index without one: the
// fixed window 139 → 107 allocations a request, the sliding window
// 272 → 134.
package sim
