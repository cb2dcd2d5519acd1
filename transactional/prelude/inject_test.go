package prelude

import (
	"strings"
	"testing"
)

// TestInject runs injected failures on redis-server: under the journal
// every k leaves the keyspace as before with the injected error, a k past
// the script's calls changes nothing of its run, and the same failure
// without the journal (InjectPlain) leaves the first write behind, marked
// as beyond the proof; journaling every write (InjectJournaled) undoes it.
func TestInject(t *testing.T) {
	ctx, c := start(t)
	keys := []string{"{i}a", "{i}b", "{i}c"}
	const needs = "redis.call('SET', KEYS[1], 'a')\nlocal v = redis.call('INCR', KEYS[2])\nredis.call('SET', KEYS[3], v)\nreturn v\n"
	// GET's key was just set to a string: nothing can fail after the SET.
	const final = "local old = redis.call('GET', KEYS[2])\nredis.call('SET', KEYS[1], 'x')\nreturn redis.call('GET', KEYS[1])\n"
	state := [][]any{{"FLUSHALL"}, {"SET", "{i}b", "5"}, {"SET", "{i}c", "old", "PXAT", 4102444800123}}

	run := func(src string) (string, string) {
		apply(t, ctx, c, state)
		_, err := c.Eval(ctx, src, keys).Result()
		return errText(err), describe(t, ctx, c, keys)
	}
	apply(t, ctx, c, state)
	before := describe(t, ctx, c, keys)

	if Journal(Ship(needs)) != "runtime" || Journal(Ship(final)) != "" {
		t.Fatalf("journals %q, %q: the cases no longer cover the runtime and a script shipped unwrapped", Journal(Ship(needs)), Journal(Ship(final)))
	}
	for k := 1; k <= 3; k++ {
		e, after := run(Inject(needs, k))
		if !strings.HasPrefix(e, InjectedError) || strings.Contains(e, BeyondProof) {
			t.Errorf("k=%d: error %q, want the injected one within the proof", k, e)
		}
		if after != before {
			t.Errorf("k=%d: the keyspace changed:\n%s\nbefore:\n%s", k, after, before)
		}
	}
	apply(t, ctx, c, state)
	got, err := c.Eval(ctx, Inject(needs, 4), keys).Result()
	if err != nil || got != int64(6) {
		t.Errorf("k past the last call: %v, %v; want the plain reply 6", got, err)
	}

	e, after := run(InjectPlain(needs, 2))
	if !strings.HasSuffix(e, BeyondProof) || after == before {
		t.Errorf("without the journal: error %q and keyspace\n%s\nwant the first write left, beyond the proof", e, after)
	}

	e, after = run(Inject(final, 1))
	if !strings.HasPrefix(e, InjectedError) || strings.Contains(e, BeyondProof) || after != before {
		t.Errorf("unwrapped, before its write: %q\n%s", e, after)
	}
	e, after = run(Inject(final, 3))
	if !strings.HasSuffix(e, "at call 3 "+BeyondProof) || after == before {
		t.Errorf("unwrapped, after its final write: error %q, keyspace\n%s\nwant the write kept and the injection beyond the proof", e, after)
	}
	e, after = run(InjectJournaled(final, 3))
	if !strings.HasPrefix(e, InjectedError) || strings.Contains(e, BeyondProof) || after != before {
		t.Errorf("every write journaled: error %q, keyspace\n%s\nwant it rolled back within the model", e, after)
	}
}

// TestInjectInline: an EVAL script under the inline journal (asynq's
// enqueue: EXISTS, then writes to the key found absent) takes the
// injection inside xpcall's body, so its undo still runs on Redis's own
// redis: every k fails with the injected error, and the planned undo (DEL
// of the key found absent) leaves the keyspace as before.
func TestInjectInline(t *testing.T) {
	ctx, c := start(t)
	keys := []string{"{j}job", "{j}queue"}
	const enqueue = "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end\n" +
		"redis.call('HSET', KEYS[1], 'msg', ARGV[1])\nredis.call('LPUSH', KEYS[2], ARGV[1])\nreturn 1\n"
	if j := Journal(Ship(enqueue)); j != "inline" {
		t.Fatalf("journal %q: the case no longer covers the inline journal", j)
	}
	state := [][]any{{"FLUSHALL"}, {"RPUSH", "{j}queue", "old"}}
	apply(t, ctx, c, state)
	before := describe(t, ctx, c, keys)
	for k := 1; k <= 3; k++ {
		apply(t, ctx, c, state)
		_, err := c.Eval(ctx, Inject(enqueue, k), keys, "m").Result()
		if e := errText(err); !strings.HasPrefix(e, InjectedError) {
			t.Errorf("k=%d: error %q, want the injected one", k, e)
		}
		if after := describe(t, ctx, c, keys); k <= 2 && after != before {
			t.Errorf("k=%d: the keyspace changed:\n%s\nbefore:\n%s", k, after, before)
		}
	}
}
