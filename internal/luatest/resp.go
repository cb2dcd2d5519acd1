package luatest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Status is a simple-string reply, kept apart from bulk strings because
// scripts see them differently ({ok=...}).
type Status string

// ReplyError is an error reply, verbatim.
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// conn is a minimal RESP2 client: go-redis would fold status replies into
// strings, and the tests compare exactly what the server sent.
type conn struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

const ioTimeout = 30 * time.Second

// dial opens redis://[user:password@]host:port[/db].
func dial(rawURL string) (*conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "redis" || u.Host == "" {
		return nil, fmt.Errorf("bad Redis URL %q: want redis://[user:password@]host:port[/db]", rawURL)
	}
	nc, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		return nil, err
	}
	c := &conn{c: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
	if u.User != nil {
		pw, _ := u.User.Password()
		args := []string{"AUTH", pw}
		if name := u.User.Username(); name != "" && name != "default" {
			args = []string{"AUTH", name, pw}
		}
		if _, err := c.do(args...); err != nil {
			nc.Close()
			return nil, err
		}
	}
	if db := strings.Trim(u.Path, "/"); db != "" && db != "0" {
		if _, err := c.do("SELECT", db); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return c, nil
}

func (c *conn) Close() error { return c.c.Close() }

// do sends one command. An error reply comes back as a ReplyError in err
// (and reply); a broken connection as another error.
func (c *conn) do(args ...string) (any, error) {
	c.c.SetDeadline(time.Now().Add(ioTimeout))
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	v, err := readReply(c.r)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(ReplyError); ok {
		return e, e
	}
	return v, nil
}

func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, errors.New("resp: malformed line")
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+':
		return Status(body), nil
	case '-':
		return ReplyError(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			// Errors nested in arrays (EXEC, script tables) stay values.
			if out[i], err = readReply(r); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("resp: unexpected reply type %q", kind)
}
