package shared

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestIncludes runs two scripts that share helpers.lua: pasted into each
// EVAL source, defined once in the library.
func TestIncludes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, s := range []*Scripts{{}, {Functions: true}} {
		if got, err := s.Hello(ctx, c, HelloArgs{Name: "ann"}); err != nil || got != "hello, ann" {
			t.Errorf("functions=%v: hello = %q, %v", s.Functions, got, err)
		}
		if got, err := s.Bye(ctx, c, ByeArgs{Name: "bob"}); err != nil || got != "bye, bob" {
			t.Errorf("functions=%v: bye = %q, %v", s.Functions, got, err)
		}
	}
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "shared"}).Result()
	if err != nil || len(libs) != 1 {
		t.Fatalf("FUNCTION LIST = %v, %v", libs, err)
	}
	flags := map[string][]string{}
	for _, f := range libs[0].Functions {
		flags[f.Name] = f.Flags
	}
	if len(flags) != 3 || len(flags["shared_hello"]) != 1 || flags["shared_hello"][0] != "no-writes" || len(flags["shared_bye"]) != 0 {
		t.Errorf("functions and flags: %v", flags)
	}
}
