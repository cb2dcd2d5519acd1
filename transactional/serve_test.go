package transactional

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestServe(t *testing.T) {
	var nl *NotLoopbackError
	if err := Serve(context.Background(), Config{Addr: "0.0.0.0:0"}); !errors.As(err, &nl) || nl.Addr != "0.0.0.0:0" {
		t.Errorf("serve on 0.0.0.0: %v, want a NotLoopbackError", err)
	}
	for _, addr := range []string{"", ":0", "example.com:0", "nonsense"} {
		if err := Serve(context.Background(), Config{Addr: addr}); !errors.As(err, &nl) {
			t.Errorf("serve on %q: %v, want a NotLoopbackError", addr, err)
		}
	}
	if err := Serve(context.Background(), Config{Addr: "127.0.0.1:-1"}); err == nil || errors.As(err, &nl) {
		t.Errorf("serve on a bad port: %v, want the listener's error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startServe(t, ctx, Config{Addr: "127.0.0.1:0", Password: "pw"})
	c := redis.NewClient(&redis.Options{Addr: addr, Password: "pw"})
	defer c.Close()
	if got, err := c.Eval(context.Background(), "return cjson.encode({})", nil).Result(); err != nil || got != "{}" {
		t.Errorf("EVAL over serve: %v, %v", got, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop when its context was cancelled")
	}
}
