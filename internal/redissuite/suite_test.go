package redissuite

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/cli"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// The units of issue 28, in its order. CI runs ciUnits (about 10 s a target
// each); `make redis-suite` runs all.
var (
	allUnits = []string{"scripting", "functions", "type/incr", "type/hash", "type/list", "type/zset",
		"type/stream", "keyspace", "expire", "info-command", "protocol"}
	ciUnits = []string{"scripting", "functions"}
)

var (
	unitsFlag   = flag.String("units", strings.Join(ciUnits, ","), `comma-separated units of Redis's suite to run, or "all"`)
	update      = flag.Bool("update", false, "rewrite "+knownFile+" from this run's gaps, keeping the reasons of tests still failing")
	unitTimeout = flag.Duration("unit-timeout", 5*time.Minute, "time one unit may take on one target before it counts as hung")
)

// serveEnv makes the test binary serve instead of testing: serve runs in a
// child process, so that its crash is observed, not shared.
const knownFile = "testdata/known-failures.txt"

const serveEnv = "SCRIPTGEN_REDISSUITE_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestRedisSuite(t *testing.T) {
	if testing.Short() {
		// Under `make test`'s -race -short line serve would run
		// race-instrumented; the Makefile runs this test in a line of its own.
		t.Skip("runs without -short: go test -run TestRedisSuite ./internal/redissuite")
	}
	units := ciUnits
	if *unitsFlag == "all" {
		units = allUnits
	} else if *unitsFlag != "" {
		units = strings.Split(*unitsFlag, ",")
	}
	src := fetchSuite(t)
	knownText, err := os.ReadFile(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	known, err := ParseKnown(string(knownText))
	if err != nil {
		t.Fatalf("testdata/known-failures.txt: %v", err)
	}

	var runs []Run
	fresh := map[string][]Gap{}
	var report strings.Builder
	for _, unit := range units {
		redis := runOnRedis(t, src, unit)
		serve := runOnServe(t, src, unit)
		gaps := Compare(redis, &serve)
		runs = append(runs, redis, serve)
		if serve.Died || serve.Hung {
			t.Errorf("%s: serve %s: %s", unit, map[bool]string{true: "hung", false: "crashed"}[serve.Hung], serve.Note)
		}
		if redis.Died || redis.Hung || len(redis.Results) == 0 {
			t.Errorf("%s: redis-server did not run the unit (%s): the suite, not serve, is broken", unit, redis.Note)
		}
		for _, g := range gaps {
			fmt.Fprintf(&report, "%s: %s [%s] %s\n", unit, g.Name, g.Status, g.Detail)
		}
		if _, listed := known[unit]; !listed && !slices.Contains(ciUnits, unit) {
			continue
		}
		if *update {
			fresh[unit] = gaps
			continue
		}
		regressions, fixed := known.Check(unit, gaps)
		for _, g := range regressions {
			t.Errorf("%s: %q passes on redis-server, not on serve (%s: %s), and is not in testdata/known-failures.txt", unit, g.Name, g.Status, g.Detail)
		}
		for _, name := range fixed {
			t.Errorf("%s: %q now passes on serve: remove it from testdata/known-failures.txt", unit, name)
		}
	}
	if *update {
		if err := os.WriteFile(knownFile, []byte(known.Update(fresh)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var table bytes.Buffer
	WriteTable(&table, runs)
	t.Logf("Redis's test suite (%s), --tags -slow --durable --clients 1, each unit on a fresh server:\n\n%s\nTests passing on redis-server and not on serve:\n%s", src, table.String(), report.String())
}

func runOnRedis(t *testing.T, src, unit string) Run {
	// As Redis's CI starts the server its external-server job tests.
	s := redistest.Start(t, "enable-debug-command yes", "enable-protected-configs yes", "enable-module-command yes")
	defer s.Stop()
	r := runtest(t, src, unit, s.Addr)
	r.Target = "redis-server"
	if !r.Hung {
		r.Died = !alive(s.Addr)
	}
	return r
}

func runOnServe(t *testing.T, src, unit string) Run {
	s := startServe(t)
	defer s.stop()
	r := runtest(t, src, unit, s.addr)
	r.Target = "serve"
	select {
	case <-s.done:
		r.Died = true
		r.Note = lastWords(s.stderr.String())
	default:
		switch {
		case r.Hung && alive(s.addr):
			// Slow, or one client stuck: not the whole server.
			r.Note += "; serve still answers PING"
		case r.Hung:
			r.Note += "; serve no longer answers PING"
		case !alive(s.addr):
			r.Died, r.Note = true, "alive but not answering PING"
		}
	}
	return r
}

// runtest runs one unit as Redis's CI job for external servers does, bounded
// by -unit-timeout; the whole process group goes when the time is up.
func runtest(t *testing.T, src, unit, addr string) Run {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), *unitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./runtest", "--host", host, "--port", port, "--single", "unit/"+unit,
		"--tags", "-slow", "--durable", "--clients", "1", "--timeout", fmt.Sprint(int(unitTimeout.Seconds())),
		"--baseport", fmt.Sprint(runtestBase(t)))
	cmd.Dir = src
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	// runtest leaves its client processes to its own cleanup; be sure.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	r := Run{Unit: unit, Results: Parse(out.String())}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.Hung, r.Note = true, fmt.Sprintf("runtest unfinished after %v", *unitTimeout)
	} else if err != nil && len(r.Results) == 0 {
		r.Note = fmt.Sprintf("runtest: %v: %s", err, lastWords(out.String()))
	}
	return r
}

// runtestBase is a --baseport for runtest. runtest listens for its
// clients on the first port from --baseport-32 that its check finds free,
// and the check binds all addresses, not the loopback it then listens on:
// a port another process holds on 127.0.0.1 (two runs at once both took
// 21079) passes the check and the listen fails. A port the kernel just
// gave out on 127.0.0.1 is free there; the check also wants port+10000.
func runtestBase(t *testing.T) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p+10000 < 65536 {
			return p + 32
		}
	}
	t.Fatal("no loopback port below 55536 free for runtest")
	return 0
}

// alive says whether a server still answers PING.
func alive(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// lastWords is the first line of a Go panic in a process's output, or its
// last line.
func lastWords(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return l
		}
	}
	return lines[len(lines)-1]
}

type served struct {
	addr   string
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan struct{}
}

// startServe runs `scriptgen serve` in a child process on a free loopback
// port and waits until it answers PING; a lost race for the port is retried.
func startServe(t *testing.T) *served {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		s := &served{addr: addr, stderr: &bytes.Buffer{}, done: make(chan struct{})}
		s.cmd = exec.Command(os.Args[0], "serve", "-addr", addr)
		s.cmd.Env = append(os.Environ(), serveEnv+"=1")
		s.cmd.Stderr = s.stderr
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = s.cmd.Wait(); close(s.done) }()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			select {
			case <-s.done:
			default:
				if alive(addr) {
					return s
				}
				continue
			}
			break
		}
		s.stop()
		t.Logf("serve on %s did not start: %s", addr, lastWords(s.stderr.String()+"\n(no output)"))
	}
	t.Fatal("serve did not start in 5 attempts")
	return nil
}

func (s *served) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}
