package integration

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
)

// TestRedisCLI runs redis-cli 7.0.15 against redis-server and the engine's
// server, piped and interactive (on a pseudo-terminal, where it reads
// COMMAND DOCS for its hints), and expects the same answers from both.
// redis-cli aborted on the engine when COMMAND answered every subcommand
// with Redis 5's table.
func TestRedisCLI(t *testing.T) {
	cli := redistest.Binary(t, "redis-cli")
	srv := redistest.Start(t)
	e := transactional.New()
	t.Cleanup(e.Close)
	addr, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{} // interactive output by target, the address taken out
	for _, tg := range []struct{ name, addr string }{{"redis", srv.Addr}, {"engine", addr.String()}} {
		host, port, _ := strings.Cut(tg.addr, ":")
		t.Run(tg.name+"/piped", func(t *testing.T) {
			cmd := exec.Command(cli, "-h", host, "-p", port)
			cmd.Stdin = strings.NewReader("PING\nSET k 1\nINCR k\nCOMMAND COUNT\nCOMMAND GETKEYS SET a b\n")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("redis-cli: %v\n%s", err, out)
			}
			if want := "PONG\nOK\n2\n240\na\n"; string(out) != want {
				t.Fatalf("redis-cli printed %q, want %q", out, want)
			}
		})
		t.Run(tg.name+"/interactive", func(t *testing.T) {
			out := interactive(t, cli, host, port, "SET k v", "GET k", "COMMAND COUNT", "HELP SET")
			for _, want := range []string{"OK", `"v"`, "(integer) 240", "key value [NX|XX] [GET]", "Set the string value of a key"} {
				if !strings.Contains(out, want) {
					t.Errorf("interactive redis-cli: no %q in\n%s", want, out)
				}
			}
			seen[tg.name] = strings.ReplaceAll(out, tg.addr, "ADDR")
		})
	}
	if seen["redis"] != seen["engine"] {
		t.Errorf("interactive redis-cli printed\n%s\nagainst the engine, and against redis-server\n%s", seen["engine"], seen["redis"])
	}
}

// interactive runs redis-cli on a pseudo-terminal, types lines, then quit,
// and returns what it printed. Bounded: 10 s, then the process is killed.
func interactive(t *testing.T, cli, host, port string, lines ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(cli, "-h", host, "-p", port)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.Env = append(os.Environ(), "TERM=dumb", "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	read := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				close(read)
				return
			}
		}
	}()
	// Each line is typed once redis-cli shows its prompt again: typed
	// earlier, on a loaded machine, the terminal echoes it before the
	// prompt, and the two servers' transcripts differ by that alone.
	prompts := func() int {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(out.String(), "> ")
	}
	for i, l := range append(lines, "quit") {
		for deadline := time.Now().Add(5 * time.Second); prompts() <= i && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := master.Write([]byte(l + "\r")); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("redis-cli: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Error("redis-cli did not quit within 10 s")
	}
	master.Close()
	<-read
	return out.String()
}

func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}
