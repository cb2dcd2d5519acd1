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
