package testscripts

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
