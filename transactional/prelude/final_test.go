package prelude

import (
	"strings"
	"testing"
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

func TestSiteOffsets(t *testing.T) {
	code := "-- redis.call('x')\nlocal s = 'redis.call' .. [[redis.pcall]]\nlocal t = {redis = {call = tostring}}\n" +
		"local x = redis.call('GET', redis.call('GET', KEYS[1])) t.redis.call()\n" +
		"  \tredis.pcall('SET', KEYS[1], --[[ redis.call ]] 'v')\n"
	var got []string
	for _, o := range siteOffsets(code) {
		if !strings.HasPrefix(code[o.at:], "redis.") {
			t.Fatalf("offset %d is not at redis: %q", o.at, code[o.at:])
		}
		got = append(got, code[o.at:o.at+strings.IndexByte(code[o.at:], '(')])
	}
	if strings.Join(got, " ") != "redis.call redis.call redis.pcall" {
		t.Fatalf("sites %q", got)
	}
	an := analyze(code)
	if len(an.sites) != 3 {
		t.Fatalf("analyze found %d sites, want 3", len(an.sites))
	}
}
