package peers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The Node scenarios: each file of testdata/node is a suite, its parts
// the tests. They end by themselves at nodeDeadline and report a hang as
// a failed part; nodeKill is the harness's own bound if that fails too.
var nodeSuites = []struct{ name, file string }{
	{"bullmq 6.7.0 (ioredis 5.9.3)", "bullmq.js"},
	{"bull 4.16.5", "bull.js"},
}

const (
	nodeDeadline = 60 * time.Second
	nodeKill     = nodeDeadline + 30*time.Second
	npmTimeout   = 5 * time.Minute
)

// nodeDir installs the scenarios' packages into a temp dir with npm ci,
// exactly as package-lock.json pins them, and returns the dir. Without
// node or npm the part fails under CI=true and is skipped elsewhere, as
// redistest does for a missing redis-server.
func nodeDir(t *testing.T) string {
	t.Helper()
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
				t.Fatalf("CI=true requires %s for the Node scenarios: %v", bin, err)
			}
			t.Skipf("the Node scenarios need %s: %v", bin, err)
		}
	}
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json", "common.js", "bullmq.js", "bull.js"} {
		b, err := os.ReadFile(filepath.Join("testdata", "node", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), npmTimeout)
	defer cancel()
	// --ignore-scripts: msgpackr's optional native build is not needed
	// (it falls back to JavaScript) and no downloaded code runs at install.
	cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	return dir
}

func runNode(dir, file, addr string) result {
	ctx, cancel := context.WithTimeout(context.Background(), nodeKill)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "REDIS_ADDR="+addr, "PEERS_DEADLINE="+strconv.Itoa(int(nodeDeadline.Seconds())))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if ctx.Err() != nil {
		fmt.Fprintf(&stderr, "\nkilled: no end within %v (its own deadline is %v)", nodeKill, nodeDeadline)
	}
	return parseNode(&stdout, stderr.String())
}
