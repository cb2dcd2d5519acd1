package scriptrt

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/scriptgen/scriptgen/crc"
)

// VersionError reports a primary that runs another version of the library
// than the package was generated for, even after Load replaced it: another
// process loaded its own version in between.
type VersionError struct {
	Library   string
	Want, Got string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s: library version %s on the server, want %s: another deployment is loading a different version", e.Library, e.Got, e.Want)
}

// CrossSlotError is returned, before any I/O, for a call whose keys hash to
// different cluster slots: Redis Cluster would refuse it with CROSSSLOT, and a
// single Redis would run it, hiding the bug until the day of the migration.
type CrossSlotError struct {
	Script string
	Keys   []string
	Slots  []uint16 // Slots[i] is the slot of Keys[i]
}

func (e *CrossSlotError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: keys in different hash slots:", e.Script)
	for i, k := range e.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %q (slot %d)", k, e.Slots[i])
	}
	b.WriteString("; give the keys one hash tag, e.g. {user42}")
	return b.String()
}

// CheckSlots returns a *CrossSlotError when keys are not all in one slot.
func (sc *Script) CheckSlots(keys []string) error {
	if len(keys) < 2 {
		return nil
	}
	first := crc.Slot(keys[0])
	for _, k := range keys[1:] {
		if crc.Slot(k) != first {
			slots := make([]uint16, len(keys))
			for i, k := range keys {
				slots[i] = crc.Slot(k)
			}
			return &CrossSlotError{Script: sc.Name, Keys: append([]string(nil), keys...), Slots: slots}
		}
	}
	return nil
}

// ArgError is an argument that cannot be sent, found before any I/O.
type ArgError struct {
	Script string
	Arg    string
	Err    error
}

func (e *ArgError) Error() string { return fmt.Sprintf("%s: arg %s: %v", e.Script, e.Arg, e.Err) }

func (e *ArgError) Unwrap() error { return e.Err }

// ErrGap is for an optional arg set after one left nil: ARGV is positional,
// so the script would read the later value in the earlier one's place.
func (sc *Script) ErrGap(arg, absent string) error {
	return &ArgError{Script: sc.Name, Arg: arg, Err: fmt.Errorf("set, but the earlier optional arg %s is nil; ARGV is positional", absent)}
}

// JSONArg is v's encoding/json text, sent for a json arg.
func (sc *Script) JSONArg(arg string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", &ArgError{Script: sc.Name, Arg: arg, Err: err}
	}
	return string(b), nil
}

// ReplyError is a reply whose shape does not match the script's returns:
// header, so that a script and its wrapper that drifted apart fail loudly.
type ReplyError struct {
	Script string
	Field  string // the returns: field, or "" for the whole reply
	Want   string // the header's type
	Reply  any    // the reply (or element) as go-redis decoded it
}

func (e *ReplyError) Error() string {
	what := "reply"
	if e.Field != "" {
		what = "reply field " + e.Field
	}
	return fmt.Sprintf("%s: %s: want %s, got %T %v", e.Script, what, e.Want, e.Reply, e.Reply)
}

func (sc *Script) replyError(field, want string, v any) error {
	return &ReplyError{Script: sc.Name, Field: field, Want: want, Reply: v}
}
