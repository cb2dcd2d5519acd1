package miniredis

// scriptgen: COMMAND LIST's filters against redis-server 7.0.15.

import (
	"context"
	"slices"
	"testing"
)

// TestCommandListFilterLikeRedis compares COMMAND LIST FILTERBY's answers
// with redis-server's as sets: Redis lists in its dict's order, which a
// seed picked at start decides.
func TestCommandListFilterLikeRedis(t *testing.T) {
	real, ours := engines(t)
	ctx := context.Background()
	for _, f := range [][]any{
		{"aclcat", "keyspace"}, {"aclcat", "SCRIPTING"}, {"aclcat", "dangerous"}, {"aclcat", "nosuchcat"},
		{"aclcat", "stream"}, {"aclcat", "blocking"}, {"pattern", "z*store"}, {"pattern", "config|*"},
		{"pattern", "*|help"}, {"pattern", "[xy]add"}, {"pattern", "GET"}, {"module", "x"},
	} {
		args := append([]any{"command", "list", "filterby"}, f...)
		want, err1 := real.Do(ctx, args...).StringSlice()
		got, err2 := ours.Do(ctx, args...).StringSlice()
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) || (err1 == nil) != (err2 == nil) {
			t.Errorf("%v: redis-server %v (%v), ours %v (%v)", f, want, err1, got, err2)
		}
	}
}
