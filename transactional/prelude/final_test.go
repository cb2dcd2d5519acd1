package prelude

import (
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/luaflow"
)

func TestDirectFinalWrites(t *testing.T) {
	src := "local key = KEYS[1]\nredis.call('ZADD', key, 1, 'a')\nlocal held = redis.call('ZCARD', KEYS[2])\n" +
		"local reset = held * 10\nif reset > 0 then\n  redis.call('PEXPIRE', key, reset)\nend\nreturn held\n"
	wrapped := Wrap(src)
	// The PEXPIRE is the last thing that can fail in its run (ZCARD
	// replies with an integer); the ZADD is followed by a ZCARD of a key
	// that may hold another type.
	for _, want := range []string{rawName + ".call('PEXPIRE', key, reset)", "redis.call('ZADD', key"} {
		if !strings.Contains(wrapped, want) {
			t.Errorf("wrapped lacks %q:\n%s", want, wrapped)
		}
	}
	if strings.Contains(wrapped, "redis.call('PEXPIRE'") {
		t.Error("the final PEXPIRE still goes through the journal")
	}
	// The same lines, and the runtime's closing line after them.
	if got, want := strings.Count(wrapped, "\n"), strings.Count(src, "\n")+1; got != want {
		t.Errorf("wrapped has %d lines, want %d", got, want)
	}
	body, _, ok := Unwrap(wrapped)
	if !ok || !strings.Contains(body, rawName) {
		t.Fatal("Unwrap does not recognise a script with direct writes")
	}
	if Wrap(body) != wrapped {
		t.Fatal("Wrap of the unwrapped body differs")
	}
}

// TestDirectFinalWritesAlias: a final write made through BullMQ's `local
// rcall = redis.call` goes straight to Redis as redis.call's does, and one
// through an alias of redis.pcall stays a pcall.
func TestDirectFinalWritesAlias(t *testing.T) {
	src := "local rcall, rpcall = redis.call, redis.pcall\nlocal function n(k) return rcall('ZCARD', k) end\n" +
		"rcall('ZADD', KEYS[1], 1, 'a')\nlocal held = n(KEYS[2])\nrpcall('SET', KEYS[3], held)\nreturn rcall ('PEXPIRE', KEYS[1], 10)\n"
	wrapped := Wrap(src)
	for _, want := range []string{"rcall('ZADD', KEYS[1]", rawName + ".pcall('SET', KEYS[3], held)", "return " + rawName + ".call ('PEXPIRE'"} {
		if !strings.Contains(wrapped, want) {
			t.Errorf("wrapped lacks %q:\n%s", want, wrapped)
		}
	}
	if got, want := strings.Count(wrapped, "\n"), strings.Count(src, "\n")+1; got != want {
		t.Errorf("wrapped has %d lines, want %d", got, want)
	}
	body, _, ok := Unwrap(wrapped)
	if !ok || Wrap(body) != wrapped {
		t.Fatal("Unwrap does not give back a body that wraps the same")
	}
}

func TestDirectLibrary(t *testing.T) {
	body := "redis.call('SET', KEYS[1], 1)\nreturn redis.call('INCR', KEYS[2])\n"
	run := Run(body)
	if !strings.Contains(run, "redis.call('SET'") || !strings.Contains(run, rawName+".call('INCR'") {
		t.Fatalf("Run(%q) = %q", body, run)
	}
	code := "local function f(KEYS, ARGV)\n" + run + "end\n"
	head, rest, ok := SplitDeclared(Declare(code) + code)
	if !ok || head != "" || rest != code {
		t.Fatal("SplitDeclared does not recognise a library with direct writes")
	}
}

func TestNeededUnderscoreNames(t *testing.T) {
	// The prelude's own text needs the runtime: nothing in Needed may take
	// a wrapped script for a plain one.
	src := "redis.call('SET', KEYS[1], 1) redis.call('SET', KEYS[2], 2)"
	if !luaflow.Needed(Wrap(src)) || !strings.Contains(Wrap(src), runName) {
		t.Fatal("a wrapped script with two writes must need the runtime")
	}
}

// TestInlineAlias: a hash write through `local rcall = redis.call` whose
// fields the script read first goes under the inline journal as
// redis.call's does, and on redis-server a run that fails after it leaves
// the hash as it was.
func TestInlineAlias(t *testing.T) {
	src := "local rcall = redis.call\nlocal h = rcall('HMGET', KEYS[1], 'a', 'b')\n" +
		"rcall('HSET', KEYS[1], 'a', ARGV[1], 'b', 2)\nreturn rcall('INCR', KEYS[2])\n"
	w := Wrap(src)
	if !strings.HasPrefix(w, inlineHead) || !strings.Contains(w, inlineName+"(rcall('HSET', KEYS[1], 'a', ARGV[1], 'b', 2), KEYS[1], 'a', h[1], 'b', h[2])") {
		t.Fatalf("not under the inline journal:\n%s", w)
	}
	ctx, c := start(t)
	keys := []string{"{i}h", "{i}n"}
	for _, n := range []string{"x", "5"} {
		state := [][]any{{"FLUSHALL"}, {"HSET", keys[0], "a", "old"}, {"SET", keys[1], n}}
		apply(t, ctx, c, state)
		before := describe(t, ctx, c, keys)
		_, err := c.Eval(ctx, w, keys, "new").Result()
		after := describe(t, ctx, c, keys)
		apply(t, ctx, c, state)
		_, errPlain := c.Eval(ctx, src, keys, "new").Result()
		plain := describe(t, ctx, c, keys)
		switch {
		case (err == nil) != (errPlain == nil):
			t.Fatalf("INCR of %q: wrapped %v, plain %v", n, err, errPlain)
		case err != nil && after != before:
			t.Fatalf("INCR of %q failed (%v) but the keyspace changed:\n%s\nbefore:\n%s", n, err, after, before)
		case err == nil && after != plain:
			t.Fatalf("INCR of %q: wrapped left\n%s\nplain\n%s", n, after, plain)
		case err != nil && plain == before:
			t.Fatalf("the plain run left nothing to undo: the test shows nothing")
		}
	}
}
