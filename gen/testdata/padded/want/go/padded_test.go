package padded

import (
	"context"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestPaddedOptional calls a script whose optional now_ms comes before a
// required arg, on a real redis-server: given, it is used; nil sends "",
// which the script reads as absent and replaces with the server's TIME.
func TestPaddedOptional(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var s Scripts
	keys := ScheduleKeys{Zset: "sched"}

	at, err := s.Schedule(ctx, c, keys, ScheduleArgs{NowMs: new(int64(1000)), DelayMs: 500, Member: "a"})
	if err != nil || at != 1500 {
		t.Fatalf("with now_ms: %d, %v; want 1500", at, err)
	}
	before := time.Now().UnixMilli()
	at, err = s.Schedule(ctx, c, keys, ScheduleArgs{DelayMs: 500, Member: "b"})
	after := time.Now().UnixMilli()
	// The server's clock is this machine's (loopback): the reply lies in
	// the window the call took, shifted by delay_ms.
	if err != nil || at < before+500-1000 || at > after+500+1000 {
		t.Fatalf("without now_ms: %d, %v; want about %d", at, err, before+500)
	}
	score, err := c.ZScore(ctx, "sched", "b").Result()
	if err != nil || int64(score) != at {
		t.Errorf("member b at %v, %v; want %d", score, err, at)
	}
}
