package libtest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/clustertest"
)

// maxMoves bounds how often one run moves its slot; each move is a full
// migration, a few dozen milliseconds.
const maxMoves = 20

// TestReshardUnderLoad moves the identifier's slot from primary to primary,
// as `redis-cli --cluster reshard` does (SETSLOT IMPORTING / MIGRATING,
// MIGRATE of every key, SETSLOT NODE), again and again while the limiter is
// under load. Calls meet ASK (keys already moved), TRYAGAIN (a script whose
// keys are split between the nodes) and MOVED (the slot has a new owner),
// and must all be answered, with exactly the limit admitted.
func TestReshardUnderLoad(t *testing.T) {
	cl := clustertest.Start(t)
	nodes := make([]*redis.Client, len(cl.Nodes))
	ids := make([]string, len(cl.Nodes))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for i, n := range cl.Nodes {
		nodes[i] = n.Client(t)
		id, err := nodes[i].ClusterMyID(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	// TRYAGAIN comes back while a migration is half done; go-redis retries it
	// with backoff, MaxRedirects times. The default, 3, is for MOVED storms,
	// not for a slot being migrated under the caller: a service that reshards
	// under load should allow more, as this one does.
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs, DisableIdentity: true, MaxRedirects: 16})
	t.Cleanup(func() { _ = cc.Close() })

	for _, l := range limiters {
		if l.name != "window" && l.name != "log" && l.name != "token_bucket" && l.name != "concurrency" {
			continue // two-key scripts (TRYAGAIN) and one-key scripts of each state shape
		}
		t.Run(l.name, func(t *testing.T) {
			tag := fmt.Sprintf("reshard:%s:%d", l.name, time.Now().UnixNano())
			slot := int(crc.Slot(ratelimit.Tag(tag)))
			var done atomic.Bool
			moved := make(chan int, 1)
			from, err := owner(ctx, nodes[0], nodes, slot)
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				moves := 0
				defer func() { moved <- moves }()
				for moves < maxMoves && !done.Load() {
					to := (from + 1) % len(nodes)
					if err := migrate(ctx, nodes, ids, slot, from, to); err != nil {
						t.Errorf("move %d of slot %d: %v", moves+1, slot, err)
						return
					}
					moves++
					from = to
					time.Sleep(100 * time.Millisecond) // spread the moves over the run
				}
			}()
			got := hammer(t, &ratelimit.Scripts{}, cc, l, tag)
			done.Store(true)
			moves := <-moved
			if got != want(l.name) {
				t.Errorf("admitted %d while the slot moved %d times, want exactly %d", got, moves, want(l.name))
			}
			if moves < 2 {
				t.Errorf("the slot moved %d times during the run; the test proves nothing below 2", moves)
			}
			t.Logf("slot %d moved %d times under load", slot, moves)
		})
	}
}

// owner returns the index of the node that n says serves slot.
func owner(ctx context.Context, n *redis.Client, nodes []*redis.Client, slot int) (int, error) {
	ranges, err := n.ClusterSlots(ctx).Result()
	if err != nil {
		return -1, err
	}
	for _, r := range ranges {
		if slot >= r.Start && slot <= r.End {
			for i, n := range nodes {
				if n.Options().Addr == r.Nodes[0].Addr {
					return i, nil
				}
			}
		}
	}
	return -1, fmt.Errorf("%s: no node serves slot %d", n.Options().Addr, slot)
}

// migrate moves slot from nodes[from] to nodes[to] the way redis-cli's
// reshard does, bounded in rounds.
func migrate(ctx context.Context, nodes []*redis.Client, ids []string, slot, from, to int) error {
	src, dst := nodes[from], nodes[to]
	if err := dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", ids[from]).Err(); err != nil {
		return fmt.Errorf("IMPORTING: %w", err)
	}
	if err := src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", ids[to]).Err(); err != nil {
		return fmt.Errorf("MIGRATING: %w", err)
	}
	host, port, _ := net.SplitHostPort(dst.Options().Addr)
	for round := 0; ; round++ {
		if round == 1000 {
			return fmt.Errorf("keys still in slot %d after %d MIGRATE rounds", slot, round)
		}
		keys, err := src.ClusterGetKeysInSlot(ctx, slot, 100).Result()
		if err != nil {
			return fmt.Errorf("GETKEYSINSLOT: %w", err)
		}
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		if err := src.Do(ctx, args...).Err(); err != nil && !strings.Contains(err.Error(), "NOKEY") {
			return fmt.Errorf("MIGRATE: %w", err)
		}
	}
	// The new owner first, so that it never refuses a redirected call.
	order := []int{to, from}
	for i := range nodes {
		if i != to && i != from {
			order = append(order, i)
		}
	}
	for _, i := range order {
		if err := nodes[i].Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", ids[to]).Err(); err != nil {
			return fmt.Errorf("SETSLOT NODE on %s: %w", nodes[i].Options().Addr, err)
		}
	}
	// As redis-cli does, wait until every node agrees before the next move:
	// a node still gossiping the old owner would bounce calls back.
	deadline := time.Now().Add(5 * time.Second)
	for _, n := range nodes {
		for {
			i, err := owner(ctx, n, nodes, slot)
			if err == nil && i == to {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s does not see slot %d on its new owner after 5s (owner %d, %v)", n.Options().Addr, slot, i, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return nil
}
