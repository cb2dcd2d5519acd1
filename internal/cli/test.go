package cli

import (
	"fmt"
	"regexp"

	"github.com/scriptgen/scriptgen/internal/luatest"
	"github.com/scriptgen/scriptgen/internal/script"
)

func init() {
	register(&command{name: "test", summary: "run *_test.lua script tests", usage: `usage: scriptgen test [-v] [-json] [-run REGEXP] [-redis URL] [-transactional] [PATH...]

Test runs the *_test.lua files under PATH (files or directories, walked
recursively; default ".") in the style of go test: one line per file, the
failures in full, -v for every test. Each test_* function runs against a
fresh keyspace.

Scripts run in the embedded engine (miniredis with a Redis-7-faithful Lua
sandbox and a virtual clock), or with -redis on a real server, which is how a
test proves the sandbox faithful. With -redis every test begins with FLUSHDB
and SCRIPT FLUSH: point it at a scratch server. -transactional wraps every
script in the rollback prelude, as if its header said transactional: a
library's own tests then show that the prelude changes nothing of a run that
does not fail.

In a test file:

	local gate = script('gate')      -- a script of this directory, by name
	t.eq(gate.call({'k'}, {1000}), {1, 0})
	t.eq(gate.pcall({'k'}, {'x'}), {err = 'ERR ...'})
	redis.call('SET', 'k', 'v')      -- any command on the target
	clock.advance(500)               -- virtual ms; real sleep with -redis
	t.ne, t.ok, t.err(fn, 'substring'), t.fail, t.log

Exit status is 1 when a test fails, 2 when the files cannot be read, a test
file or a script it tests has a syntax error, or the server cannot be
reached.
`, run: runTest})
}

func runTest(e *env, args []string) int {
	fs := e.flags(lookup("test"))
	verbose := fs.Bool("v", false, "print every test, passing or not, and t.log output")
	run := fs.String("run", "", "run only the tests whose name matches `regexp`")
	asJSON := fs.Bool("json", false, "print go test -json's event stream (for editors and CI)")
	redisURL := fs.String("redis", "", "run on the real Redis at `URL` (redis://[user:pass@]host:port[/db]) instead of the embedded engine")
	tx := fs.Bool("transactional", false, "run every script wrapped in the rollback prelude, as if flagged transactional")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	opts := luatest.Options{Verbose: *verbose, JSON: *asJSON, RedisURL: *redisURL, Transactional: *tx, Out: e.stdout}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			fmt.Fprintf(e.stderr, "scriptgen test: -run: %v\n", err)
			return ExitUsage
		}
		opts.Run = re
	}
	files, err := script.Files(paths, true)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen test:", err)
		return ExitUsage
	}
	if len(files) == 0 {
		fmt.Fprintln(e.stderr, "scriptgen test: no *_test.lua files in", paths)
		return ExitUsage
	}
	res, err := luatest.Run(files, opts)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen test:", err)
		return ExitUsage
	}
	switch {
	case res.Syntax > 0:
		return ExitUsage
	case res.Failed > 0:
		return ExitFindings
	}
	return ExitOK
}
