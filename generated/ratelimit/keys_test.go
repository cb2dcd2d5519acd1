package ratelimit_test

import (
	"fmt"
	"testing"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/clustertest"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestKeyHelpersRedis: the keys the limiters write on a real redis-server
// are the ones the helpers name.
func TestKeyHelpersRedis(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	var s ratelimit.Scripts
	if _, err := s.TokenBucket(ctx, c, ratelimit.NewTokenBucketKeys("u1"), ratelimit.TokenBucketArgs{Capacity: 5, Rate: 1, PeriodMs: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Gate(ctx, c, ratelimit.NewGateKeys("u1", "feeding"), ratelimit.GateArgs{IntervalMs: 60_000}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Window(ctx, c, ratelimit.NewWindowKeys("u1", "user", "ip"), ratelimit.WindowArgs{Limits: [][]int{{60_000, 10}}}); err != nil {
		t.Fatal(err)
	}
	want := []string{ratelimit.TokenBucketBucketKey("u1"), ratelimit.GateKey("u1", "feeding")}
	want = append(want, ratelimit.WindowIdsKeys("u1", "user", "ip")...)
	for _, k := range want {
		if n := c.Exists(ctx, k).Val(); n != 1 {
			t.Errorf("%s: not written", k)
		}
	}
	if n := c.DBSize(ctx).Val(); n != int64(len(want)) {
		t.Errorf("%d keys in the database, want the %d the helpers name", n, len(want))
	}
}

// TestKeyHelpersCluster runs the multi-key limiters on a real 3-primary
// Cluster with keys from the constructors, for tags on every primary: one
// slot per call, so Redis accepts each.
func TestKeyHelpersCluster(t *testing.T) {
	cl := clustertest.Start(t)
	c := cl.Client(t)
	ctx := ctxT(t)
	var s ratelimit.Scripts
	primaries := map[string]bool{}
	for i := range 12 {
		tag := fmt.Sprintf("user%d", i)
		wk := ratelimit.NewWindowKeys(tag, "user", "ip:10.0.0.1", "route:/a")
		if r, err := s.Window(ctx, c, wk, ratelimit.WindowArgs{Limits: [][]int{{60_000, 10}}}); err != nil || !r.Allowed {
			t.Fatalf("Window %v: %+v, %v", wk.Ids, r, err)
		}
		lk := ratelimit.NewLogKeys(tag, "client", "resource")
		if r, err := s.Log(ctx, c, lk, ratelimit.LogArgs{Limits: [][]int{{60_000, 5}, {60_000, 50}}}); err != nil || !r.Allowed {
			t.Fatalf("Log %v: %+v, %v", lk.Logs, r, err)
		}
		slot := crc.Slot(wk.Ids[0])
		for _, k := range append(wk.Ids, lk.Logs...) {
			if crc.Slot(k) != slot {
				t.Errorf("%s: slot %d, want %d", k, crc.Slot(k), slot)
			}
		}
		node, err := c.MasterForKey(ctx, wk.Ids[0])
		if err != nil {
			t.Fatal(err)
		}
		primaries[node.Options().Addr] = true
	}
	if len(primaries) != len(cl.Addrs) {
		t.Errorf("the tags reached %d of %d primaries", len(primaries), len(cl.Addrs))
	}
}

// Sinks keep the compiler from building the keys on the stack.
var (
	sinkTB ratelimit.TokenBucketKeys
	sinkW  ratelimit.WindowKeys
)

// The helpers cost one allocation per key (a single concatenation), plus
// the slice for a variadic key; Tag is the hand-written way they replace.
func BenchmarkKeyHelpers(b *testing.B) {
	b.Run("NewTokenBucketKeys", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkTB = ratelimit.NewTokenBucketKeys("user42")
		}
	})
	b.Run("Tag", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkTB = ratelimit.TokenBucketKeys{Bucket: ratelimit.Tag("user42", "tb")}
		}
	})
	b.Run("NewWindowKeys/3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkW = ratelimit.NewWindowKeys("user42", "user", "ip:10.0.0.1", "route:/a")
		}
	})
}
