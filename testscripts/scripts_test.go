package testscripts

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/scriptgen/scriptgen/internal/cli"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

var update = flag.Bool("update", false, "rewrite the txtar files' expected output")

func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"scriptgen": func() int { return cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) },
	}))
}

func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// Scenarios marked [redis] need a real server; without one (and outside
	// CI, where redistest fails instead) they are skipped, the rest still run.
	var url string
	if _, err := exec.LookPath("redis-server"); err == nil || os.Getenv("CI") == "true" {
		url = redistest.Start(t).URL()
	}
	testscript.Run(t, testscript.Params{
		Dir:           ".",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("REPO", repo)
			e.Setenv("REDIS_URL", url)
			// Scenarios that build a consumer module use the go command
			// offline, from this machine's module and build caches.
			for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
				e.Setenv(k, goEnv(k))
			}
			e.Setenv("GOPROXY", "off")
			e.Setenv("GOSUMDB", "off")
			e.Setenv("GOTOOLCHAIN", "local")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "redis" {
				return url != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
