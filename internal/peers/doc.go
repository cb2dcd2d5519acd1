// Package peers holds the peers harness: other projects' own tests and
// scenarios, run against `scriptgen serve` built from this tree, a real
// redis-server 7.0.15 and (with -peers.miniredis) upstream miniredis
// v2.40.0, in one run that prints one table.
//
// The suites are downloaded pinned at run time and none of their code is
// committed: asynq's internal/rdb and top-level tests, go-redis/redis_rate
// and ulule/limiter's redis store tests (their test files come with each
// Go module from the module proxy, and run from a writable copy of it), and
// (with -peers.node) a BullMQ and a Bull scenario of ours in
// testdata/node, whose npm packages are installed into a temp dir from the
// lock file beside them. Upstream miniredis is a tiny server in
// testdata/miniredis, a module of its own, so scriptgen's go.mod never
// requires it.
//
// Redis is the reference: a test that fails on redis-server counts against
// no one. A test that passes on Redis and fails on serve fails TestPeers
// unless it is listed in known (name and reason), and a listed test must
// still fail there, so that a fix forces its entry out. The miniredis
// column is information only.
//
// peers-txn (TestPeersTxn, `make peers-txn`) runs the same suites direct
// on one redis-server and through a test-only RESP proxy (proxy_test.go)
// in front of another and in front of serve: every script they send
// reaches the server as what `scriptgen bundle` ships for it flagged
// transactional, and every script call the proxy in front of Redis
// forwards is handed to a recorder whose calls are then replayed with
// failures injected (replay_test.go). A test that passes direct must pass
// through the prelude on both, and the replay must find no keyspace
// difference; the table counts, per suite, the scripts shipped with the
// runtime journal, with the inline one, unwrapped, and those the bundler
// could not take. A second table (scripts_test.go) has a row per script:
// named as the suite's source names it (a Go variable, a BullMQ or Bull
// file) or by its text, its calls, its ratio, how it was shipped, the
// writes the proof (luaflow.Explain) says need an undo, and the commands
// its shipped runs made beyond its plain runs' (INFO commandstats), by
// what the journal needed them for.
//
// The package has no non-test code; it must not be imported. Its tests may
// import internal/redistest, lua (our own scripts, which the replay's
// tests run) and for peers-txn the bundler's own path: internal/script,
// gen/bundle, transactional/prelude, internal/luaflow and
// internal/commands, never a copy of what they do.
package peers
