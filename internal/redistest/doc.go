// Package redistest starts real redis-server processes for tests.
//
// Every test that claims Redis behaviour runs against a real server, never a mock: Start writes a
// redis.conf into t.TempDir(), runs redis-server on a free 127.0.0.1 port, waits until that very
// process (checked by its process_id, not just any PONG) answers, and registers a Cleanup that
// stops it by PID and reaps it.
//
// # The CI=true rule
//
// Binary decides what happens when redis-server or redis-cli is not installed. With the
// environment variable CI set to a true value (CI=true, as GitHub Actions and most CI systems
// set it) a missing binary fails the test: a CI run that silently skips the real-server tests
// would report green without having checked anything. Anywhere else the test is skipped with a
// message naming the fix, `apt-get install redis-server redis-tools`, so that a new contributor
// can run `go test` before installing Redis.
//
// # Robustness
//
// go test runs packages in parallel, so a port found free may be taken before redis-server binds
// it. Start picks a port by listening on 127.0.0.1:0, releases it, and when the server then fails
// with "Address already in use" starts again on a fresh port (a bounded number of times). A node
// with "cluster-enabled yes" also needs its bus port (port+10000), which is checked as well.
//
// No server outlives its test: Cleanup runs on t.Fatal and on panics; if the test binary itself
// dies (timeout, SIGKILL) the kernel kills the servers it started (PR_SET_PDEATHSIG, Linux).
// Servers are stopped by PID only, with SIGTERM and then SIGKILL after a bounded wait.
package redistest
