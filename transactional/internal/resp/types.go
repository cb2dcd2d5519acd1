package resp

// Status is a RESP simple string reply, such as "OK" or "PONG".
type Status string

// Error is a RESP error reply. Msg is the full text as Redis sends it,
// including its code, e.g. "WRONGTYPE Operation against a key holding the
// wrong kind of value".
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// The RESP3 reply types. RESP3 doubles are float64 and RESP3 booleans are
// bool; verbatim strings are Verbatim; a RESP3 null is nil, like a RESP2 null.
type (
	// Map is a RESP3 map, in the order the server sent it (keys need not be
	// strings, so a Go map would lose information).
	Map []MapEntry
	// MapEntry is one key/value pair of a Map.
	MapEntry struct{ Key, Value any }
	// Set is a RESP3 set, in the order the server sent it.
	Set []any
	// BigNumber is a RESP3 big number in its decimal text form.
	BigNumber string
	// Verbatim is a RESP3 verbatim string: a three-letter format and text.
	Verbatim struct{ Format, Text string }
	// Push is a RESP3 out-of-band push message.
	Push []any
)
