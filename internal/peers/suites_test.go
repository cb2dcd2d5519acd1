package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// goSuite is a package of another project's tests, run from its module as
// the module proxy serves it.
type goSuite struct {
	name   string
	module string // path@version, pinned
	pkg    string // relative to the module's root
	// args and env point the tests at addr, each the way its suite reads
	// its server: a test flag, an environment variable, or a literal that
	// patch rewrites to the environment variable peersAddrEnv.
	args  func(addr string) []string
	env   func(addr string) []string
	patch func(t *testing.T, dir string)
}

// goSuiteTimeout bounds one suite on one target (asynq's top-level tests,
// the longest, take about a minute on Redis).
const goSuiteTimeout = 8 * time.Minute

// peersAddrEnv carries the target's address into suites whose tests
// hard-code localhost:6379 (patchAddr).
const peersAddrEnv = "PEERS_REDIS_ADDR"

func asynqArgs(addr string) []string { return []string{"-redis_addr=" + addr} }

var goSuites = []goSuite{
	// asynq's tests take -redis_addr (internal/rdb/rdb_test.go, asynq_test.go).
	{name: "asynq ./internal/rdb", module: "github.com/hibiken/asynq@v0.26.0", pkg: "./internal/rdb", args: asynqArgs},
	{name: "asynq .", module: "github.com/hibiken/asynq@v0.26.0", pkg: ".", args: asynqArgs},
	// redis_rate's tests dial ":6379" and "localhost:6379" (rate_test.go,
	// example_test.go).
	{name: "redis_rate v10", module: "github.com/go-redis/redis_rate/v10@v10.0.1", pkg: ".",
		env: func(addr string) []string { return []string{peersAddrEnv + "=" + addr} }, patch: patchAddr("redis_rate_test")},
	// ulule/limiter's store tests read REDIS_URI (drivers/store/redis/store_test.go).
	{name: "ulule/limiter v3 redis store", module: "github.com/ulule/limiter/v3@v3.11.2", pkg: "./drivers/store/redis",
		env: func(addr string) []string { return []string{"REDIS_URI=redis://" + addr + "/0"} }},
}

// goEnv keeps another module's build to itself: its own go.mod and go.sum,
// no workspace, no toolchain switch.
func goEnv(extra ...string) []string {
	return append(os.Environ(), append([]string{"GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod -buildvcs=false"}, extra...)...)
}

// modules holds one writable copy of each downloaded module a run.
type modules struct {
	mu   sync.Mutex
	root string
	dirs map[string]string
}

// dir downloads module (path@version) through the module proxy and returns
// a writable copy of it: the module cache is read-only, and go test writes
// go.sum entries and the patches need to edit.
func (m *modules) dir(t *testing.T, module string, patch func(*testing.T, string)) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.dirs[module]; ok {
		return d
	}
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = m.root
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", module, err, out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", module, err, info.Error)
	}
	d := filepath.Join(m.root, strings.NewReplacer("/", "_", "@", "_").Replace(module))
	if err := os.CopyFS(d, os.DirFS(info.Dir)); err != nil {
		t.Fatalf("copying %s: %v", info.Dir, err)
	}
	if patch != nil {
		patch(t, d)
	}
	m.dirs[module] = d
	return d
}

// run runs the suite's tests against addr with go test -json: -count=1, as
// a cached result would say nothing about this server.
func (s goSuite) run(dir, addr string, flags ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), goSuiteTimeout+time.Minute)
	defer cancel()
	args := append([]string{"test", "-json", "-count=1", "-timeout", goSuiteTimeout.String()}, flags...)
	args = append(args, s.pkg)
	if s.args != nil {
		args = append(append(args, "-args"), s.args(addr)...)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var extra []string
	if s.env != nil {
		extra = s.env(addr)
	}
	cmd.Env = goEnv(extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := parseGoTest(&stdout)
	if err != nil && len(res) == res.passed() {
		res["(package)"] = outcome{first: lastLines(strings.Split(stderr.String(), "\n"), 3)}
	}
	return res
}

// addrLiteral is a Go string literal of a Redis address on port 6379.
var addrLiteral = regexp.MustCompile(`"(localhost)?:6379"`)

// patchAddr rewrites every address literal of the module's root test files
// to a call that reads peersAddrEnv, in a file of the given test package.
func patchAddr(pkg string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		var n int
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n += len(addrLiteral.FindAll(b, -1))
			b = addrLiteral.ReplaceAll(b, []byte("peersAddr()"))
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no address literal to point at the target: has the suite changed?", dir)
		}
		src := fmt.Sprintf("package %s\n\nimport \"os\"\n\nfunc peersAddr() string { return os.Getenv(%q) }\n", pkg, peersAddrEnv)
		if err := os.WriteFile(filepath.Join(dir, "peers_addr_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// retry runs once more the tests of res that failed where they pass on
// Redis (ref), and counts those that pass this time as passed, returning
// their names. asynq's tests sleep and then look, so on a busy machine one
// can miss its moment on any server; a difference that is real fails twice.
func (s goSuite) retry(dir, addr string, ref, res result) []string {
	missed := regressions(ref, res)
	if len(missed) == 0 {
		return nil
	}
	tops := map[string]bool{}
	var pattern []string
	for _, name := range missed {
		top, _, _ := strings.Cut(name, "/")
		if !tops[top] {
			tops[top] = true
			pattern = append(pattern, regexp.QuoteMeta(top))
		}
	}
	again := s.run(dir, addr, "-run", "^("+strings.Join(pattern, "|")+")$")
	var passed []string
	for _, name := range missed {
		if again[name].pass {
			res[name] = outcome{pass: true}
			passed = append(passed, name)
		}
	}
	return passed
}
