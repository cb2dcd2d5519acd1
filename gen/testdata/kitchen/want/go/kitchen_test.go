package kitchen

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// recorder keeps the names of the commands a client sends, to tell EVALSHA
// from EVALSHA_RO and to prove that a refused call sent nothing.
type recorder struct {
	mu    sync.Mutex
	names []string
}

func (r *recorder) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *recorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// The connection handshake is not the wrapper's doing.
		if n := cmd.Name(); n != "hello" && n != "client" {
			r.mu.Lock()
			r.names = append(r.names, n)
			r.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}
func (r *recorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.names
	r.names = nil
	return n
}

func setup(t *testing.T) (context.Context, *redis.Client, *recorder) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	rec := &recorder{}
	c.AddHook(rec)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx, c, rec
}

func TestEchoWireEncoding(t *testing.T) {
	ctx, c, rec := setup(t)
	var s Scripts
	keys := EchoKeys{First: "{t}:1", Rest: []string{"{t}:2", "{t}:3"}}
	args := EchoArgs{
		I: -7, F: 0.25, S: "a b", B: true, By: []byte{0, 1, 'x'}, D: 1500 * time.Millisecond,
		J: map[string]int{"a": 1}, Opt: new(int64(3)), Tail: []string{"t1", "t2"},
	}
	r, err := s.Echo(ctx, c, keys, args)
	if err != nil {
		t.Fatal(err)
	}
	want := EchoResult{
		Keys: []string{"{t}:1", "{t}:2", "{t}:3"},
		Argv: []string{"-7", "0.25", "a b", "1", "\x00\x01x", "1500", `{"a":1}`, "3", "1500", "t1", "t2"},
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got  %q\nwant %q", r, want)
	}
	// no-writes: the read-only commands, which replicas accept.
	if got := rec.take(); !reflect.DeepEqual(got, []string{"evalsha_ro", "eval_ro"}) {
		t.Errorf("commands %v, want evalsha_ro then eval_ro (empty script cache)", got)
	}

	args.Def = new(2 * time.Second)
	args.B = false
	r, err = s.Echo(ctx, c, keys, args)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Argv[3:9], ","); got != "0,\x00\x01x,1500,{\"a\":1},3,2000" {
		t.Errorf("ARGV[4:9] = %q", got)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []string{"evalsha_ro"}) {
		t.Errorf("commands %v, want evalsha_ro (cached)", got)
	}
}

func TestEchoOptionalGap(t *testing.T) {
	ctx, c, rec := setup(t)
	var s Scripts
	keys := EchoKeys{First: "k"}
	// Opt nil: nothing after it can be placed, not even Def's default.
	r, err := s.Echo(ctx, c, keys, EchoArgs{J: nil})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Argv) != 7 || r.Argv[6] != "null" {
		t.Errorf("ARGV = %q, want the 7 required args only", r.Argv)
	}
	rec.take()
	for _, args := range []EchoArgs{{Def: new(time.Second)}, {Tail: []string{"x"}}} {
		_, err := s.Echo(ctx, c, keys, args)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Script != "echo" || !strings.Contains(err.Error(), "optional arg opt is nil") {
			t.Errorf("%+v: got %v, want an *ArgError naming opt", args, err)
		}
	}
	_, err = s.Echo(ctx, c, keys, EchoArgs{J: make(chan int)})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "j" {
		t.Errorf("unencodable json: got %v, want an *ArgError for j", err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("refused calls sent %v", got)
	}
}

func TestCrossSlot(t *testing.T) {
	ctx, c, rec := setup(t)
	var s Scripts
	_, err := s.Counter(ctx, c, CounterKeys{A: "a", B: "b"}, CounterArgs{})
	var cs *CrossSlotError
	if !errors.As(err, &cs) {
		t.Fatalf("got %v, want a *CrossSlotError", err)
	}
	want := CrossSlotError{Script: "counter", Keys: []string{"a", "b"}, Slots: []uint16{crc.Slot("a"), crc.Slot("b")}}
	if !reflect.DeepEqual(*cs, want) || cs.Slots[0] == cs.Slots[1] {
		t.Errorf("got %+v, want %+v", *cs, want)
	}
	_, err = s.Echo(ctx, c, EchoKeys{First: "{x}a", Rest: []string{"{x}b", "{y}c"}}, EchoArgs{})
	if !errors.As(err, &cs) || !reflect.DeepEqual(cs.Keys, []string{"{x}a", "{x}b", "{y}c"}) {
		t.Errorf("variadic keys: got %v", err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("a cross-slot call sent %v", got)
	}

	r, err := s.Counter(ctx, c, CounterKeys{A: Tag("u1", "a"), B: Tag("u1", "b")}, CounterArgs{})
	if err != nil || r != (CounterResult{1, 1}) {
		t.Fatalf("default n: %+v, %v", r, err)
	}
	r, err = s.Counter(ctx, c, CounterKeys{A: "{u1}:a", B: "{u1}:b"}, CounterArgs{N: new(int64(5))})
	if err != nil || r != (CounterResult{6, 6}) {
		t.Fatalf("n=5: %+v, %v", r, err)
	}
	// allow-cross-slot-keys: no check.
	n, err := s.Anywhere(ctx, c, AnywhereKeys{Keys: []string{"a", "b", "c"}})
	if err != nil || n != 3 {
		t.Fatalf("anywhere: %d, %v", n, err)
	}
}

func TestReplyShape(t *testing.T) {
	ctx, c, _ := setup(t)
	var s Scripts
	r, err := s.Shape(ctx, c, ShapeArgs{Mode: "ok"})
	if err != nil || r != (ShapeResult{N: 1, Ok: false}) {
		t.Fatalf("ok: %+v, %v", r, err)
	}
	for mode, field := range map[string]string{"short": "", "type": "n", "bool": "ok"} {
		_, err := s.Shape(ctx, c, ShapeArgs{Mode: mode})
		var re *ReplyError
		if !errors.As(err, &re) || re.Script != "shape" || re.Field != field {
			t.Errorf("%s: got %v, want a *ReplyError for field %q", mode, err, field)
		}
	}
}

func TestFunctions(t *testing.T) {
	ctx, c, rec := setup(t)
	s := Scripts{Functions: true}
	if err := s.Load(ctx, c); err != nil {
		t.Fatal(err)
	}
	rec.take()
	r, err := s.Echo(ctx, c, EchoKeys{First: "k"}, EchoArgs{I: 1, Opt: new(int64(2))})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Argv, ","); got != "1,0,,0,,0,null,2,1500" {
		t.Errorf("ARGV %q", got)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []string{"fcall_ro"}) {
		t.Errorf("commands %v, want fcall_ro", got)
	}
	if _, err := s.Counter(ctx, c, CounterKeys{A: "{a}1", B: "{a}2"}, CounterArgs{}); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []string{"fcall"}) {
		t.Errorf("commands %v, want fcall", got)
	}
}

func TestTrailingOptional(t *testing.T) {
	ctx, c, _ := setup(t)
	var s Scripts
	for _, tc := range []struct {
		args TailArgs
		want []string
	}{
		{TailArgs{}, []string{"1"}},
		{TailArgs{Cost: new(int64(0))}, []string{"0"}},
		{TailArgs{Label: new("x")}, []string{"1", "x"}},
		{TailArgs{Label: new("x"), NowMs: new(int64(99))}, []string{"1", "x", "99"}},
	} {
		got, err := s.Tail(ctx, c, tc.args)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: got %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	_, err := s.Tail(ctx, c, TailArgs{NowMs: new(int64(99))})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "now_ms" {
		t.Errorf("now_ms without label: got %v, want an *ArgError", err)
	}
}
