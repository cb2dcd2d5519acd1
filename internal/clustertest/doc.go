// Package clustertest starts a real 3-primary Redis Cluster on loopback for tests.
//
// Each node is a redistest server with "cluster-enabled yes" in its own temp dir (redistest makes
// sure the bus port, port+10000, is free too). The nodes are joined by the stock tool,
// `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`, so the slot layout is the one
// operators get, and Start returns only once every node reports cluster_state:ok with all 16384
// slots assigned and all three nodes known: a ClusterClient created afterwards sees a settled
// cluster, with no MOVED storms or CLUSTERDOWN errors to retry around.
//
// # The CI=true rule
//
// The same rule as redistest.Binary, for redis-server and redis-cli: with CI set to a true value a
// missing binary fails the test, because a CI run must not turn green by skipping the cluster
// tests; elsewhere the test is skipped with the hint `apt-get install redis-server redis-tools`.
//
// Start takes about 2 s and cannot go much below that: a fresh primary reports cluster_state:ok
// only about 2 s after it starts (measured). redis-cli polls the join once a second, so on a loaded machine
// Start can take 3–4 s. Share one cluster between the subtests of a test where isolation allows.
package clustertest
