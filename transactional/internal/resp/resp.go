package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

var errShortReply = errors.New("transactional: truncated RESP reply")

var crlf = []byte("\r\n")

// Parse decodes one RESP2/RESP3 value from b. miniredis's own
// server.ParseReply knows only RESP2 and stops at the first nested error,
// and redis.call must see both protocols exactly.
func Parse(b []byte) (any, int, error) {
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
	case '|':
		// An attribute: its map goes unread, the reply it annotates
		// follows (redisProtocolToLuaType_Attribute skips it so).
		n, err := respLength(line)
		if err != nil {
			return nil, 0, err
		}
		for i := 0; i < 2*n; i++ {
			_, used, err := Parse(b[next:])
			if err != nil {
				return nil, 0, err
			}
			next += used
		}
		v, used, err := Parse(b[next:])
		if err != nil {
			return nil, 0, err
		}
		return v, next + used, nil
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
			v, used, err := Parse(b[next:])
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

// GoReply takes a reply token by token, as a Writer would write it,
// and builds the value Parse would read back from that RESP.
type GoReply struct {
	stack []goAggregate // the aggregates being filled, innermost last
	Value any
}

type goAggregate struct {
	kind  byte
	elems []any
}

func (g *GoReply) Reset() {
	g.stack = g.stack[:0]
	g.Value = nil
}

// put adds a complete value, closing the aggregates it completes.
func (g *GoReply) put(v any) {
	for len(g.stack) > 0 {
		top := &g.stack[len(g.stack)-1]
		top.elems = append(top.elems, v)
		if len(top.elems) < cap(top.elems) {
			return
		}
		v = aggregateValue(top.kind, top.elems)
		g.stack = g.stack[:len(g.stack)-1]
	}
	g.Value = v
}

// open starts an aggregate of n elements (a map: n pairs); a negative n
// is a null.
func (g *GoReply) open(kind byte, n int) {
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

// Writer builds a reply for a client connection in the protocol that
// connection speaks; RESP3 types degrade to their RESP2 forms as Redis's
// addReply* functions do.
type Writer struct {
	Buf   []byte
	Resp3 bool
	// g, when set, receives the reply as the Go values Parse would
	// make of the RESP, token by token, and buf stays empty
	// (Engine.EvalSHA: the script's reply without RESP in between).
	G *GoReply
}

func (w *Writer) Bulk(s string) {
	if w.G != nil {
		w.G.put(s)
		return
	}
	w.Buf = append(w.Buf, '$')
	w.Buf = strconv.AppendInt(w.Buf, int64(len(s)), 10)
	w.Buf = append(w.Buf, "\r\n"...)
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, "\r\n"...)
}

func (w *Writer) Integer(n int64) {
	if w.G != nil {
		w.G.put(n)
		return
	}
	w.Buf = append(w.Buf, ':')
	w.Buf = strconv.AppendInt(w.Buf, n, 10)
	w.Buf = append(w.Buf, "\r\n"...)
}

func (w *Writer) Status(s string) {
	if w.G != nil {
		w.G.put(Status(sanitizeLine(s)))
		return
	}
	w.Buf = append(w.Buf, '+')
	w.Buf = append(w.Buf, sanitizeLine(s)...)
	w.Buf = append(w.Buf, "\r\n"...)
}

// errorReply writes msg as an error; like Redis's addReplyErrorLength, line
// breaks become spaces so the reply stays one protocol line.
func (w *Writer) ErrorReply(msg string) {
	if w.G != nil {
		w.G.put(&Error{Msg: sanitizeLine(msg)})
		return
	}
	w.Buf = append(w.Buf, '-')
	w.Buf = append(w.Buf, sanitizeLine(msg)...)
	w.Buf = append(w.Buf, "\r\n"...)
}

func (w *Writer) Null() {
	if w.G != nil {
		w.G.put(nil)
		return
	}
	if w.Resp3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "$-1\r\n"...)
}

func (w *Writer) NullArray() {
	if w.G != nil {
		w.G.put(nil)
		return
	}
	if w.Resp3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "*-1\r\n"...)
}

func (w *Writer) Aggregate(kind byte, n int) {
	if w.G != nil {
		w.G.open(kind, n)
		return
	}
	w.Buf = append(w.Buf, kind)
	w.Buf = strconv.AppendInt(w.Buf, int64(n), 10)
	w.Buf = append(w.Buf, "\r\n"...)
}

func (w *Writer) Array(n int) { w.Aggregate('*', n) }

func (w *Writer) MapLen(n int) {
	if w.Resp3 {
		w.Aggregate('%', n)
		return
	}
	w.Aggregate('*', 2*n)
}

func (w *Writer) SetLen(n int) {
	if w.Resp3 {
		w.Aggregate('~', n)
		return
	}
	w.Aggregate('*', n)
}

func (w *Writer) Boolean(b bool) {
	if w.Resp3 && w.G != nil {
		w.G.put(b)
		return
	}
	if w.Resp3 {
		if b {
			w.Buf = append(w.Buf, "#t\r\n"...)
		} else {
			w.Buf = append(w.Buf, "#f\r\n"...)
		}
		return
	}
	if b {
		w.Integer(1)
	} else {
		w.Integer(0)
	}
}

func (w *Writer) Double(f float64) {
	s := formatDouble(f)
	if w.Resp3 && w.G != nil {
		w.G.put(parseDouble(s))
		return
	}
	if w.Resp3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, "\r\n"...)
		return
	}
	w.Bulk(s)
}

func (w *Writer) BigNumber(s string) {
	if w.Resp3 && w.G != nil {
		w.G.put(BigNumber(s))
		return
	}
	if w.Resp3 {
		w.Buf = append(w.Buf, '(')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, "\r\n"...)
		return
	}
	w.Bulk(s)
}

func (w *Writer) Verbatim(format, s string) {
	// addReplyVerbatim's format is three bytes: the first three, up to a
	// NUL, padded with spaces.
	if z := strings.IndexByte(format, 0); z >= 0 {
		format = format[:z]
	}
	f := [3]byte{' ', ' ', ' '}
	copy(f[:], format)
	if w.Resp3 && w.G != nil {
		w.G.put(Verbatim{Format: string(f[:]), Text: s})
		return
	}
	if w.Resp3 {
		w.Aggregate('=', len(s)+4)
		w.Buf = append(w.Buf, f[:]...)
		w.Buf = append(w.Buf, ':')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, "\r\n"...)
		return
	}
	w.Bulk(s)
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
