package luatest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/internal/script"
)

// The library's own Lua tests must pass on both targets: that is what makes
// the embedded engine trustworthy for them.
func TestLibraryOnEngineAndRedis(t *testing.T) {
	files, err := script.Files([]string{"../../lua"}, true)
	if err != nil || len(files) == 0 {
		t.Fatalf("no library tests: %v", err)
	}
	targets := map[string]func(t *testing.T) string{
		"engine": func(*testing.T) string { return "" },
		"redis":  func(t *testing.T) string { return redistest.Start(t).URL() },
	}
	for name, url := range targets {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := Run(files, Options{RedisURL: url(t), Out: &out, Verbose: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed > 0 || res.Passed == 0 {
				t.Errorf("passed %d, failed %d:\n%s", res.Passed, res.Failed, out.String())
			}
		})
	}
}

// A test suite that must fail, on both targets, in the same way.
const failing = `
local c = script('counter')
function test_pass() t.eq(c.call({'k'}), 1) end
function test_eq() t.eq({1, {a = 'x'}}, {1, {a = 'y'}}, 'nested') end
function test_err_missing() t.err(function() end, 'boom') end
function test_err_wrong() t.err(function() error('ERR other') end, 'boom') end
function test_raise() c.call({'k'}, {'extra'}); redis.call('NOSUCHCOMMAND') end
function test_status() t.eq(redis.call('SET', 'k', 'v'), {ok = 'OK'}) end
function test_pcall() redis.call('SET', 'k', 'v'); t.eq(redis.pcall('INCR', 'k'), {err = 'ERR value is not an integer or out of range'}) end
`

func TestFailuresAreReported(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "counter.lua", "--! key: k\n--! returns: int\nreturn redis.call('INCR', KEYS[1])\n")
	write(t, dir, "counter_test.lua", failing)
	for name, url := range map[string]func(t *testing.T) string{
		"engine": func(*testing.T) string { return "" },
		"redis":  func(t *testing.T) string { return redistest.Start(t).URL() },
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := Run([]string{filepath.Join(dir, "counter_test.lua")}, Options{RedisURL: url(t), Out: &out})
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != 3 || res.Failed != 4 {
				t.Errorf("passed %d failed %d, want 3 and 4:\n%s", res.Passed, res.Failed, out.String())
			}
			for _, want := range []string{
				`counter_test.lua:4: nested: got  {1, {a="x"}}`,
				`want {1, {a="y"}}`,
				"counter_test.lua:7: ERR unknown command",
				"NOSUCHCOMMAND",
				`counter_test.lua:5: got no error, want one containing "boom"`,
				`counter_test.lua:6: got error "counter_test.lua:6: ERR other", want one containing "boom"`,
				"unknown command",
				"--- FAIL: test_raise",
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			if strings.Contains(out.String(), "--- FAIL: test_pass") {
				t.Errorf("test_pass failed:\n%s", out.String())
			}
		})
	}
}

func TestRunFilter(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "counter.lua", "--! key: k\nreturn redis.call('INCR', KEYS[1])\n")
	write(t, dir, "counter_test.lua", failing)
	var out bytes.Buffer
	res, err := Run([]string{filepath.Join(dir, "counter_test.lua")}, Options{Run: regexp.MustCompile("^test_pass$"), Out: &out})
	if err != nil || res.Passed != 1 || res.Failed != 0 || res.Skipped != 6 {
		t.Errorf("res %+v err %v:\n%s", res, err, out.String())
	}
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// -json speaks go test -json's event stream.
func TestJSONEvents(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "counter.lua", "--! key: k\n--! returns: int\nreturn redis.call('INCR', KEYS[1])\n")
	write(t, dir, "counter_test.lua", failing)
	var out bytes.Buffer
	path := filepath.Join(dir, "counter_test.lua")
	if _, err := Run([]string{path}, Options{Out: &out, JSON: true, Run: regexp.MustCompile("^test_(pass|eq)$")}); err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if e.Package != path {
			t.Errorf("package %q, want %q", e.Package, path)
		}
		if e.Action != "output" {
			actions = append(actions, e.Action+":"+e.Test)
		}
		if e.Action == "output" && e.Test == "test_eq" && strings.Contains(e.Output, "nested: got") && !strings.HasSuffix(e.Output, "\n") {
			t.Errorf("output event not a whole line: %q", e.Output)
		}
	}
	want := "start: run:test_pass pass:test_pass run:test_eq fail:test_eq fail:"
	if got := strings.Join(actions, " "); got != want {
		t.Errorf("actions %q, want %q", got, want)
	}
}

// A transactional script rolls back on both targets: on Redis through the
// prelude the bundle ships, on the engine through its own journal, which
// the runner asks for as data (transactional.Journaled) while the script
// keeps the shipped text's SHA-1. Its twin without the flag keeps its write.
func TestTransactionalRollsBack(t *testing.T) {
	dir := t.TempDir()
	const body = "--! key: n\n--! key: log\n--! returns: int\n" +
		"redis.call('RPUSH', KEYS[2], 'x')\nreturn redis.call('INCR', KEYS[1])\n"
	write(t, dir, "all_or_nothing.lua", "--! flags: transactional\n"+body)
	write(t, dir, "keeps.lua", body)
	write(t, dir, "rollback_test.lua", `
local txn, plain = script('all_or_nothing'), script('keeps')
function test_rolls_back()
  redis.call('SET', 'n', 'not a number')
  t.err(function() txn.call({'n', 'log'}) end, 'not an integer')
  t.eq(redis.call('LLEN', 'log'), 0)
  t.eq(redis.call('SCRIPT', 'EXISTS', txn.sha), {1})
  t.eq(txn.call({'m', 'log'}), 1)
  t.eq(redis.call('LLEN', 'log'), 1)
end
function test_plain_keeps_its_write()
  redis.call('SET', 'n', 'not a number')
  t.err(function() plain.call({'n', 'log'}) end, 'not an integer')
  t.eq(redis.call('LLEN', 'log'), 1)
end
`)
	for name, url := range map[string]func(t *testing.T) string{
		"engine": func(*testing.T) string { return "" },
		"redis":  func(t *testing.T) string { return redistest.Start(t).URL() },
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := Run([]string{filepath.Join(dir, "rollback_test.lua")}, Options{RedisURL: url(t), Out: &out, Verbose: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Passed != 2 || res.Failed != 0 {
				t.Errorf("passed %d, failed %d:\n%s", res.Passed, res.Failed, out.String())
			}
		})
	}
}
