// Package libtest proves the rate limiters of lua/ratelimit through their
// generated go-redis wrappers (generated/ratelimit) on real servers: a
// redis-server and a 3-primary Redis Cluster, both started by the tests.
//
// What the Lua tests cannot show is behaviour under concurrency and
// topology changes, so that is what lives here:
//   - exactness: 64 goroutines × 2,000 requests against one identifier admit
//     exactly the limit, for every script, with EVALSHA and with FCALL;
//   - resharding: while the identifier's slot is migrated between primaries
//     under load (MIGRATE, ASK, TRYAGAIN), the wrappers keep answering and
//     the admitted count stays exact;
//   - reference behaviour: gcra side by side with go-redis/redis_rate on the
//     same server;
//   - benchmarks: each script's ops/s and the server's usec_per_call, with
//     redis_rate and ulule/limiter measured in the same run as baselines.
//
// The package has no non-test code: it is a place for tests that need the
// wrappers, real servers and third-party limiters together, none of which
// the library's users should import.
package libtest
