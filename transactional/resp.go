package transactional

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

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

var errShortReply = errors.New("transactional: truncated RESP reply")

var crlf = []byte("\r\n")

// parseReply decodes one RESP2/RESP3 value from b. miniredis's own
// server.ParseReply knows only RESP2 and stops at the first nested error,
// and redis.call must see both protocols exactly.
func parseReply(b []byte) (any, int, error) {
	if len(b) == 0 {
		return nil, 0, errShortReply
	}
	end := bytes.Index(b, crlf)
	if end < 0 {
		return nil, 0, errShortReply
	}
	line := b[1:end]
	next := end + 2
	switch b[0] {
	case '+':
		return Status(line), next, nil
	case '-':
		return &Error{Msg: string(line)}, next, nil
	case ':':
		if n, ok := atoiBytes(line); ok {
			return n, next, nil
		}
		n, err := strconv.ParseInt(string(line), 10, 64)
		return n, next, err
	case '_':
		return nil, next, nil
	case '#':
		return string(line) == "t", next, nil
	case ',':
		return parseDouble(string(line)), next, nil
	case '(':
		return BigNumber(line), next, nil
	case '$', '=', '!':
		n, err := respLength(line)
		if err != nil {
			return nil, 0, err
		}
		if n < 0 {
			return nil, next, nil
		}
		if len(b) < next+n+2 {
			return nil, 0, errShortReply
		}
		s := string(b[next : next+n])
		next += n + 2
		switch b[0] {
		case '=':
			return parseVerbatim(s), next, nil
		case '!':
			return &Error{Msg: s}, next, nil
		}
		return s, next, nil
	case '*', '~', '>', '%':
		n, err := respLength(line)
		if err != nil {
			return nil, 0, err
		}
		if n < 0 {
			return nil, next, nil
		}
		count := n
		if b[0] == '%' {
			count = 2 * n
		}
		elems := make([]any, count)
		for i := range elems {
			v, used, err := parseReply(b[next:])
			if err != nil {
				return nil, 0, err
			}
			elems[i] = v
			next += used
		}
		return aggregateValue(b[0], elems), next, nil
	}
	return nil, 0, fmt.Errorf("transactional: unknown RESP type %q", b[0])
}

// parseVerbatim is a verbatim string's text: "fmt:text", or text alone.
func parseVerbatim(s string) Verbatim {
	if len(s) >= 4 && s[3] == ':' {
		return Verbatim{Format: s[:3], Text: s[4:]}
	}
	return Verbatim{Text: s}
}

// aggregateValue is the Go value of an aggregate of kind ('*', '~', '>'
// or '%') with its elements, a map's keys and values alternating.
func aggregateValue(kind byte, elems []any) any {
	switch kind {
	case '~':
		return Set(elems)
	case '>':
		return Push(elems)
	case '%':
		m := make(Map, len(elems)/2)
		for i := range m {
			m[i] = MapEntry{Key: elems[2*i], Value: elems[2*i+1]}
		}
		return m
	}
	return elems
}

// goReply takes a reply token by token, as a respWriter would write it,
// and builds the value parseReply would read back from that RESP.
type goReply struct {
	stack []goAggregate // the aggregates being filled, innermost last
	value any
}

type goAggregate struct {
	kind  byte
	elems []any
}

func (g *goReply) reset() {
	g.stack = g.stack[:0]
	g.value = nil
}

// put adds a complete value, closing the aggregates it completes.
func (g *goReply) put(v any) {
	for len(g.stack) > 0 {
		top := &g.stack[len(g.stack)-1]
		top.elems = append(top.elems, v)
		if len(top.elems) < cap(top.elems) {
			return
		}
		v = aggregateValue(top.kind, top.elems)
		g.stack = g.stack[:len(g.stack)-1]
	}
	g.value = v
}

// open starts an aggregate of n elements (a map: n pairs); a negative n
// is a null.
func (g *goReply) open(kind byte, n int) {
	if n < 0 {
		g.put(nil)
		return
	}
	if kind == '%' {
		n *= 2
	}
	if n == 0 {
		g.put(aggregateValue(kind, make([]any, 0)))
		return
	}
	g.stack = append(g.stack, goAggregate{kind: kind, elems: make([]any, 0, n)})
}

// respLength reads the length of a bulk string or an aggregate.
func respLength(line []byte) (int, error) {
	if n, ok := atoiBytes(line); ok {
		return int(n), nil
	}
	return strconv.Atoi(string(line))
}

func parseDouble(s string) float64 {
	switch s {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	case "nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// respWriter builds a reply for a client connection in the protocol that
// connection speaks; RESP3 types degrade to their RESP2 forms as Redis's
// addReply* functions do.
type respWriter struct {
	buf   []byte
	resp3 bool
	// g, when set, receives the reply as the Go values parseReply would
	// make of the RESP, token by token, and buf stays empty
	// (Engine.EvalSHA: the script's reply without RESP in between).
	g *goReply
}

func (w *respWriter) bulk(s string) {
	if w.g != nil {
		w.g.put(s)
		return
	}
	w.buf = append(w.buf, '$')
	w.buf = strconv.AppendInt(w.buf, int64(len(s)), 10)
	w.buf = append(w.buf, "\r\n"...)
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, "\r\n"...)
}

func (w *respWriter) integer(n int64) {
	if w.g != nil {
		w.g.put(n)
		return
	}
	w.buf = append(w.buf, ':')
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.buf = append(w.buf, "\r\n"...)
}

func (w *respWriter) status(s string) {
	if w.g != nil {
		w.g.put(Status(sanitizeLine(s)))
		return
	}
	w.buf = append(w.buf, '+')
	w.buf = append(w.buf, sanitizeLine(s)...)
	w.buf = append(w.buf, "\r\n"...)
}

// errorReply writes msg as an error; like Redis's addReplyErrorLength, line
// breaks become spaces so the reply stays one protocol line.
func (w *respWriter) errorReply(msg string) {
	if w.g != nil {
		w.g.put(&Error{Msg: sanitizeLine(msg)})
		return
	}
	w.buf = append(w.buf, '-')
	w.buf = append(w.buf, sanitizeLine(msg)...)
	w.buf = append(w.buf, "\r\n"...)
}

func (w *respWriter) null() {
	if w.g != nil {
		w.g.put(nil)
		return
	}
	if w.resp3 {
		w.buf = append(w.buf, "_\r\n"...)
		return
	}
	w.buf = append(w.buf, "$-1\r\n"...)
}

func (w *respWriter) nullArray() {
	if w.g != nil {
		w.g.put(nil)
		return
	}
	if w.resp3 {
		w.buf = append(w.buf, "_\r\n"...)
		return
	}
	w.buf = append(w.buf, "*-1\r\n"...)
}

func (w *respWriter) aggregate(kind byte, n int) {
	if w.g != nil {
		w.g.open(kind, n)
		return
	}
	w.buf = append(w.buf, kind)
	w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	w.buf = append(w.buf, "\r\n"...)
}

func (w *respWriter) array(n int) { w.aggregate('*', n) }

func (w *respWriter) mapLen(n int) {
	if w.resp3 {
		w.aggregate('%', n)
		return
	}
	w.aggregate('*', 2*n)
}

func (w *respWriter) setLen(n int) {
	if w.resp3 {
		w.aggregate('~', n)
		return
	}
	w.aggregate('*', n)
}

func (w *respWriter) boolean(b bool) {
	if w.resp3 && w.g != nil {
		w.g.put(b)
		return
	}
	if w.resp3 {
		if b {
			w.buf = append(w.buf, "#t\r\n"...)
		} else {
			w.buf = append(w.buf, "#f\r\n"...)
		}
		return
	}
	if b {
		w.integer(1)
	} else {
		w.integer(0)
	}
}

func (w *respWriter) double(f float64) {
	s := formatDouble(f)
	if w.resp3 && w.g != nil {
		w.g.put(parseDouble(s))
		return
	}
	if w.resp3 {
		w.buf = append(w.buf, ',')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, "\r\n"...)
		return
	}
	w.bulk(s)
}

func (w *respWriter) bigNumber(s string) {
	if w.resp3 && w.g != nil {
		w.g.put(BigNumber(s))
		return
	}
	if w.resp3 {
		w.buf = append(w.buf, '(')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, "\r\n"...)
		return
	}
	w.bulk(s)
}

func (w *respWriter) verbatim(format, s string) {
	// addReplyVerbatim's format is three bytes: the first three, up to a
	// NUL, padded with spaces.
	if z := strings.IndexByte(format, 0); z >= 0 {
		format = format[:z]
	}
	f := [3]byte{' ', ' ', ' '}
	copy(f[:], format)
	if w.resp3 && w.g != nil {
		w.g.put(Verbatim{Format: string(f[:]), Text: s})
		return
	}
	if w.resp3 {
		w.aggregate('=', len(s)+4)
		w.buf = append(w.buf, f[:]...)
		w.buf = append(w.buf, ':')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, "\r\n"...)
		return
	}
	w.bulk(s)
}

// formatDouble prints a double as Redis's addReplyDouble does ("%.17g",
// with inf/-inf/nan spelled out).
func formatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return lua.FormatNumber(f, 17)
}

func sanitizeLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

// atoiBytes parses a RESP length or integer: an optional minus and at most
// 18 digits, which no reply here exceeds; anything else is left to
// strconv on the general path.
func atoiBytes(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
