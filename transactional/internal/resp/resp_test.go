package resp

import (
	"math"
	"reflect"
	"testing"
)

// TestGoReplyMatchesParse: a reply handed over as Go values (GoReply) is
// the value Parse reads back from the same reply written as RESP, in both
// protocols and nested.
func TestGoReplyMatchesParse(t *testing.T) {
	replies := map[string]func(w *Writer){
		"bulk":      func(w *Writer) { w.Bulk("a\r\nb") },
		"integer":   func(w *Writer) { w.Integer(-42) },
		"status":    func(w *Writer) { w.Status("OK\nthen") },
		"error":     func(w *Writer) { w.ErrorReply("ERR two\r\nlines") },
		"null":      func(w *Writer) { w.Null() },
		"nullArray": func(w *Writer) { w.NullArray() },
		"empty":     func(w *Writer) { w.Array(0) },
		"boolean":   func(w *Writer) { w.Boolean(true) },
		"double":    func(w *Writer) { w.Double(1.5e-7) },
		"inf":       func(w *Writer) { w.Double(math.Inf(-1)) },
		"bigNumber": func(w *Writer) { w.BigNumber("123456789012345678901234567890") },
		"verbatim":  func(w *Writer) { w.Verbatim("markdown", "# x") },
		"nested": func(w *Writer) {
			w.Array(3)
			w.MapLen(2)
			w.Bulk("k")
			w.SetLen(2)
			w.Integer(1)
			w.Null()
			w.Boolean(false)
			w.ErrorReply("ERR inside")
			w.Array(1)
			w.Double(2)
			w.Status("PONG")
		},
	}
	for name, write := range replies {
		for _, resp3 := range []bool{false, true} {
			w := Writer{Resp3: resp3}
			write(&w)
			want, n, err := Parse(w.Buf)
			if err != nil || n != len(w.Buf) {
				t.Fatalf("%s resp3=%v: Parse(%q) = %v, %d, %v", name, resp3, w.Buf, want, n, err)
			}
			var g GoReply
			write(&Writer{Resp3: resp3, G: &g})
			if !reflect.DeepEqual(g.Value, want) {
				t.Errorf("%s resp3=%v: GoReply %#v, Parse %#v", name, resp3, g.Value, want)
			}
		}
	}
}

// TestParseShort: a reply cut anywhere is an error, not a value.
func TestParseShort(t *testing.T) {
	w := Writer{Resp3: true}
	w.Array(2)
	w.Bulk("hello")
	w.MapLen(1)
	w.Integer(1)
	w.Double(0.5)
	for i := range w.Buf {
		if v, _, err := Parse(w.Buf[:i]); err == nil {
			t.Errorf("Parse(%q) = %#v, want an error", w.Buf[:i], v)
		}
	}
}

// TestParseAttribute: an attribute before a reply is read and dropped, as
// Redis's script reply parser does. The bytes are redis-server 7.0.15's
// answer to DEBUG PROTOCOL attrib on a RESP3 connection.
func TestParseAttribute(t *testing.T) {
	b := []byte("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n")
	v, n, err := Parse(b)
	if err != nil || n != len(b) || v != "Some real reply following the attribute" {
		t.Errorf("Parse = %#v, %d, %v; want the reply after the attribute, %d bytes", v, n, err, len(b))
	}
	for i := range b {
		if v, _, err := Parse(b[:i]); err == nil {
			t.Errorf("Parse(%q) = %#v, want an error", b[:i], v)
		}
	}
}
