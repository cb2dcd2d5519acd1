package commands

import (
	"bytes"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

const repliesFile = "replies.resp"

// rawConn speaks RESP3 to a server and returns its replies' bytes.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	buf  []byte
}

func dialRaw(t *testing.T, addr string) *rawConn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &rawConn{t: t, conn: c}
	r.do("HELLO", "3")
	return r
}

func (r *rawConn) do(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	if _, err := r.conn.Write([]byte(b.String())); err != nil {
		r.t.Fatal(err)
	}
	r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	chunk := make([]byte, 64<<10)
	for {
		if n := valueLen(string(r.buf)); n > 0 {
			v := string(r.buf[:n])
			r.buf = r.buf[n:]
			return v
		}
		n, err := r.conn.Read(chunk)
		if err != nil {
			r.t.Fatalf("%q: %v", args, err)
		}
		r.buf = append(r.buf, chunk[:n]...)
	}
}

// TestReplies is replies.resp's generator: it asks a real server COMMAND
// INFO and COMMAND DOCS of every command in the table and compares the
// result with the checked-in file, or rewrites it with -update.
func TestReplies(t *testing.T) {
	s := redistest.Start(t)
	r := dialRaw(t, s.Addr)
	var out strings.Builder
	for _, c := range All() {
		info := elements(r.do("COMMAND", "INFO", c.Name))
		docs := elements(r.do("COMMAND", "DOCS", c.Name))
		if len(info) != 1 || len(docs) != 2 {
			t.Fatalf("%s: COMMAND INFO has %d entries, DOCS %d", c.Name, len(info), len(docs)/2)
		}
		out.WriteString("*4\r\n$" + strconv.Itoa(len(c.Name)) + "\r\n" + c.Name + "\r\n" + canonInfo(info[0]) + docs[0] + canonDocs(docs[1]))
	}
	src := []byte(out.String())
	if *update {
		if err := os.WriteFile(repliesFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(repliesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatalf("%s is stale against the installed redis-server: run `go test ./internal/commands -run TestReplies -update`", repliesFile)
	}
	// What redis-server sends a RESP2 connection is what convert makes of
	// the RESP3 bytes, and COMMAND's top level is TopLevel.
	r2 := dialRaw(t, s.Addr)
	r2.do("HELLO", "2")
	for _, name := range []string{"get", "set", "config", "config|get", "xadd", "client", "zadd"} {
		want := canonInfo(elements(r2.do("COMMAND", "INFO", name))[0])
		if got, _ := InfoReply(name, false); got != want {
			t.Errorf("COMMAND INFO %s in RESP2:\n got %q\nwant %q", name, got, want)
		}
		d := elements(r2.do("COMMAND", "DOCS", name))
		want = d[0] + canonDocs(d[1])
		if got, _ := DocsReply(name, false); got != want {
			t.Errorf("COMMAND DOCS %s in RESP2:\n got %q\nwant %q", name, got, want)
		}
	}
	var names []string
	for _, e := range elements(r.do("COMMAND")) {
		n, _ := bulk(elements(e)[0])
		names = append(names, n)
	}
	sort.Strings(names)
	if got, want := strings.Join(TopLevel(), " "), strings.Join(names, " "); got != want {
		t.Errorf("TopLevel:\n got %s\nwant %s", got, want)
	}
}

// canonInfo and canonDocs sort a container's subcommands, which Redis lists
// in its dict's order, seeded anew at each start.
func canonInfo(v string) string {
	e := elements(v)
	if len(e) < 10 {
		return v
	}
	head, _, _ := strings.Cut(v, "\r\n")
	return head + "\r\n" + strings.Join(e[:9], "") + sortedAggregate(e[9], 1)
}

func canonDocs(v string) string {
	e := elements(v)
	for i := 0; i+1 < len(e); i += 2 {
		if k, _ := bulk(e[i]); k == "subcommands" {
			e[i+1] = sortedAggregate(e[i+1], 2)
		}
	}
	head, _, _ := strings.Cut(v, "\r\n")
	return head + "\r\n" + strings.Join(e, "")
}

// sortedAggregate sorts an aggregate's entries of group elements each.
func sortedAggregate(v string, group int) string {
	e := elements(v)
	var entries []string
	for i := 0; i+group <= len(e); i += group {
		entries = append(entries, strings.Join(e[i:i+group], ""))
	}
	sort.Strings(entries)
	head, _, _ := strings.Cut(v, "\r\n")
	return head + "\r\n" + strings.Join(entries, "")
}
