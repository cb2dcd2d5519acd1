package keys

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/internal/clustertest"
	"github.com/scriptgen/scriptgen/internal/redistest"
	header "github.com/scriptgen/scriptgen/internal/script"
)

// parseHeader parses one of the case's scripts, whose patterns are the reference
// the helpers must agree with.
func parseHeader(t *testing.T, name string) *header.Script {
	t.Helper()
	src, err := os.ReadFile("../../" + name + ".lua")
	if err != nil {
		t.Fatal(err)
	}
	s, err := header.Parse(name+".lua", src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// values are tag and part values, including the ones that defeat a hash
// tag, and some random ones; bounded.
func values() []string {
	vs := []string{"u1", "", "}", "}x", "{", "a{b}c", "a}b", "üñí", "with space", "1"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = "ab{}:x0"[r.IntN(7)]
		}
		vs = append(vs, string(b))
	}
	return vs
}

func TestHelpersFollowPatterns(t *testing.T) {
	if got, want := NewMoveKeys("u1", "a", "b"), (MoveKeys{From: "acct:{u1}:a", To: "acct:{u1}:b"}); got != want {
		t.Errorf("NewMoveKeys = %+v, want %+v", got, want)
	}
	if got, want := NewTallyKeys("page", "x", "y"), (TallyKeys{Total: "stats:{page}:total", Items: []string{"stats:{page}:item:x", "stats:{page}:item:y"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("NewTallyKeys = %+v, want %+v", got, want)
	}
	if got := NewTallyKeys("page"); got.Items == nil || len(got.Items) != 0 {
		t.Errorf("NewTallyKeys without items: Items = %#v, want empty", got.Items)
	}

	move, tally, mirror := parseHeader(t, "move"), parseHeader(t, "tally"), parseHeader(t, "mirror")
	vs := values()
	for i, v := range vs {
		w := vs[(i+7)%len(vs)]
		x := vs[(i+13)%len(vs)]
		keys := NewMoveKeys(v, w, x)
		vals := map[string]string{"user": v, "from": w, "to": x}
		if keys.From != move.Keys[0].Pattern.Expand(vals) || keys.To != move.Keys[1].Pattern.Expand(vals) {
			t.Errorf("NewMoveKeys(%q, %q, %q) = %+v", v, w, x, keys)
		}
		if MoveFromKey(v, w) != keys.From || MoveToKey(v, x) != keys.To {
			t.Errorf("MoveFromKey/MoveToKey(%q, …) disagree with NewMoveKeys", v)
		}
		tk := NewTallyKeys(v, w, x)
		if tk.Total != tally.Keys[0].Pattern.Expand(map[string]string{"type": v}) || len(tk.Items) != 2 ||
			tk.Items[1] != tally.Keys[1].Pattern.Expand(map[string]string{"type": v, "item": x}) {
			t.Errorf("NewTallyKeys(%q, %q, %q) = %+v", v, w, x, tk)
		}
		mk := NewMirrorKeys(v, w)
		if mk.Src != mirror.Keys[0].Pattern.Expand(map[string]string{"name": v}) ||
			mk.Dst != mirror.Keys[1].Pattern.Expand(map[string]string{"name": v, "region": w}) {
			t.Errorf("NewMirrorKeys(%q, %q) = %+v", v, w, mk)
		}
	}
}

// noTag reports whether a tag value leaves Redis no hash tag to use.
func noTag(v string) bool { return v == "" || v[0] == '}' }

// TestConstructorsShareASlot: keys from a constructor hash to one slot,
// whatever the other parts; a tag value that defeats the hash tag is caught
// by the call before any I/O. The calls are queued on a pipeline that is
// never executed, of a client whose address is never dialled.
func TestConstructorsShareASlot(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DisableIdentity: true})
	defer c.Close()
	pipe := c.Pipeline()
	ctx := context.Background()
	var s Scripts
	for _, v := range values() {
		keys := NewTallyKeys(v, "a", "}", "{b}", "c")
		slots := map[uint16]bool{crc.Slot(keys.Total): true}
		for _, k := range keys.Items {
			slots[crc.Slot(k)] = true
		}
		err := s.TallyCmd(ctx, pipe, keys).Err()
		var cs *CrossSlotError
		switch {
		case !noTag(v) && len(slots) != 1:
			t.Errorf("tag %q: keys %q in %d slots", v, append([]string{keys.Total}, keys.Items...), len(slots))
		case !noTag(v) && err != nil:
			t.Errorf("tag %q: %v", v, err)
		case noTag(v) && !errors.As(err, &cs):
			t.Errorf("tag %q gives no hash tag: got %v, want a *CrossSlotError", v, err)
		}
	}
}

func TestOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var s Scripts

	keys := NewMoveKeys("u1", "checking", "savings")
	if err := c.Set(ctx, MoveFromKey("u1", "checking"), 10, 0).Err(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Move(ctx, c, keys, MoveArgs{N: 3})
	if err != nil || r != (MoveResult{From: 7, To: 3}) {
		t.Fatalf("Move = %+v, %v", r, err)
	}
	if got := c.MGet(ctx, "acct:{u1}:checking", "acct:{u1}:savings").Val(); !reflect.DeepEqual(got, []any{"7", "3"}) {
		t.Errorf("accounts = %v, want 7 and 3", got)
	}

	n, err := s.Tally(ctx, c, NewTallyKeys("page", "home", "about", "home"))
	if err != nil || n != 3 {
		t.Fatalf("Tally = %d, %v", n, err)
	}
	if got := c.MGet(ctx, "stats:{page}:item:home", "stats:{page}:item:about", "stats:{page}:total").Val(); !reflect.DeepEqual(got, []any{"2", "1", "3"}) {
		t.Errorf("counters = %v", got)
	}

	if err := c.Set(ctx, MirrorSrcKey("cfg"), "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Mirror(ctx, c, NewMirrorKeys("cfg", "eu")); err != nil || st != "OK" {
		t.Fatalf("Mirror = %q, %v", st, err)
	}
	if got := c.Get(ctx, "copy:{eu}:cfg").Val(); got != "v1" {
		t.Errorf("copy = %q, want v1", got)
	}
}

// TestOnCluster runs the scripts on a real 3-primary Cluster with keys from
// the constructors, for tags spread over every primary: Redis accepts each
// call, which it refuses with CROSSSLOT when the keys span slots.
func TestOnCluster(t *testing.T) {
	cl := clustertest.Start(t)
	c := cl.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var s Scripts
	nodes := map[string]bool{}
	for i := range 24 {
		user := fmt.Sprintf("user%d", i)
		if _, err := s.Move(ctx, c, NewMoveKeys(user, "a", "b"), MoveArgs{N: 1}); err != nil {
			t.Fatalf("Move(%s): %v", user, err)
		}
		if n, err := s.Tally(ctx, c, NewTallyKeys(user, "x", "y")); err != nil || n != 2 {
			t.Fatalf("Tally(%s) = %d, %v", user, n, err)
		}
		node, err := c.MasterForKey(ctx, MoveFromKey(user, "a"))
		if err != nil {
			t.Fatal(err)
		}
		nodes[node.Options().Addr] = true
	}
	if len(nodes) != len(cl.Addrs) {
		t.Errorf("the tags reached %d of %d primaries", len(nodes), len(cl.Addrs))
	}
	// The same script with keys built by hand in two slots: the wrapper
	// refuses, and Redis would too.
	keys := MoveKeys{From: MoveFromKey("user1", "a"), To: MoveToKey("user2", "b")}
	if crc.Slot(keys.From) == crc.Slot(keys.To) {
		t.Fatal("test keys share a slot")
	}
	_, err := s.Move(ctx, c, keys, MoveArgs{N: 1})
	var cs *CrossSlotError
	if !errors.As(err, &cs) {
		t.Errorf("hand-built keys in two slots: got %v, want a *CrossSlotError", err)
	}
	err = c.Eval(ctx, "return redis.call('INCR', KEYS[1]) + redis.call('INCR', KEYS[2])", []string{keys.From, keys.To}).Err()
	if err == nil {
		t.Error("Redis Cluster ran a script on keys of two slots")
	}
}
