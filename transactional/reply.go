package transactional

import "github.com/scriptgen/scriptgen/transactional/internal/resp"

// The replies Do and EvalSHA return, besides nil (null), int64 (integer),
// string (bulk), []any (array), and in RESP3 float64 (double) and bool.
// They are defined with the protocol (internal/resp) and named here, so a
// caller names them as transactional.Status, transactional.Error, ….
type (
	// Status is a RESP simple string reply, such as "OK" or "PONG".
	Status = resp.Status
	// Error is a RESP error reply. Msg is the full text as Redis sends
	// it, including its code, e.g. "WRONGTYPE Operation against a key
	// holding the wrong kind of value".
	Error = resp.Error
	// Map is a RESP3 map, in the order the server sent it (keys need not
	// be strings, so a Go map would lose information).
	Map = resp.Map
	// MapEntry is one key/value pair of a Map.
	MapEntry = resp.MapEntry
	// Set is a RESP3 set, in the order the server sent it.
	Set = resp.Set
	// BigNumber is a RESP3 big number in its decimal text form.
	BigNumber = resp.BigNumber
	// Verbatim is a RESP3 verbatim string: a three-letter format and text.
	Verbatim = resp.Verbatim
	// Push is a RESP3 out-of-band push message.
	Push = resp.Push
)
