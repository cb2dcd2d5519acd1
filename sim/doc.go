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
// dispatch but nothing of the run), about 7 µs for token_bucket on a
// 2-core EPYC. One virtual hour at 1,000 requests/s (3.6 M runs) takes
// about 26 s in BenchmarkHour (-hour; 31 s before the change below;
// BenchmarkRequest projects it from a short run: 36 s before
// Engine.EvalSHA, the copied globals and the integer fast paths, 26 s
// after, benchstat over 6 runs each), down from 56 s at first; then 24 s
// (-17.5% against 29.6 s in one benchstat run, p = 0.002) once the VM,
// copied into internal/third_party/gopher-lua, looked at the kill context
// every 256 instructions instead of before each. Not the 10 s aimed for,
// which would leave 2.8 µs a request. What remains is mostly gopher-lua
// interpreting the script (some 200 instructions a request), garbage
// collection 15-20%, and miniredis serving redis.call most of the rest.
// Going below that means another interpreter, or a path that skips the
// engine the scripts are tested on; the figure is kept
// honest instead.
package sim
