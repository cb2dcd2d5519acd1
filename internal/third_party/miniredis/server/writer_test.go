package server

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"testing"
)

// upstream is how miniredis v2.40.0 wrote each reply (fmt.Fprintf), kept
// here as the reference for the strconv Writer.
type upstream struct {
	w     *bytes.Buffer
	resp3 bool
}

func (u upstream) err(e string)    { fmt.Fprintf(u.w, "-%s\r\n", toInline(e)) }
func (u upstream) inline(s string) { fmt.Fprintf(u.w, "+%s\r\n", toInline(s)) }
func (u upstream) bulk(s string)   { fmt.Fprintf(u.w, "$%d\r\n%s\r\n", len(s), s) }
func (u upstream) length(n int)    { fmt.Fprintf(u.w, "*%d\r\n", n) }
func (u upstream) integer(n int)   { fmt.Fprintf(u.w, ":%d\r\n", n) }
func (u upstream) mapLen(n int) {
	if u.resp3 {
		fmt.Fprintf(u.w, "%%%d\r\n", n)
		return
	}
	u.length(2 * n)
}
func (u upstream) setLen(n int) {
	if u.resp3 {
		fmt.Fprintf(u.w, "~%d\r\n", n)
		return
	}
	u.length(n)
}
func (u upstream) pushLen(n int) {
	if u.resp3 {
		fmt.Fprintf(u.w, ">%d\r\n", n)
		return
	}
	u.length(n)
}
func (u upstream) float(f float64) {
	if u.resp3 {
		fmt.Fprintf(u.w, ",%s\r\n", formatFloat(f))
		return
	}
	u.bulk(formatFloat(f))
}
func (u upstream) null() {
	if u.resp3 {
		fmt.Fprint(u.w, "_\r\n")
		return
	}
	fmt.Fprintf(u.w, "$-1\r\n")
}

// TestWriterMatchesUpstream: every reply the strconv Writer writes, through
// a Peer's methods and through Block, is byte for byte what upstream's
// fmt-based one wrote, in RESP2 and RESP3.
func TestWriterMatchesUpstream(t *testing.T) {
	ints := []int{0, 1, -1, 9, 10, -10, 123456789, math.MaxInt64, math.MinInt64}
	floats := []float64{0, -0.0, 1.5, -2.25e-300, 1e300, 0.1, math.Inf(1), math.Inf(-1), math.NaN()}
	strs := []string{"", "OK", "a b", "tab\there", "line\r\nbreak", "ünï\x00code", string(make([]byte, 5000))}
	for _, resp3 := range []bool{false, true} {
		var got bytes.Buffer
		bw := bufio.NewWriterSize(&got, 16) // small, so writes straddle flushes
		p := NewPeer(bw)
		p.Resp3 = resp3
		want := upstream{w: &bytes.Buffer{}, resp3: resp3}
		for _, s := range strs {
			p.WriteError(s)
			want.err(s)
			p.WriteInline(s)
			want.inline(s)
			p.WriteBulk(s)
			want.bulk(s)
			p.WriteRaw(s)
			want.w.WriteString(s)
		}
		p.WriteOK()
		want.inline("OK")
		p.WriteStrings(strs)
		want.length(len(strs))
		for _, s := range strs {
			want.bulk(s)
		}
		for _, n := range ints {
			p.WriteInt(n)
			want.integer(n)
			p.WriteLen(n)
			want.length(n)
			p.WriteMapLen(n % 1000)
			want.mapLen(n % 1000)
			p.WriteSetLen(n)
			want.setLen(n)
			p.WritePushLen(n)
			want.pushLen(n)
		}
		for _, f := range floats {
			p.WriteFloat(f)
			want.float(f)
		}
		p.WriteNull()
		want.null()
		p.Block(func(w *Writer) {
			w.WriteLen(2)
			w.WriteBulk("x")
			w.WriteFloat(2.5)
			w.WriteNull()
		})
		want.length(2)
		want.bulk("x")
		want.float(2.5)
		want.null()
		p.Flush()
		if !bytes.Equal(got.Bytes(), want.w.Bytes()) {
			t.Fatalf("resp3=%v: wrote\n%q\nwant\n%q", resp3, got.Bytes(), want.w.Bytes())
		}
	}
}

// recorder is a Sink that writes down what it is given.
type recorder struct{ events []string }

func (r *recorder) add(f string, a ...any) { r.events = append(r.events, fmt.Sprintf(f, a...)) }
func (r *recorder) Error(msg string)       { r.add("err %q", msg) }
func (r *recorder) Status(s string)        { r.add("status %q", s) }
func (r *recorder) Int(n int)              { r.add("int %d", n) }
func (r *recorder) Bulk(s string)          { r.add("bulk %q", s) }
func (r *recorder) Null()                  { r.add("null") }
func (r *recorder) Array(n int)            { r.add("array %d", n) }
func (r *recorder) Map(n int)              { r.add("map %d", n) }
func (r *recorder) Set(n int)              { r.add("set %d", n) }
func (r *recorder) Push(n int)             { r.add("push %d", n) }
func (r *recorder) Double(f float64)       { r.add("double %v", f) }
func (r *recorder) Raw(s string)           { r.add("raw %q", s) }

// TestSink: with a sink, replies reach it as the values RESP would have
// carried (RESP2's conversions of maps, sets, pushes and floats made),
// nothing reaches the connection, and SetSink(nil) goes back to RESP.
func TestSink(t *testing.T) {
	write := func(p *Peer) {
		p.WriteError("ERR a\nb")
		p.WriteOK()
		p.WriteInt(-7)
		p.WriteBulk("v")
		p.WriteNull()
		p.WriteLen(-1)
		p.WriteMapLen(2)
		p.WriteSetLen(3)
		p.WritePushLen(1)
		p.WriteFloat(0.5)
		p.WriteRaw(":1\r\n")
		p.WriteStrings([]string{"a", "b"})
		p.Block(func(w *Writer) { w.WriteInt(3) })
	}
	cases := []struct {
		resp3 bool
		want  []string
	}{
		{false, []string{`err "ERR a b"`, `status "OK"`, "int -7", `bulk "v"`, "null", "array -1", "array 4",
			"array 3", "array 1", `bulk "0.5"`, `raw ":1\r\n"`, "array 2", `bulk "a"`, `bulk "b"`, "int 3"}},
		{true, []string{`err "ERR a b"`, `status "OK"`, "int -7", `bulk "v"`, "null", "array -1", "map 2",
			"set 3", "push 1", "double 0.5", `raw ":1\r\n"`, "array 2", `bulk "a"`, `bulk "b"`, "int 3"}},
	}
	for _, c := range cases {
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		p := NewPeer(bw)
		p.Resp3 = c.resp3
		r := &recorder{}
		p.SetSink(r)
		write(p)
		p.Flush()
		if out.Len() != 0 {
			t.Errorf("resp3=%v: the connection got %q with a sink set", c.resp3, out.Bytes())
		}
		if fmt.Sprint(r.events) != fmt.Sprint(c.want) {
			t.Errorf("resp3=%v: sink got\n%q\nwant\n%q", c.resp3, r.events, c.want)
		}
		p.SetSink(nil)
		p.WriteInt(5)
		p.Flush()
		if out.String() != ":5\r\n" || len(r.events) != len(c.want) {
			t.Errorf("resp3=%v: after SetSink(nil) the connection got %q, the sink %d events", c.resp3, out.String(), len(r.events)-len(c.want))
		}
	}
}
