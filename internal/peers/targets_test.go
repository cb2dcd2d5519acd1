package peers

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// target is a server the suites run against.
type target struct {
	name string // the table's column: redis, serve, miniredis
	addr string // 127.0.0.1:PORT
}

const (
	targetRedis     = "redis-server 7.0.15"
	targetServe     = "scriptgen serve"
	targetMiniredis = "miniredis v2.40.0"
)

// startTimeout bounds a build plus a server's start on a busy machine.
const startTimeout = 5 * time.Minute

func startRedis(t *testing.T) target {
	return target{name: targetRedis, addr: redistest.Start(t).Addr}
}

// startServe builds the CLI from this tree, as a user gets it with go
// install, and runs `scriptgen serve` on a free loopback port.
func startServe(t *testing.T) target {
	bin := filepath.Join(t.TempDir(), "scriptgen")
	goBuild(t, "../..", nil, bin, "./cmd/scriptgen")
	return target{name: targetServe, addr: startServer(t, bin, "scriptgen serve: listening on ", "serve", "-addr", "127.0.0.1:0")}
}

// startMiniredis builds testdata/miniredis, a module of its own that
// requires upstream miniredis from the module proxy.
func startMiniredis(t *testing.T) target {
	bin := filepath.Join(t.TempDir(), "miniredis")
	goBuild(t, "testdata/miniredis", []string{"GOWORK=off", "GOFLAGS=-mod=readonly"}, bin, ".")
	return target{name: targetMiniredis, addr: startServer(t, bin, "listening on ", "-addr", "127.0.0.1:0")}
}

func goBuild(t *testing.T, dir string, env []string, out, pkg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s in %s: %v\n%s", pkg, dir, err, b)
	}
}

// startServer runs bin until the test ends and returns the address it
// prints after ready (a line starting with ready). It is stopped by its
// PID: SIGTERM, then SIGKILL.
func startServer(t *testing.T, bin, ready string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), ready); ok {
				addrs <- strings.TrimSpace(a)
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	select {
	case a := <-addrs:
		return a
	case <-done:
		t.Fatalf("%s exited before it was ready: %s", bin, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say %q within 30s", bin, ready)
	}
	return ""
}
