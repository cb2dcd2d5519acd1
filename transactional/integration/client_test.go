package integration

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestClientCommands holds CLIENT and HELLO to redis-server 7.0.15 where
// the replies carry per-connection values (ids, addresses, ages): the
// same fields in the same order, the values the engine keeps (name, db,
// resp, cmd), KILL in both forms, REPLY OFF, ON and SKIP on a pipeline,
// and HELLO's server and version. The byte-for-byte replies are the
// cases client/… .
func TestClientCommands(t *testing.T) {
	real, tcp, _ := differentialTargets(t)
	field := regexp.MustCompile(`([a-z-]+)=\S*`)
	val := func(line, k string) string {
		m := regexp.MustCompile(`(?:^|\s)` + k + `=(\S*)`).FindStringSubmatch(line)
		if m == nil {
			return ""
		}
		return m[1]
	}
	shapes := map[string][]string{}
	for _, tg := range []struct{ name, addr string }{{"redis", real.addr}, {"engine", tcp.addr}} {
		a, b := dial(t, tg.addr), dial(t, tg.addr)
		a.do(t, "SELECT", "3")
		a.do(t, "CLIENT", "SETNAME", "alpha")
		b.do(t, "HELLO", "3")
		info := string(a.do(t, "CLIENT", "INFO"))
		list := string(a.do(t, "CLIENT", "LIST"))
		binfo := string(b.do(t, "CLIENT", "INFO"))
		id := strings.TrimSpace(strings.TrimPrefix(string(a.do(t, "CLIENT", "ID")), ":"))
		hello := string(a.do(t, "HELLO"))
		shapes[tg.name] = []string{field.ReplaceAllString(info[strings.Index(info, "\r\n")+2:], "$1="),
			strings.SplitN(hello, "$2\r\nid\r\n", 2)[0], hello[:1], binfo[:1]}
		for k, want := range map[string]string{"name": "alpha", "db": "3", "resp": "2", "cmd": "client|info", "id": id, "flags": "N"} {
			if got := val(info, k); got != want {
				t.Errorf("%s: CLIENT INFO %s=%q, want %q\n%s", tg.name, k, got, want, info)
			}
		}
		if !strings.Contains(list, "id="+id+" ") || strings.Count(list, "\nid=")+1 < 2 {
			t.Errorf("%s: CLIENT LIST lacks client %s or the second client:\n%s", tg.name, id, list)
		}
		if got := val(binfo, "resp"); got != "3" {
			t.Errorf("%s: resp=%q after HELLO 3", tg.name, got)
		}
		// REPLY: SKIP drops the next command's reply, OFF all until ON.
		a.c.SetDeadline(time.Now().Add(ioTimeout))
		a.c.Write(encodeAll([][]string{{"CLIENT", "REPLY", "SKIP"}, {"SET", "k", "1"}, {"ECHO", "one"},
			{"CLIENT", "REPLY", "OFF"}, {"ECHO", "two"}, {"CLIENT", "REPLY", "ON"}, {"ECHO", "three"}}))
		var got bytes.Buffer
		for range 3 {
			r, err := readRaw(a.r)
			if err != nil {
				t.Fatalf("%s: %v", tg.name, err)
			}
			got.Write(r)
		}
		if want := "$3\r\none\r\n+OK\r\n$5\r\nthree\r\n"; got.String() != want {
			t.Errorf("%s: CLIENT REPLY: got %q, want %q", tg.name, got.String(), want)
		}
		// KILL: the new form by address, the old form, and by id.
		c, d := dial(t, tg.addr), dial(t, tg.addr)
		cAddr := val(string(c.do(t, "CLIENT", "INFO")), "addr")
		dID := val(string(d.do(t, "CLIENT", "INFO")), "id")
		if r := string(a.do(t, "CLIENT", "KILL", "ADDR", cAddr, "SKIPME", "yes")); r != ":1\r\n" {
			t.Errorf("%s: CLIENT KILL ADDR: %q", tg.name, r)
		}
		if r := string(a.do(t, "CLIENT", "KILL", cAddr)); r != "-ERR No such client\r\n" {
			t.Errorf("%s: CLIENT KILL of a killed client: %q", tg.name, r)
		}
		if r := string(a.do(t, "CLIENT", "KILL", "ID", dID)); r != ":1\r\n" {
			t.Errorf("%s: CLIENT KILL ID: %q", tg.name, r)
		}
		for _, x := range []*conn{c, d} {
			x.c.SetDeadline(time.Now().Add(ioTimeout))
			x.c.Write(encode("PING"))
			if _, err := readRaw(x.r); err == nil {
				t.Errorf("%s: a killed client still answers", tg.name)
			}
		}
		e := dial(t, tg.addr)
		eAddr := val(string(e.do(t, "CLIENT", "INFO")), "addr")
		if r := string(a.do(t, "CLIENT", "KILL", eAddr)); r != "+OK\r\n" {
			t.Errorf("%s: CLIENT KILL addr: %q", tg.name, r)
		}
	}
	for i, what := range []string{"CLIENT INFO's fields", "HELLO up to id", "CLIENT INFO's type", "CLIENT INFO's type in RESP3"} {
		if w, g := shapes["redis"][i], shapes["engine"][i]; w != g {
			t.Errorf("%s differ:\nredis:  %q\nengine: %q", what, w, g)
		}
	}
}

func encodeAll(cmds [][]string) []byte {
	var b []byte
	for _, c := range cmds {
		b = append(b, encode(c...)...)
	}
	return b
}
