package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestReadRequest(t *testing.T) {
	big := strings.Repeat("x", 3*bulkChunk+5)
	for _, c := range []struct {
		payload string
		err     error
		res     []string
	}{
		{payload: "*1\r\n$4\r\nPING\r\n", res: []string{"PING"}},
		{payload: "*2\r\n$4\r\nLLEN\r\n$6\r\nmylist\r\n", res: []string{"LLEN", "mylist"}},
		{payload: "*2\r\n$4\r\nLLEN\r\n$6\r\nmyl", err: io.ErrUnexpectedEOF},
		{payload: "PING", err: io.EOF},
		{payload: "PING\n", res: []string{"PING"}},
		{payload: "*0\r\n*-5\r\n\r\n  \r\nPING\r\n", res: []string{"PING"}},
		{payload: "*0\r\n", err: io.EOF},
		{payload: "*-1\r\n", err: io.EOF},
		{payload: "*1\r\n$4\r\nPINGxx", res: []string{"PING"}},
		{payload: "*1\r\n$" + fmt.Sprint(len(big)) + "\r\n" + big + "\r\n", res: []string{big}},
		{payload: "*1\r\n$" + fmt.Sprint(len(big)) + "\r\n" + big[:bulkChunk+1], err: io.EOF},
		{payload: `ECHO 'a\'b' "\x41\n\z" ''` + "\r\n", res: []string{"ECHO", "a'b", "A\nz", ""}},
		{payload: "ECHO a\x00b c\r\nPING\r\n", err: io.EOF},
		{payload: "ECHO a\x00b c\r\n" + strings.Repeat("PING\r\n", maxInline/6+1), err: ProtocolError("too big inline request")},
		{payload: `ECHO "abc` + "\r\n", err: ProtocolError("unbalanced quotes in request")},
		{payload: `ECHO "a"b` + "\r\n", err: ProtocolError("unbalanced quotes in request")},
		{payload: `ECHO 'a'b` + "\r\n", err: ProtocolError("unbalanced quotes in request")},
		{payload: "*abc\r\n", err: ProtocolError("invalid multibulk length")},
		{payload: "*\r\n", err: ProtocolError("invalid multibulk length")},
		{payload: "*01\r\n", err: ProtocolError("invalid multibulk length")},
		{payload: "*1\n$4\r\nPING\r\n", err: ProtocolError("invalid multibulk length")},
		{payload: "*1048577\r\n", err: ProtocolError("invalid multibulk length")},
		{payload: "*99999999999999999999999\r\n", err: ProtocolError("invalid multibulk length")},
		{payload: "*2\r\n$4\r\nECHO\r\n$99999999999\r\n", err: ProtocolError("invalid bulk length")},
		{payload: "*1\r\n$536870913\r\n", err: ProtocolError("invalid bulk length")},
		{payload: "*1\r\n$-1\r\n", err: ProtocolError("invalid bulk length")},
		{payload: "*1\r\n$+4\r\nPING\r\n", err: ProtocolError("invalid bulk length")},
		{payload: "*1\r\n$04\r\nPING\r\n", err: ProtocolError("invalid bulk length")},
		{payload: "*1\r\nx\r\n", err: ProtocolError("expected '$', got 'x'")},
		{payload: "*1\r\n\r\n", err: ProtocolError("expected '$', got '\r'")},
		{payload: "*2\r\n$1\r\na\r\n*1\r\n", err: ProtocolError("expected '$', got '*'")},
		{payload: strings.Repeat("x", maxInline+10), err: ProtocolError("too big inline request")},
		{payload: "*" + strings.Repeat("1", maxInline+10), err: ProtocolError("too big mbulk count string")},
		{payload: "*1\r\n$" + strings.Repeat("1", maxInline+10), err: ProtocolError("too big bulk count string")},
	} {
		r := newReqReader(bufio.NewReader(strings.NewReader(c.payload)), Limits{})
		res, err := r.read()
		name := c.payload
		if len(name) > 40 {
			name = name[:40]
		}
		if !errors.Is(err, c.err) {
			t.Errorf("%q: err %v, want %v", name, err, c.err)
			continue
		}
		if !reflect.DeepEqual(res, c.res) {
			t.Errorf("%q: %q, want %q", name, res, c.res)
		}
	}
}

func TestQueryBufferLimit(t *testing.T) {
	in := "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$100\r\n" + strings.Repeat("v", 100) + "\r\n"
	r := newReqReader(bufio.NewReader(strings.NewReader(in)), Limits{QueryBufferLimit: 100})
	if _, err := r.read(); err != errQueryBufferLimit {
		t.Errorf("a request over the limit: %v", err)
	}
	r = newReqReader(bufio.NewReader(strings.NewReader(in+in)), Limits{QueryBufferLimit: int64(len(in))})
	for i := 0; i < 2; i++ {
		if _, err := r.read(); err != nil {
			t.Errorf("request %d at the limit: %v", i, err)
		}
	}
}

// TestArgumentsKept: arguments stay as read after the requests that
// follow, whatever their sizes: small ones share an arena, the others are
// not copied after their read, and a command may keep any of them (SET).
func TestArgumentsKept(t *testing.T) {
	var in strings.Builder
	var want [][]string
	for i := range 300 {
		args := []string{"SET", fmt.Sprintf("key%d", i), strings.Repeat(string(rune('a'+i%26)), i*i%(2*bulkChunk+7))}
		in.Write(respCommand(args))
		want = append(want, args)
	}
	r := newReqReader(bufio.NewReader(strings.NewReader(in.String())), Limits{})
	var got [][]string
	for range want {
		args, err := r.read()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, args)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("request %d read as %.80q, want %.80q", i, got[i], want[i])
		}
	}
}

func respCommand(args []string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

func TestParseReply(t *testing.T) {
	type cas struct {
		payload string
		err     error
		res     interface{}
	}
	bigPayload := strings.Repeat("X", 1<<24)
	for i, c := range []cas{
		{
			payload: "+hello world\r\n",
			res:     Simple("hello world"),
		},
		{
			payload: "-some error\r\n",
			err:     errors.New("some error"),
		},
		{
			payload: ":42\r\n",
			res:     42,
		},
		{
			payload: ":\r\n",
			res:     0,
		},
		{
			payload: "$4\r\nabcd\r\n",
			res:     "abcd",
		},
		{
			payload: "*-1\r\n",
			res:     nil,
		},
		{
			payload: fmt.Sprintf("$%d\r\n%s\r\n", len(bigPayload), bigPayload),
			res:     bigPayload,
		},

		{
			payload: "",
			err:     io.EOF,
		},
		{
			payload: ":42",
			err:     io.EOF,
		},
		{
			payload: "XXX",
			err:     io.EOF,
		},
		{
			payload: "XXXXXX",
			err:     io.EOF,
		},
		{
			payload: "\r\n",
			err:     ErrProtocol,
		},
		{
			payload: "XXXX\r\n",
			err:     ErrProtocol,
		},
	} {
		res, err := ParseReply(bufio.NewReader(bytes.NewBufferString(c.payload)))
		if have, want := err, c.err; !reflect.DeepEqual(have, want) {
			t.Errorf("err %d: have %#v, want %#v", i, have, want)
			continue
		}
		if have, want := res, c.res; !reflect.DeepEqual(have, want) {
			t.Errorf("case %d: have %#v, want %#v", i, have, want)
		}
	}
}
