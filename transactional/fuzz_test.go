package transactional

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzEval sends random Lua sources with random KEYS and ARGV through EVAL
// and, wrapped in a library, through FUNCTION LOAD and FCALL. Whatever the
// script does, the engine must not panic (a panic inside the engine becomes
// an "internal error" reply, which fails here too) and must not leave the
// keyspace locked.
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"return 1",
		"return function() end",
		"return {1, {2, nil, 3}, {err = 'x'}, {ok = 'y'}}",
		"local t = {}; t[1] = t; return t",
		"return redis.call('SET', KEYS[1], ARGV[1])",
		"return redis.pcall('LPUSH', KEYS[1], ARGV[1])",
		"error({msg = 'no err field'})",
		"error(setmetatable({}, {__tostring = function() error('again') end}))",
		"return cjson.decode(ARGV[1])",
		"return cmsgpack.unpack(ARGV[1])",
		"return struct.unpack(ARGV[1], ARGV[2] or '')",
		"return bit.tohex(tonumber(ARGV[1]) or 0, tonumber(ARGV[2]) or 8)",
		"redis.setresp(3); return redis.call('HGETALL', KEYS[1])",
		"while true do end",
		"return loadstring(ARGV[1])()",
		"local co = coroutine.wrap(function() coroutine.yield(redis.call('PING')) end); return co()",
		"return redis.call('SELECT', ARGV[1])",
		"return string.rep('x', 1e5)",
	} {
		f.Add(seed, "k1 k2", "a1 a2")
	}
	e := New(WithTimeLimit(50 * time.Millisecond))
	f.Cleanup(e.Close)
	f.Fuzz(func(t *testing.T, src, keys, args string) {
		ks, as := strings.Fields(keys), strings.Fields(args)
		eval := append([]string{"EVAL", src, strconv.Itoa(len(ks))}, ks...)
		checkReply(t, e, append(eval, as...))

		lib := "#!lua name=fuzz\nredis.register_function('f', function(KEYS, ARGV)\n" + src + "\nend)"
		checkReply(t, e, []string{"FUNCTION", "LOAD", "REPLACE", lib})
		fcall := append([]string{"FCALL", "f", strconv.Itoa(len(ks))}, ks...)
		checkReply(t, e, append(fcall, as...))

		ok, err := doWithin(e, 5*time.Second, "SET", "probe", "1")
		if !ok {
			t.Fatal("the keyspace stayed locked after the script")
		}
		if err != nil {
			t.Fatalf("SET after the script: %v", err)
		}
		if !e.m.TryLock() {
			t.Fatal("miniredis's lock is held after the script")
		}
		e.m.Unlock()
		if e.running.Load() != nil {
			t.Fatal("a script is still marked as running")
		}
	})
}

func checkReply(t *testing.T, e *Engine, args []string) {
	t.Helper()
	_, err := e.Do(args...)
	if err != nil && strings.Contains(err.Error(), "internal error") {
		t.Fatalf("%q: %v", args, err)
	}
}
