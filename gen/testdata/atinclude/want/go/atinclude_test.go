package atinclude

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestBundleHoldsEachFileOnce: the recursive includes (with a cycle, and a
// third mention) paste every helper exactly once into each script, and a
// helper is not bundled as a script of its own.
func TestBundleHoldsEachFileOnce(t *testing.T) {
	files, err := filepath.Glob("../bundle/atinclude/*.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("bundle files: %v %v", files, err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, def := range []string{"function tagged(", "function countJob(", "function pushJob(", "function lengthOf(", "function peekAll("} {
			if n := strings.Count(string(src), def); n > 1 {
				t.Errorf("%s: %q %d times", f, def, n)
			}
		}
	}
	want := []string{"atinclude.library.lua", "enqueue.lua", "peek.lua", "stats.lua"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("bundle holds %v, want %v", names, want)
	}
}

// TestIncludedCodeRuns calls every script through EVALSHA and through the
// Functions library on a real redis-server: the pasted helpers are defined
// where the bodies call them, and see the includer's rcall.
func TestIncludedCodeRuns(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, s := range []Scripts{{}, {Functions: true}} {
		if err := c.FlushAll(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if s.Functions {
			if err := s.Load(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		keys := EnqueueKeys{Wait: "{q}:wait", Count: "{q}:count"}
		for i, id := range []string{"a", "b"} {
			r, err := s.Enqueue(ctx, c, keys, EnqueueArgs{ID: id})
			if err != nil {
				t.Fatalf("functions=%v: Enqueue: %v", s.Functions, err)
			}
			if want := (EnqueueResult{Length: int64(i + 1), Total: int64(i + 1)}); r != want {
				t.Errorf("functions=%v: Enqueue(%s) = %+v, want %+v", s.Functions, id, r, want)
			}
		}
		jobs, err := s.Peek(ctx, c, PeekKeys{Wait: "{q}:wait"})
		if err != nil || !reflect.DeepEqual(jobs, []string{"job:a", "job:b"}) {
			t.Errorf("functions=%v: Peek = %q, %v", s.Functions, jobs, err)
		}
		st, err := s.Stats(ctx, c, StatsKeys{Wait: "{q}:wait"})
		if err != nil || st != (StatsResult{First: "job:job:a", N: 2}) {
			t.Errorf("functions=%v: Stats = %+v, %v", s.Functions, st, err)
		}
	}
}
