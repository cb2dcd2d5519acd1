package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// startAttempts bounds the retries after losing a port race to another process.
	startAttempts = 8
	// readyTimeout is generous because a 2-core machine running many test packages at once can
	// be slow to schedule a fresh server; a healthy server answers within milliseconds.
	readyTimeout = 10 * time.Second
	// stopTimeout is how long SIGTERM, and then SIGKILL, may take before Stop gives up.
	stopTimeout = 5 * time.Second
	// busOffset is Redis Cluster's default distance from the client port to the cluster bus port.
	busOffset = 10000

	confFile = "redis.conf"
	logFile  = "redis.log"
	// outFile catches what redis-server writes before its logfile is open, notably
	// "FATAL CONFIG FILE ERROR" for a bad extra directive.
	outFile = "stdout.log"
)

// Server is a running redis-server owned by one test.
type Server struct {
	Addr string // "127.0.0.1:PORT"
	Port int
	PID  int
	Dir  string // working directory: redis.conf, redis.log, and nodes.conf for cluster nodes

	cmd      *exec.Cmd
	done     chan struct{} // closed once the process has exited and been reaped
	stopOnce sync.Once
	stopErr  error
}

// errPortInUse marks a start that lost the race for its port; Start retries those.
var errPortInUse = errors.New("port already in use")

// pickPort is a variable so that a test can hand Start a port that is already taken.
var pickPort = freePort

// Start starts a real redis-server on a free 127.0.0.1 port in a t.TempDir(), waits until it
// answers (INFO rather than PING, so that the reply's process_id proves it is this server and not
// one that won the port race), and registers a Cleanup that stops it by PID (SIGTERM, then SIGKILL after a bounded
// wait) and reaps it. extra are config directives appended to the generated redis.conf, e.g.
// "maxmemory 10mb"; being last, they override the defaults.
func Start(tb testing.TB, extra ...string) *Server {
	tb.Helper()
	bin := Binary(tb, "redis-server")
	s, err := start(bin, tb.TempDir(), extra)
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("redistest: %v", err)
		}
	})
	return s
}

// URL returns the server's address as a redis:// URL for database 0.
func (s *Server) URL() string {
	return fmt.Sprintf("redis://%s/0", s.Addr)
}

// Client returns a go-redis v9 client for the server, closed at Cleanup (before the server stops,
// since cleanups run last-registered first).
func (s *Server) Client(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{
		Addr: s.Addr,
		// CLIENT SETINFO only exists from Redis 7.2; on 7.0 it would fail on every connect.
		DisableIdentity: true,
	})
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Stop stops the server and reaps it: SIGTERM, then SIGKILL if it is still running after a bounded
// wait. It is idempotent; Start's Cleanup calls it too. Tests use it to observe a server going away.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Server) stop() error {
	if s.exited() {
		return nil
	}
	// os.Process signals through a pidfd on Linux, so a recycled PID can never be hit.
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(stopTimeout):
	}
	_ = s.cmd.Process.Kill()
	select {
	case <-s.done:
		return nil
	case <-time.After(stopTimeout):
		return fmt.Errorf("redis-server pid %d (%s) still running %v after SIGKILL", s.PID, s.Addr, stopTimeout)
	}
}

func (s *Server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Binary returns the path of a Redis executable such as "redis-server" or "redis-cli". When it is
// missing the test fails under CI=true and is skipped elsewhere; see the package documentation.
func Binary(tb testing.TB, name string) string {
	tb.Helper()
	if p, err := lookPath(name); err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found in $PATH or %s; install it with: apt-get install redis-server redis-tools",
		name, strings.Join(fallbackDirs, ", "))
	if inCI() {
		tb.Fatalf("redistest: CI=true requires a real Redis: %s", msg)
	}
	tb.Skipf("redistest: %s", msg)
	return ""
}

// fallbackDirs covers go test run from environments with a trimmed $PATH (IDEs, sudo).
var fallbackDirs = []string{"/usr/bin", "/usr/local/bin", "/usr/sbin"}

func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil || strings.ContainsRune(name, filepath.Separator) {
		return p, err
	}
	for _, dir := range fallbackDirs {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", err
}

func inCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

func start(bin, dir string, extra []string) (*Server, error) {
	cluster := isClusterNode(extra)
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		var port int
		if port, err = pickPort(cluster); err != nil {
			return nil, err
		}
		var s *Server
		if s, err = launch(bin, dir, port, extra); err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortInUse) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("gave up after %d attempts: %w", startAttempts, err)
}

// isClusterNode reports whether the last cluster-enabled directive in extra turns cluster mode on,
// which means the bus port must be free as well.
func isClusterNode(extra []string) bool {
	on := false
	for _, d := range extra {
		f := strings.Fields(d)
		if len(f) == 2 && strings.EqualFold(f[0], "cluster-enabled") {
			on = strings.EqualFold(strings.Trim(f[1], `"'`), "yes")
		}
	}
	return on
}

// freePort asks the kernel for a free port and releases it; redis-server binds it a moment later,
// and start retries when another process got there first.
func freePort(withBus bool) (int, error) {
	const tries = 100
	for range tries {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("finding a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if !withBus {
			l.Close()
			return port, nil
		}
		if port+busOffset > 65535 {
			l.Close()
			continue
		}
		bus, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+busOffset)))
		l.Close()
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no free port p with p+%d also free in %d tries", busOffset, tries)
}

func config(port int, extra []string) string {
	var b strings.Builder
	// Paths are relative to the working directory so that no quoting of the temp path is needed.
	fmt.Fprintf(&b, `bind 127.0.0.1
port %d
protected-mode yes
daemonize no
dir .
logfile %s
loglevel notice
save ""
appendonly no
`, port, logFile)
	for _, d := range extra {
		b.WriteString(d)
		b.WriteByte('\n')
	}
	return b.String()
}

func launch(bin, dir string, port int, extra []string) (*Server, error) {
	// A previous attempt's files would mislead both the failure message and a cluster node.
	for _, f := range []string{logFile, outFile, "nodes.conf"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, confFile), []byte(config(port, extra)), 0o644); err != nil {
		return nil, err
	}
	out, err := os.Create(filepath.Join(dir, outFile))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, confFile)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := spawn(cmd); err != nil {
		out.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	s := &Server{
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Port: port,
		PID:  cmd.Process.Pid,
		Dir:  dir,
		cmd:  cmd,
		done: make(chan struct{}),
	}
	go func() {
		_ = cmd.Wait()
		out.Close()
		close(s.done)
	}()
	if err := s.waitReady(readyTimeout); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls until the server answers as itself. A reply from another process that won the
// port (its process_id differs) does not count: ours is then about to exit with EADDRINUSE.
func (s *Server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	delay := 2 * time.Millisecond
	var lastErr error
	for {
		if s.exited() {
			tail := s.logTail()
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("%s: %w", s.Addr, errPortInUse)
			}
			return fmt.Errorf("redis-server on %s exited during startup (%v); log tail:\n%s",
				s.Addr, s.cmd.ProcessState, tail)
		}
		pid, err := probePID(s.Addr, 250*time.Millisecond)
		switch {
		case err == nil && pid == s.PID:
			return nil
		case err == nil:
			lastErr = fmt.Errorf("%s is served by pid %d, not ours (%d)", s.Addr, pid, s.PID)
		default:
			lastErr = err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server pid %d not ready on %s within %v (last: %v); log tail:\n%s",
				s.PID, s.Addr, timeout, lastErr, s.logTail())
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// probePID sends INFO server over a raw connection and returns the answering process_id. It avoids
// go-redis here because its retries and pool would blur the bounded, one-shot probe.
func probePID(addr string, timeout time.Duration) (int, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return 0, err
	}
	if _, err := io.WriteString(c, "*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n"); err != nil {
		return 0, err
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
	if !strings.HasPrefix(head, "$") || err != nil || n < 0 || n > 1<<20 {
		return 0, fmt.Errorf("unexpected INFO reply %q", strings.TrimSpace(head))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(body), "\r\n") {
		if v, ok := strings.CutPrefix(line, "process_id:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO server has no process_id")
}

// logTail returns the last lines of what the server wrote, for failure messages.
func (s *Server) logTail() string {
	const maxLines = 25
	var lines []string
	for _, f := range []string{outFile, logFile} {
		data, err := os.ReadFile(filepath.Join(s.Dir, f))
		if err != nil {
			continue
		}
		for l := range strings.Lines(string(data)) {
			if l = strings.TrimRight(l, "\r\n"); l != "" {
				lines = append(lines, f+": "+l)
			}
		}
	}
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	return strings.Join(lines, "\n")
}
