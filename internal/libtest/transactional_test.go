package libtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"

	"github.com/scriptgen/scriptgen/internal/luatest"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// transfer moves an amount between two hashes and fails after its first
// write when the source runs short: with `flags: transactional` the credit
// is rolled back, without it the credit stays, as Redis leaves it.
const transfer = `--! name: %s
--! doc: Moves amount from one balance to another.
--! key: from
--! key: to
--! arg: amount int
--! returns: int
%s
redis.call('HINCRBY', KEYS[2], 'balance', ARGV[1])
local left = redis.call('HINCRBY', KEYS[1], 'balance', -tonumber(ARGV[1]))
if left < 0 then
  error({err = 'ERR insufficient funds'})
end
return left
`

const transferTest = `
local tx, plain = script('transfer'), script('transfer_plain')
function test_commit()
  redis.call('HSET', 'a', 'balance', 5)
  t.eq(tx.call({'a', 'b'}, {3}), 2)
  t.eq(redis.call('HGET', 'b', 'balance'), '3')
end
function test_rollback()
  redis.call('HSET', 'a', 'balance', 5)
  redis.call('HSET', 'b', 'balance', 1, 'owner', 'bob')
  redis.call('PEXPIREAT', 'b', 4102444800000)
  t.err(function() tx.call({'a', 'b'}, {10}) end, 'insufficient funds')
  t.eq(redis.call('HGETALL', 'a'), {'balance', '5'})
  t.eq(redis.call('HGET', 'b', 'balance'), '1')
  t.eq(redis.call('PEXPIRETIME', 'b'), 4102444800000)
end
function test_rollback_of_a_new_key()
  redis.call('HSET', 'a', 'balance', 5)
  t.err(function() tx.call({'a', 'b'}, {10}) end, 'insufficient funds')
  t.eq(redis.call('EXISTS', 'b'), 0)
end
function test_plain_keeps_half()
  redis.call('HSET', 'a', 'balance', 5)
  t.err(function() plain.call({'a', 'b'}, {10}) end, 'insufficient funds')
  t.eq(redis.call('HGET', 'b', 'balance'), '10')
  t.eq(redis.call('HGET', 'a', 'balance'), '-5')
end
`

// targets give luatest.Options.RedisURL for the embedded engine and for a
// redis-server of the test's own.
var targets = map[string]func(t *testing.T) string{
	"engine": func(*testing.T) string { return "" },
	"redis":  func(t *testing.T) string { return redistest.Start(t).URL() },
}

// writeTransfer writes the transfer scripts, with and without the flag,
// and their tests to a new directory.
func writeTransfer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"transfer.lua":       fmt.Sprintf(transfer, "transfer", "--! flags: transactional"),
		"transfer_plain.lua": fmt.Sprintf(transfer, "transfer_plain", ""),
		"transfer_test.lua":  transferTest,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTransactionalLuaTests runs a transactional script's Lua tests with
// scriptgen test's runner on the embedded engine and on a redis-server:
// the runner sends gen's bundled text (the prelude-wrapped script), which
// the engine runs with its own journal and Redis with the prelude's Lua,
// and both must pass the same tests.
func TestTransactionalLuaTests(t *testing.T) {
	dir := writeTransfer(t)
	for name, url := range targets {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := luatest.Run([]string{filepath.Join(dir, "transfer_test.lua")}, luatest.Options{RedisURL: url(t), Out: &out, Verbose: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed > 0 || res.Passed != 4 {
				t.Errorf("passed %d, failed %d:\n%s", res.Passed, res.Failed, out.String())
			}
		})
	}
}

// TestTransactionalOption: with Options.Transactional the plain transfer is
// wrapped too, so its half-done write is rolled back and the test that
// expects Redis's own behaviour fails.
func TestTransactionalOption(t *testing.T) {
	dir := writeTransfer(t)
	var out bytes.Buffer
	res, err := luatest.Run([]string{filepath.Join(dir, "transfer_test.lua")}, luatest.Options{Transactional: true, Out: &out, Verbose: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || res.Passed != 3 || !bytes.Contains(out.Bytes(), []byte("--- FAIL: test_plain_keeps_half")) {
		t.Errorf("passed %d, failed %d, want only test_plain_keeps_half to fail:\n%s", res.Passed, res.Failed, out.String())
	}
}

// TestLibraryWrapped runs the library's own Lua tests with every limiter
// wrapped in the rollback prelude, on the engine (which hosts the prelude
// with its journal) and on a redis-server (which runs the prelude's Lua):
// the prelude must change nothing of a run that does not fail.
func TestLibraryWrapped(t *testing.T) {
	files, err := script.Files([]string{filepath.Join("..", "..", "lua", "ratelimit")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 9 {
		t.Fatalf("found %d test files in lua/ratelimit, want the library's 9 or more", len(files))
	}
	for name, url := range targets {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			res, err := luatest.Run(files, luatest.Options{RedisURL: url(t), Transactional: true, Out: &out})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed > 0 || res.Passed == 0 {
				t.Errorf("passed %d, failed %d:\n%s", res.Passed, res.Failed, out.String())
			}
		})
	}
}
