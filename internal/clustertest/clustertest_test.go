package clustertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestCluster shares one cluster between its subtests: joining costs seconds, and none of the
// subtests changes the topology.
func TestCluster(t *testing.T) {
	t0 := time.Now()
	c := Start(t)
	t.Logf("cluster start took %v", time.Since(t0))
	cc := c.Client(t)
	ctx := context.Background()

	t.Run("every node reports ok", func(t *testing.T) {
		if len(c.Nodes) != 3 || len(c.Addrs) != 3 {
			t.Fatalf("%d nodes, %d addrs; want 3", len(c.Nodes), len(c.Addrs))
		}
		for _, n := range c.Nodes {
			info := parseInfo(n.Client(t).ClusterInfo(ctx).Val())
			for k, want := range map[string]string{
				"cluster_state": "ok", "cluster_slots_ok": "16384", "cluster_known_nodes": "3", "cluster_size": "3",
			} {
				if info[k] != want {
					t.Errorf("%s: %s = %q; want %q", n.Addr, k, info[k], want)
				}
			}
		}
	})

	t.Run("slots split over three primaries", func(t *testing.T) {
		shards, err := cc.ClusterSlots(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		covered, owners := 0, map[string]bool{}
		for _, s := range shards {
			covered += int(s.End - s.Start + 1)
			owners[s.Nodes[0].Addr] = true
			if len(s.Nodes) != 1 {
				t.Errorf("slots %d-%d have %d nodes; want a lone primary (--cluster-replicas 0)", s.Start, s.End, len(s.Nodes))
			}
		}
		if covered != 16384 || len(owners) != 3 {
			t.Errorf("CLUSTER SLOTS covers %d slots on %d primaries; want 16384 on 3", covered, len(owners))
		}
		for _, a := range c.Addrs {
			if !owners[a] {
				t.Errorf("node %s owns no slots (owners %v)", a, owners)
			}
		}
	})

	t.Run("keyslot known answers", func(t *testing.T) {
		// The CRC16/XMODEM check value, the test vector Redis's own cluster spec uses.
		if got := cc.ClusterKeySlot(ctx, "123456789").Val(); got != 12739 {
			t.Errorf("CLUSTER KEYSLOT 123456789 = %d; want 12739", got)
		}
		a, b := cc.ClusterKeySlot(ctx, "{user1}:a").Val(), cc.ClusterKeySlot(ctx, "{user1}:b").Val()
		if a != b || a != cc.ClusterKeySlot(ctx, "user1").Val() {
			t.Errorf("slots {user1}:a=%d {user1}:b=%d; want both equal to slot(user1)", a, b)
		}
		if err := cc.MSet(ctx, "{user1}:a", "1", "{user1}:b", "2").Err(); err != nil {
			t.Errorf("MSET of same-slot keys: %v", err)
		}
		// Sent to one node unrouted, a multi-key command over two slots must fail with CROSSSLOT:
		// the cluster enforces what the generated wrappers check before sending.
		owner := ownerOf(t, c, cc, "{user1}:a")
		err := owner.Do(ctx, "MSET", "{user1}:a", "1", "{user2}:a", "2").Err()
		if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Errorf("MSET across slots = %v; want a CROSSSLOT error", err)
		}
	})

	t.Run("keys land on three nodes", func(t *testing.T) {
		// Pick one key per node by asking the cluster, not by trusting our own CRC code.
		byNode := map[string]string{}
		for i := 0; len(byNode) < 3 && i < 1000; i++ {
			key := fmt.Sprintf("spread:%d", i)
			addr := ownerAddr(t, cc, key)
			if _, ok := byNode[addr]; !ok {
				byNode[addr] = key
			}
		}
		if len(byNode) != 3 {
			t.Fatalf("keys reach only nodes %v", byNode)
		}
		for addr, key := range byNode {
			if err := cc.Set(ctx, key, addr, 0).Err(); err != nil {
				t.Fatalf("SET %s through the cluster client: %v", key, err)
			}
		}
		for _, n := range c.Nodes {
			direct := n.Client(t)
			key := byNode[n.Addr]
			// Unrouted GET on the owning node proves the write landed there, not on a neighbour.
			if got, err := direct.Get(ctx, key).Result(); err != nil || got != n.Addr {
				t.Errorf("GET %s directly on %s = %q, %v; want %q", key, n.Addr, got, err, n.Addr)
			}
			for addr, other := range byNode {
				if addr == n.Addr {
					continue
				}
				if err := direct.Get(ctx, other).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED") {
					t.Errorf("GET %s on non-owner %s = %v; want MOVED", other, n.Addr, err)
				}
			}
		}
	})
}

// ownerAddr returns the address of the node serving key's slot, from CLUSTER SLOTS.
func ownerAddr(t *testing.T, cc *redis.ClusterClient, key string) string {
	t.Helper()
	ctx := context.Background()
	slot := cc.ClusterKeySlot(ctx, key).Val()
	ranges, err := cc.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ranges {
		if int64(r.Start) <= slot && slot <= int64(r.End) {
			return r.Nodes[0].Addr
		}
	}
	t.Fatalf("slot %d of %q not served", slot, key)
	return ""
}

func ownerOf(t *testing.T, c *Cluster, cc *redis.ClusterClient, key string) *redis.Client {
	t.Helper()
	addr := ownerAddr(t, cc, key)
	for _, n := range c.Nodes {
		if n.Addr == addr {
			return n.Client(t)
		}
	}
	t.Fatalf("owner %s of %q is not one of our nodes %v", addr, key, c.Addrs)
	return nil
}

// TestTwoClustersInParallel checks that concurrent clusters (as parallel packages create) get
// disjoint ports and do not join each other.
func TestTwoClustersInParallel(t *testing.T) {
	var clusters [2]*Cluster
	t.Run("group", func(t *testing.T) {
		for i := range clusters {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				clusters[i] = Start(t, "cluster-node-timeout 5000")
				for _, n := range clusters[i].Nodes {
					if got := parseInfo(n.Client(t).ClusterInfo(context.Background()).Val())["cluster_known_nodes"]; got != "3" {
						t.Errorf("%s knows %s nodes; want 3", n.Addr, got)
					}
				}
			})
		}
	})
	seen := map[int]bool{}
	for _, c := range clusters {
		if c == nil {
			t.Fatal("a cluster did not start")
		}
		for _, n := range c.Nodes {
			for _, p := range []int{n.Port, n.Port + 10000} {
				if seen[p] {
					t.Errorf("port %d used twice", p)
				}
				seen[p] = true
			}
		}
	}
}

func BenchmarkStart(b *testing.B) {
	for b.Loop() {
		c := Start(b)
		c.stopAll()
	}
}
