package transactional

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// TestLoadJournaled: a body loaded with Journaled is the script the
// bundler ships for it, run on the engine's journal: the SHA-1 of the
// shipped text, the replies, error texts and keyspace of EVAL with that
// text, in both modes; a failed run rolls back, where the same body loaded
// plain keeps its writes.
func TestLoadJournaled(t *testing.T) {
	body := "redis.call('HSET', KEYS[1], 'f', ARGV[1])\nredis.call('RPUSH', KEYS[2], ARGV[1])\n" +
		"if ARGV[2] == 'fail' then redis.call('INCR', KEYS[2]) end\nreturn redis.call('HLEN', KEYS[1])\n"
	for _, head := range []string{"", "#!lua\n", "#!lua flags=allow-stale\n"} {
		shipped := head + prelude.Ship(body)
		if shipped == head+body {
			t.Fatal("prelude.Ship leaves the body as it is: the test proves nothing")
		}
		e := newEngine(t)
		sha, err := e.Load(head+body, Journaled())
		if err != nil {
			t.Fatal(err)
		}
		if want := sha1Hex(shipped); sha != want {
			t.Fatalf("%q: sha %s, want %s (the shipped text's)", head, sha, want)
		}
		plain, err := e.Load(head + body)
		if err != nil || plain != sha1Hex(head+body) {
			t.Fatalf("%q: plain load: %s, %v", head, plain, err)
		}
		for _, mode := range []string{"fail", "ok"} {
			var results []string
			for _, run := range []func() (any, error){
				func() (any, error) { return e.EvalSHA(sha, []string{"h", "l"}, []string{"v", mode}) },
				func() (any, error) { return e.Do("EVALSHA", sha, "2", "h", "l", "v", mode) },
				func() (any, error) { return e.Do("EVAL", shipped, "2", "h", "l", "v", mode) },
			} {
				mustDo(t, e, "FLUSHALL")
				mustDo(t, e, "HSET", "h", "a", "1")
				v, err := run()
				results = append(results, fmt.Sprint(v, err)+"\n"+state(t, e))
			}
			for i, r := range results[1:] {
				if r != results[0] {
					t.Errorf("%q %s: run %d:\n%s\nwant\n%s", head, mode, i+1, r, results[0])
				}
			}
			if mode == "fail" && !strings.Contains(results[0], "WRONGTYPE") {
				t.Errorf("%q: the failing run: %s", head, results[0])
			}
			mustDo(t, e, "FLUSHALL")
			mustDo(t, e, "HSET", "h", "a", "1")
			before := state(t, e)
			e.EvalSHA(sha, []string{"h", "l"}, []string{"v", mode})
			journaled := state(t, e)
			mustDo(t, e, "FLUSHALL")
			mustDo(t, e, "HSET", "h", "a", "1")
			e.EvalSHA(plain, []string{"h", "l"}, []string{"v", mode})
			kept := state(t, e)
			if mode == "fail" && (journaled != before || kept == before) {
				t.Errorf("%q: a failed run: journaled\n%s\nplain\n%s\nbefore\n%s", head, journaled, kept, before)
			}
			if mode == "ok" && journaled != kept {
				t.Errorf("%q: a successful run: journaled\n%s\nplain\n%s", head, journaled, kept)
			}
		}
	}
}

// TestLoadHosted: a journaled body the prelude needs a runtime for is
// hosted on the engine's journal, not run as the prelude's Lua, also after
// a shebang (gen's text for a transactional script with Redis flags).
func TestLoadHosted(t *testing.T) {
	e := newEngine(t)
	for _, head := range []string{"", "#!lua\n", "#!lua flags=allow-oom\n"} {
		sha, err := e.Load(head+"redis.call('SET', KEYS[1], 'x')\nerror('boom')\n", Journaled())
		if err != nil {
			t.Fatal(err)
		}
		if sc := e.script(sha); sc == nil || sc.host == nil {
			t.Errorf("%q: not hosted: %+v", head, sc)
		}
	}
}

// TestLoadRefuses: a journaled script refuses the writes its code names
// that a journal cannot undo, as the prelude does.
func TestLoadRefuses(t *testing.T) {
	e := newEngine(t)
	mustDo(t, e, "SET", "k", "v")
	sha, err := e.Load("redis.call('SET', 'k', 'changed')\nredis.call('FLUSHALL')\nreturn 1\n", Journaled())
	if err != nil {
		t.Fatal(err)
	}
	const want = "ERR scriptgen transactional: FLUSHALL cannot be rolled back script: "
	if _, err := e.EvalSHA(sha, nil, nil); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s…", err, want)
	}
	if v := mustDo(t, e, "GET", "k"); v != "v" {
		t.Errorf("k = %v after the refusal", v)
	}
}

// TestLoadErrors: Load's errors are SCRIPT LOAD's replies, of the shipped
// text with Journaled.
func TestLoadErrors(t *testing.T) {
	e := newEngine(t)
	for _, body := range []string{"return (", "#!lua flags=nope\nreturn 1", "#!python\nreturn 1", "#!lua"} {
		for _, opts := range [][]ScriptOption{nil, {Journaled()}} {
			text := body
			if len(opts) > 0 {
				text, _ = shipJournaled(body)
			}
			_, want := e.Do("SCRIPT", "LOAD", text)
			if want == nil {
				t.Fatalf("%q: SCRIPT LOAD accepted it", text)
			}
			_, err := e.Load(body, opts...)
			if _, ok := err.(*Error); !ok || err.Error() != want.Error() {
				t.Errorf("%q %d options: %v, want %v", body, len(opts), err, want)
			}
		}
	}
}
