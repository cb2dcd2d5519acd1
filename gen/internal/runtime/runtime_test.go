package runtime

import (
	"errors"
	"reflect"
	"testing"

	"github.com/scriptgen/scriptgen/crc"
)

func TestCheckSlots(t *testing.T) {
	for _, keys := range [][]string{nil, {"a"}, {"{u}a", "{u}b", "x{u}y"}, {Tag("u", "a"), Tag("u", "b", "c")}} {
		if err := checkSlots(echoScript, keys); err != nil {
			t.Errorf("%q: %v", keys, err)
		}
	}
	err := checkSlots(echoScript, []string{"{u}a", "a", "{}b"})
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
		got, err := asBool(echoScript, "f", tc.v)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("asBool(%#v) = %v, %v", tc.v, got, err)
		}
	}
}
