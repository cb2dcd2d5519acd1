// Package redissuite measures `scriptgen serve` with Redis's own test suite:
// the Tcl tests under tests/ of the Redis release the installed
// redis-server was built from, run with `./runtest --host H --port P`
// against serve and against that redis-server in the same run.
//
// The package holds what is pure: reading runtest's output into per-test
// results (Parse), setting serve's results beside redis-server's (Compare),
// rendering the table, and reading the checked-in list of known failures.
// Fetching the suite (Debian's source package, through apt-get with a
// temporary configuration), starting servers and running Tcl live in the
// package's tests, since only test code, internal/cli and cmd/ may write
// files or run processes.
//
// It imports only the standard library: it measures the engine from the
// outside, over the wire, as a new user's client would, and must not import
// the engine, the CLI or our copies of miniredis and gopher-lua. Its tests
// may import internal/cli (to run serve in a child process) and
// internal/redistest.
//
// Sources: Redis's tests/README.md ("Running the tests against an external
// server") and .github/workflows/external.yml, which runs
// `./runtest --host 127.0.0.1 --port 6379 --tags -slow`.
package redissuite
