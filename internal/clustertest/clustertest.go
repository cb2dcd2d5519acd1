package clustertest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

const (
	primaries = 3
	slots     = 16384
	// createTimeout bounds redis-cli, which would otherwise wait forever for a join that cannot happen.
	createTimeout = 30 * time.Second
	// settleTimeout bounds the wait for every node to agree after redis-cli returns.
	settleTimeout = 20 * time.Second
)

// Cluster is a running 3-primary Redis Cluster owned by one test.
type Cluster struct {
	Nodes []*redistest.Server
	Addrs []string // "127.0.0.1:PORT" of each node, in Nodes order
}

// Start brings up a 3-primary Redis Cluster, joins it with redis-cli --cluster create, and waits
// (bounded) until CLUSTER INFO reports cluster_state:ok on every node with all 16384 slots covered.
// extra are config directives for every node, as for redistest.Start. The nodes are stopped at
// Cleanup.
func Start(tb testing.TB, extra ...string) *Cluster {
	tb.Helper()
	cli := redistest.Binary(tb, "redis-cli")
	conf := append([]string{
		"cluster-enabled yes",
		"cluster-config-file nodes.conf",
	}, extra...)
	c := &Cluster{}
	for range primaries {
		n := redistest.Start(tb, conf...)
		c.Nodes = append(c.Nodes, n)
		c.Addrs = append(c.Addrs, n.Addr)
	}
	// Registered after the nodes' own cleanups, so it runs first: stopping the nodes concurrently
	// costs one shutdown (about 100 ms, Redis acts on SIGTERM in its 10 Hz cron) instead of three.
	tb.Cleanup(c.stopAll)

	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	args := append(append([]string{"--cluster", "create"}, c.Addrs...), "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		tb.Fatalf("clustertest: redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := c.waitSettled(tb, settleTimeout); err != nil {
		tb.Fatalf("clustertest: %v\nredis-cli output:\n%s", err, out)
	}
	return c
}

// Client returns a go-redis v9 cluster client for the cluster, closed at Cleanup.
func (c *Cluster) Client(tb testing.TB) *redis.ClusterClient {
	tb.Helper()
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: c.Addrs,
		// CLIENT SETINFO only exists from Redis 7.2; on 7.0 it would fail on every connect.
		DisableIdentity: true,
	})
	tb.Cleanup(func() { _ = cc.Close() })
	return cc
}

func (c *Cluster) stopAll() {
	var wg sync.WaitGroup
	for _, n := range c.Nodes {
		// Errors surface again, and are reported, from each node's own Cleanup calling Stop.
		wg.Go(func() { _ = n.Stop() })
	}
	wg.Wait()
}

// waitSettled polls every node until each one reports a healthy cluster of exactly our nodes.
func (c *Cluster) waitSettled(tb testing.TB, timeout time.Duration) error {
	tb.Helper()
	clients := make([]*redis.Client, len(c.Nodes))
	for i, n := range c.Nodes {
		clients[i] = n.Client(tb)
	}
	deadline := time.Now().Add(timeout)
	for {
		bad := ""
		for i, cl := range clients {
			if problem := nodeProblem(cl); problem != "" {
				bad = fmt.Sprintf("node %s: %s", c.Addrs[i], problem)
				break
			}
		}
		if bad == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster not settled within %v: %s", timeout, bad)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nodeProblem returns why a node does not (yet) see a complete, healthy cluster, or "".
func nodeProblem(cl *redis.Client) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	raw, err := cl.ClusterInfo(ctx).Result()
	if err != nil {
		return err.Error()
	}
	info := parseInfo(raw)
	want := map[string]string{
		"cluster_state":          "ok",
		"cluster_slots_assigned": fmt.Sprint(slots),
		"cluster_slots_ok":       fmt.Sprint(slots),
		"cluster_known_nodes":    fmt.Sprint(primaries),
		"cluster_size":           fmt.Sprint(primaries),
	}
	for _, k := range []string{"cluster_state", "cluster_slots_assigned", "cluster_slots_ok", "cluster_known_nodes", "cluster_size"} {
		if info[k] != want[k] {
			return fmt.Sprintf("%s:%s, want %s", k, info[k], want[k])
		}
	}
	return ""
}

func parseInfo(raw string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(raw) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			m[k] = v
		}
	}
	return m
}
