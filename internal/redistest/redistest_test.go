package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestStartSetGet(t *testing.T) {
	t.Parallel()
	s := Start(t)
	ctx := context.Background()
	c := s.Client(t)
	if err := c.Set(ctx, "greeting", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, "greeting").Result()
	if err != nil || got != "hello" {
		t.Fatalf("GET greeting = %q, %v; want hello", got, err)
	}

	opt, err := redis.ParseURL(s.URL())
	if err != nil {
		t.Fatalf("ParseURL(%q): %v", s.URL(), err)
	}
	if opt.Addr != s.Addr || opt.DB != 0 {
		t.Errorf("URL %q parses to addr %q db %d; want %q db 0", s.URL(), opt.Addr, opt.DB, s.Addr)
	}
	if want := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)); s.Addr != want {
		t.Errorf("Addr = %q; want %q", s.Addr, want)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, confFile)); err != nil {
		t.Errorf("config not in Dir: %v", err)
	}
}

func TestServerIsTheLiveProcess(t *testing.T) {
	t.Parallel()
	s := Start(t)
	info := infoServer(t, s.Client(t))
	if info["process_id"] != strconv.Itoa(s.PID) {
		t.Errorf("INFO process_id = %q; want PID %d", info["process_id"], s.PID)
	}
	if info["tcp_port"] != strconv.Itoa(s.Port) {
		t.Errorf("INFO tcp_port = %q; want %d", info["tcp_port"], s.Port)
	}
	if !strings.HasPrefix(info["redis_version"], "7.") {
		t.Errorf("redis_version = %q; the project targets Redis 7", info["redis_version"])
	}
	if runtime.GOOS == "linux" {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", s.PID))
		if err != nil || filepath.Base(exe) != "redis-server" && filepath.Base(exe) != "redis-check-rdb" {
			// Debian's redis-server is a symlink to redis-check-rdb; both names are the server.
			t.Errorf("/proc/%d/exe = %q, %v; want redis-server", s.PID, exe, err)
		}
	}
}

func TestExtraDirectivesApply(t *testing.T) {
	t.Parallel()
	s := Start(t, "maxmemory 10mb", "maxmemory-policy allkeys-lru")
	got, err := s.Client(t).ConfigGet(context.Background(), "maxmemory*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if got["maxmemory"] != "10485760" || got["maxmemory-policy"] != "allkeys-lru" {
		t.Errorf("CONFIG GET maxmemory* = %v; want maxmemory 10485760, policy allkeys-lru", got)
	}
}

func TestCleanupStopsAndReaps(t *testing.T) {
	t.Parallel()
	var s *Server
	t.Run("owner", func(t *testing.T) {
		s = Start(t)
		if !alive(s.PID) {
			t.Fatalf("pid %d not running right after Start", s.PID)
		}
	})
	if s == nil {
		t.Fatal("subtest did not start a server")
	}
	// Cleanup has run when t.Run returns, and Stop waits for the reap, so there is no delay to allow.
	if alive(s.PID) {
		t.Errorf("pid %d still running after the owning test's Cleanup", s.PID)
	}
	if pid, err := probePID(s.Addr, time.Second); err == nil && pid == s.PID {
		t.Errorf("%s still answers as pid %d after Cleanup", s.Addr, pid)
	}
}

func TestStopIsIdempotent(t *testing.T) {
	t.Parallel()
	s := Start(t)
	c := s.Client(t)
	for i := range 2 {
		if err := s.Stop(); err != nil {
			t.Fatalf("Stop #%d: %v", i+1, err)
		}
	}
	if alive(s.PID) {
		t.Errorf("pid %d running after Stop", s.PID)
	}
	if !s.cmd.ProcessState.Exited() || s.cmd.ProcessState.ExitCode() != 0 {
		// SIGTERM is a clean shutdown for redis-server; anything else means Stop had to SIGKILL.
		t.Errorf("redis-server exit state %v; want a clean exit on SIGTERM", s.cmd.ProcessState)
	}
	if err := c.Ping(context.Background()).Err(); err == nil {
		t.Error("PING succeeded after Stop")
	}
}

func TestParallelServersAreDistinct(t *testing.T) {
	t.Parallel()
	const n = 4
	var (
		mu      sync.Mutex
		servers []*Server
	)
	t.Run("group", func(t *testing.T) {
		for i := range n {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				s := Start(t)
				c := s.Client(t)
				ctx := context.Background()
				if err := c.Set(ctx, "owner", i, 0).Err(); err != nil {
					t.Fatal(err)
				}
				// The other servers run concurrently; a shared server would show another owner.
				time.Sleep(50 * time.Millisecond)
				if got, err := c.Get(ctx, "owner").Int(); err != nil || got != i {
					t.Errorf("owner = %d, %v; want %d", got, err, i)
				}
				mu.Lock()
				servers = append(servers, s)
				mu.Unlock()
			})
		}
	})
	if len(servers) != n {
		t.Fatalf("%d servers started; want %d", len(servers), n)
	}
	ports, pids := map[int]bool{}, map[int]bool{}
	for _, s := range servers {
		if ports[s.Port] || pids[s.PID] {
			t.Errorf("port %d / pid %d shared between parallel servers", s.Port, s.PID)
		}
		ports[s.Port], pids[s.PID] = true, true
	}
}

// TestRetriesWhenPortIsTaken hands Start a port (or cluster bus port) that is already bound, as
// when a parallel test package wins the race, and checks it moves to another port. It replaces
// pickPort, so it must not run in parallel.
func TestRetriesWhenPortIsTaken(t *testing.T) {
	for _, tc := range []struct {
		name    string
		extra   []string
		busPort bool // occupy port+10000 instead of the port
	}{
		{"port", nil, false},
		{"cluster bus port", []string{"cluster-enabled yes"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			taken, err := freePort(true)
			if err != nil {
				t.Fatal(err)
			}
			holdPort := taken
			if tc.busPort {
				holdPort += busOffset
			}
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(holdPort)))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()

			calls := 0
			pickPort = func(withBus bool) (int, error) {
				calls++
				if withBus != tc.busPort {
					t.Errorf("pickPort(withBus=%v); want %v", withBus, tc.busPort)
				}
				if calls == 1 {
					return taken, nil
				}
				return freePort(withBus)
			}
			defer func() { pickPort = freePort }()

			s := Start(t, tc.extra...)
			if s.Port == taken {
				t.Fatalf("server reports the taken port %d", taken)
			}
			if calls != 2 {
				t.Errorf("pickPort called %d times; want 2 (one lost race, one success)", calls)
			}
			if err := s.Client(t).Ping(context.Background()).Err(); err != nil {
				t.Errorf("PING after retry: %v", err)
			}
		})
	}
}

// BenchmarkStartStop reports the start (spawn until it answers) and stop (SIGTERM until reaped)
// halves separately, since every test that uses a server pays both.
func BenchmarkStartStop(b *testing.B) {
	var startNs, stopNs time.Duration
	for b.Loop() {
		t0 := time.Now()
		s := Start(b)
		t1 := time.Now()
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
		startNs += t1.Sub(t0)
		stopNs += time.Since(t1)
	}
	b.ReportMetric(float64(startNs.Milliseconds())/float64(b.N), "start-ms/op")
	b.ReportMetric(float64(stopNs.Milliseconds())/float64(b.N), "stop-ms/op")
}

func infoServer(t *testing.T, c *redis.Client) map[string]string {
	t.Helper()
	raw, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for line := range strings.Lines(raw) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			m[k] = v
		}
	}
	return m
}

// alive reports whether pid is a running process; a zombie (exited, not yet reaped by whoever
// inherited it) counts as gone. Off Linux it only checks existence.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if runtime.GOOS != "linux" {
			p, _ := os.FindProcess(pid)
			return p != nil && p.Signal(syscall.Signal(0)) == nil
		}
		return false
	}
	// Field 3, after the parenthesised command name, is the state.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitGone polls, bounded, until pid is no longer running.
func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// helperEnv selects a scenario in TestHelperProcess, which the tests below run as a child process
// so that a failing, panicking or killed test does not fail this one.
const helperEnv = "REDISTEST_HELPER"

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper for subprocess tests; runs only when " + helperEnv + " is set")
	}
	switch mode {
	case "missing-binary":
		Binary(t, "redistest-no-such-binary")
		t.Fatal("Binary returned for a missing binary")
	case "bad-config":
		Start(t, "no-such-directive yes")
		t.Fatal("Start returned with a bad directive")
	}
	s := Start(t)
	fmt.Printf("PID %d\n", s.PID)
	os.Stdout.Sync()
	switch mode {
	case "fatal":
		t.Fatal("failing on purpose")
	case "panic":
		panic("panicking on purpose")
	case "killed":
		time.Sleep(30 * time.Second) // the parent SIGKILLs us long before this
	}
}

// runHelper runs TestHelperProcess in mode and returns its output and exit error. If onPID is set,
// it is called with the server's PID as soon as the child reports it.
func runHelper(t *testing.T, mode string, env []string, onPID func(cmd *exec.Cmd, pid int)) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v", "-test.timeout=60s")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		if pid, ok := strings.CutPrefix(line, "PID "); ok && onPID != nil {
			n, err := strconv.Atoi(pid)
			if err != nil {
				t.Errorf("bad PID line %q", line)
				continue
			}
			onPID(cmd, n)
		}
	}
	return out.String(), cmd.Wait()
}

func TestNoServerOutlivesItsTest(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the killed-binary case relies on Linux's parent-death signal")
	}
	Binary(t, "redis-server")
	for _, mode := range []string{"fatal", "panic", "killed"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			pid := 0
			out, err := runHelper(t, mode, nil, func(cmd *exec.Cmd, p int) {
				pid = p
				if !alive(pid) {
					t.Errorf("server pid %d not running while the child test runs", pid)
				}
				if mode == "killed" {
					_ = cmd.Process.Kill()
				}
			})
			if err == nil {
				t.Fatalf("child test succeeded; want a failure. Output:\n%s", out)
			}
			if pid == 0 {
				t.Fatalf("child never reported a server PID. Output:\n%s", out)
			}
			if !waitGone(pid, 5*time.Second) {
				t.Errorf("redis-server pid %d still running 5s after its test ended (%s). Output:\n%s", pid, mode, out)
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
		})
	}
}

func TestStartFailureShowsLogTail(t *testing.T) {
	t.Parallel()
	Binary(t, "redis-server")
	out, err := runHelper(t, "bad-config", nil, nil)
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child: %v; want a failed test. Output:\n%s", err, out)
	}
	for _, want := range []string{"exited during startup", "Bad directive", "no-such-directive"} {
		if !strings.Contains(out, want) {
			t.Errorf("failure output lacks %q:\n%s", want, out)
		}
	}
}

func TestMissingBinaryCIRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{"true", true, "--- FAIL"},
		{"1", true, "--- FAIL"},
		{"", false, "--- SKIP"},
		{"false", false, "--- SKIP"},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Parallel()
			out, err := runHelper(t, "missing-binary", []string{"CI=" + tc.ci}, nil)
			if failed := err != nil; failed != tc.wantFail {
				t.Errorf("child failed = %v (%v); want %v", failed, err, tc.wantFail)
			}
			for _, want := range []string{tc.want, "redistest-no-such-binary", "apt-get install redis-server redis-tools"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
