package ratelimit_test

import (
	"testing"

	"github.com/scriptgen/scriptgen/generated/ratelimit"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestTokenBucketArgs drives the defaulted cost and the optional now_ms
// through the wrapper on a real server: nil sends the default, a set
// pointer sends its value, and time given by the caller is honoured.
func TestTokenBucketArgs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := ctxT(t)
	var s ratelimit.Scripts
	keys := ratelimit.TokenBucketKeys{Bucket: "tb:{u1}"}
	at := func(ms int64, cost *int64) ratelimit.TokenBucketResult {
		t.Helper()
		r, err := s.TokenBucket(ctx, c, keys, ratelimit.TokenBucketArgs{Capacity: 3, Rate: 1, PeriodMs: 1000, Cost: cost, NowMs: new(ms)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := at(10_000, nil); !r.Allowed || r.Remaining != 2 {
		t.Fatalf("default cost 1: %+v, want allowed with 2 left", r)
	}
	if r := at(10_000, new(int64(2))); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("cost 2: %+v, want allowed with 0 left", r)
	}
	if r := at(10_000, nil); r.Allowed || r.RetryAfterMs != 1000 {
		t.Fatalf("empty bucket: %+v, want refused for 1000 ms", r)
	}
	if r := at(11_000, nil); !r.Allowed || r.Remaining != 0 {
		t.Fatalf("one period later: %+v, want allowed with 0 left", r)
	}
	// Without now_ms the server's clock decides: far later than 11 s after
	// the epoch, so the bucket is full again.
	r, err := s.TokenBucket(ctx, c, keys, ratelimit.TokenBucketArgs{Capacity: 3, Rate: 1, PeriodMs: 1000})
	if err != nil || !r.Allowed || r.Remaining != 2 {
		t.Fatalf("server time: %+v, %v; want allowed with 2 left", r, err)
	}
}
