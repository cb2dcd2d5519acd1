package annotate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/lint"
)

func annotated(t *testing.T, path, src string) string {
	t.Helper()
	s, err := script.Parse(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return string(Source(s))
}

func TestSource(t *testing.T) {
	for _, tc := range []struct {
		name, path, src, want string
	}{
		{"fresh", "rateLimit-2.lua",
			"local bucket = KEYS[1]\nlocal now = ARGV[1]\nif now == '' then now = redis.call('TIME')[1] end\nlocal cost = tonumber(ARGV[2])\nredis.call('INCRBY', bucket, cost)\nreturn 1\n",
			"--! name: rate_limit\n--! key: bucket\n--! key: key2  not read by the script: its file name promises the caller passes it\n--! arg: now string = \"\"\n--! arg: cost int\n--! returns: int\n--! lint: warning keys-declared\n"},
		{"read only", "peek.lua",
			"local rcall = redis.call\nif rcall('EXISTS', KEYS[1]) == 0 then return 'none' end\nreturn 'some'\n",
			"--! key: key1\n--! returns: string\n--! flags: no-writes\n"},
		{"writes through a variable", "w.lua",
			"local cmd = ARGV[1]\nreturn redis.call(cmd, KEYS[1])\n",
			"--! key: key1\n--! arg: cmd string\n"},
		{"completes a header", "c.lua",
			"--! key: counter   the hash\nredis.call('HINCRBY', KEYS[1], 'n', 1)\nreturn redis.call('HGET', KEYS[2], ARGV[1])\n",
			"--! key: key2\n--! arg: arg1 string\n"},
		// BullMQ's addLog, flagged by hand first: ARGV[1] is passed and
		// never read, and the completed header must still lint clean.
		{"completes a flagged header with an unread arg", "addLog-2.lua",
			"--! flags: transactional\nif redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('RPUSH', KEYS[2], ARGV[2]) end\nreturn -1\n",
			"--! key: key1\n--! key: key2\n--! arg: arg1 string  not read by the script\n--! arg: arg2 string\n--! lint: warning args\n"},
		{"header complete", "done.lua",
			"--! key: k\n--! returns: any\n--! flags: allow-stale\nreturn redis.call('GET', KEYS[1])\n",
			""},
		{"shebang", "s.lua",
			"#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])\n",
			"--! key: key1\n"},
		{"functions library", "lib.lua",
			"#!lua name=lib\nredis.register_function('get', function(keys) return redis.call('GET', keys[1]) end)\n",
			""},
		{"variadic", "del.lua",
			"local n = 0\nfor i = 1, #KEYS do n = n + redis.call('DEL', KEYS[i]) end\nreturn n\n",
			"--! key: keys...\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := annotated(t, tc.path, tc.src)
			body := tc.src
			if strings.HasPrefix(body, "#!") {
				nl := strings.IndexByte(body, '\n') + 1
				if want := body[:nl] + tc.want + body[nl:]; got != want {
					t.Fatalf("got\n%s\nwant\n%s", got, want)
				}
			} else {
				h := strings.Count(tc.src, "--!")
				lines := strings.SplitAfter(tc.src, "\n")
				want := strings.Join(lines[:h], "") + tc.want + strings.Join(lines[h:], "")
				if got != want {
					t.Fatalf("got\n%s\nwant\n%s", got, want)
				}
			}
			if again := annotated(t, tc.path, got); again != got {
				t.Errorf("not idempotent: a second run gives\n%s", again)
			}
			// The header lints clean wherever the body does.
			before := errors(lint.Source(lint.Options{}, tc.path, []byte(tc.src)))
			after := errors(lint.Source(lint.Options{}, tc.path, []byte(got)))
			if after > before {
				t.Errorf("annotated: %d lint errors, before %d:\n%v", after, before, lint.Source(lint.Options{}, tc.path, []byte(got)))
			}
		})
	}
}

func errors(fs []lint.Finding) int {
	n := 0
	for _, f := range fs {
		if f.Severity == lint.Error {
			n++
		}
	}
	return n
}

// A helper that writes through the script's alias keeps no-writes off.
func TestWritesThroughInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("includes/mark.lua", "local function mark(k) rcall('ZADD', k, 0, 'x') end\n")
	write("add-1.lua", "local rcall = redis.call\n--- @include \"includes/mark\"\nmark(KEYS[1])\nreturn 1\n")
	files, errs, err := Paths(dir)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if len(files) != 1 {
		t.Fatalf("%d files annotated; want the script alone, not its include", len(files))
	}
	if got := string(files[0].New); strings.Contains(got, "no-writes") || !strings.HasPrefix(got, "--! name: add\n--! key: key1\n--! returns: int\n") {
		t.Errorf("got\n%s", got)
	}
}
