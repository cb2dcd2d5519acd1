package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestServeLimitFlags: the client limits reach the server, and values
// Redis would refuse are usage errors.
func TestServeLimitFlags(t *testing.T) {
	for _, bad := range [][]string{{"-maxclients", "0"}, {"-timeout", "-1"}, {"-proto-max-bulk-len", "0"}, {"-client-query-buffer-limit", "-5"}} {
		var stderr strings.Builder
		code := RunContext(context.Background(), append([]string{"serve", "-addr", "127.0.0.1:0"}, bad...), nil, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), "take a positive number") {
			t.Errorf("serve %q: code %d stderr %q", bad, code, stderr.String())
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- RunContext(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-maxclients", "1",
			"-proto-max-bulk-len", "10", "-client-query-buffer-limit", "100", "-timeout", "1"}, nil, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	addr := strings.TrimPrefix(strings.TrimSpace(line), "scriptgen serve: listening on ")
	send := func(req string) string {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(3 * time.Second))
		c.Write([]byte(req))
		b, _ := io.ReadAll(c)
		return string(b)
	}
	if got := send("*2\r\n$4\r\nECHO\r\n$11\r\n"); got != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Errorf("a bulk over -proto-max-bulk-len: %q", got)
	}
	if got := send("*2\r\n$4\r\nECHO\r\n$10\r\n0123456789\r\n" + "*1\r\n$4\r\nQUIT\r\n"); got != "$10\r\n0123456789\r\n+OK\r\n" {
		t.Errorf("a bulk at -proto-max-bulk-len: %q", got)
	}
	if got := send("*9\r\n" + strings.Repeat("$10\r\n0123456789\r\n", 9)); got != "" {
		t.Errorf("a request over -client-query-buffer-limit: %q, want a close", got)
	}
	idle, err := net.Dial("tcp", addr) // held until -timeout closes it
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(100 * time.Millisecond)
	if got := send("PING\r\n"); got != "-ERR max number of clients reached\r\n" {
		t.Errorf("a client over -maxclients: %q", got)
	}
	idle.SetDeadline(time.Now().Add(3 * time.Second))
	start := time.Now()
	if n, err := idle.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("the idle client: %d bytes, %v; want closed by -timeout", n, err)
	} else if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the idle client was closed after %v with -timeout 1", d)
	}
	cancel()
	<-done
}
