package scriptrt

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

func TestCheckSlots(t *testing.T) {
	for _, keys := range [][]string{nil, {"a"}, {"{u}a", "{u}b", "x{u}y"}, {Tag("u", "a"), Tag("u", "b", "c")}} {
		if err := echoScript.CheckSlots(keys); err != nil {
			t.Errorf("%q: %v", keys, err)
		}
	}
	err := echoScript.CheckSlots([]string{"{u}a", "a", "{}b"})
	var cs *CrossSlotError
	if !errors.As(err, &cs) {
		t.Fatalf("got %v", err)
	}
	want := &CrossSlotError{Script: "echo", Keys: []string{"{u}a", "a", "{}b"}, Slots: []uint16{crc.Slot("u"), crc.Slot("a"), crc.Slot("{}b")}}
	if !reflect.DeepEqual(cs, want) {
		t.Fatalf("got %+v, want %+v", cs, want)
	}
	// Slots as redis-server 7.0 reports them with CLUSTER KEYSLOT.
	const msg = `echo: keys in different hash slots: "{u}a" (slot 11826), "a" (slot 15495), "{}b" (slot 6680); give the keys one hash tag, e.g. {user42}`
	if err.Error() != msg {
		t.Errorf("message\n%s\nwant\n%s", err, msg)
	}
}

func TestTag(t *testing.T) {
	for _, tc := range []struct {
		tag   string
		parts []string
		want  string
	}{{"u1", nil, "{u1}"}, {"u1", []string{"gate"}, "{u1}:gate"}, {"", []string{"a", "b"}, "{}:a:b"}} {
		if got := Tag(tc.tag, tc.parts...); got != tc.want {
			t.Errorf("Tag(%q, %q) = %q, want %q", tc.tag, tc.parts, got, tc.want)
		}
	}
}

func TestDecodeBool(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
		ok   bool
	}{{nil, false, true}, {int64(1), true, true}, {int64(0), false, true}, {true, true, true}, {int64(2), false, false}, {"1", false, false}} {
		got, err := echoScript.AsBool("f", tc.v)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("AsBool(%#v) = %v, %v", tc.v, got, err)
		}
	}
}

// TestOnServer runs the one-script library of stub_test.go on a real
// redis-server: EVAL on NOSCRIPT, FCALL loading the library, and a
// pipeline whose calls Exec replays after SCRIPT FLUSH.
func TestOnServer(t *testing.T) {
	if got := fmt.Sprintf("%x", sha1.Sum([]byte(echoScript.Src))); got != echoScript.SHA {
		t.Fatalf("SHA %s, want %s", echoScript.SHA, got)
	}
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	want := []any{"k", "v"}
	if v, err := echoScript.Run(ctx, c, []string{"k"}, []any{"v"}).Result(); err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("EVAL: %v, %v", v, err)
	}
	if v, err := rt.FCall(ctx, c, echoScript, []string{"k"}, []any{"v"}).Result(); err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("FCALL: %v, %v", v, err)
	}
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	pipe := c.Pipeline()
	cmd := echoScript.Run(ctx, pipe, []string{"k"}, []any{"v"})
	if err := echoScript.NotPipelined(pipe); err == nil {
		t.Error("NotPipelined accepted a pipeline")
	}
	if _, err := rt.Exec(ctx, pipe); err != nil {
		t.Fatal(err)
	}
	if v, err := cmd.Result(); err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("replayed: %v, %v", v, err)
	}
	if err := rt.Load(ctx, pipe); err == nil || err.Error() != "rt: Load needs a client, not a pipeline" {
		t.Errorf("Load on a pipeline: %v", err)
	}
}
