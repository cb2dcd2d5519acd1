package prelude

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/luaflow"
)

// TestInlineLimiters: token_bucket and credits ship unwrapped (their HSET
// is the last thing that can fail), but a variant of each whose PEXPIRE
// could fail (its TTL plus a number from ARGV) keeps the HSET under the
// inline journal, its lines where they were.
func TestInlineLimiters(t *testing.T) {
	for name, want := range map[string]string{
		"token_bucket": inlineName + "(redis.call('HSET', KEYS[1], 'l', level, 't', last), KEYS[1], 'l', state[1], 't', state[2])",
		"credits":      inlineName + "(redis.call('HSET', KEYS[1], 's', start, 'u', used), KEYS[1], 's', state[1], 'u', state[2])",
	} {
		src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", name+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		if luaflow.Needed(string(src)) {
			t.Errorf("%s needs a journal", name)
		}
		variant := regexp.MustCompile(`redis.call\('PEXPIRE', KEYS\[1\], (\w+)\)`).ReplaceAllString(string(src), "redis.call('PEXPIRE', KEYS[1], $1 + (tonumber(ARGV[9]) or 0))")
		if variant == string(src) {
			t.Fatalf("%s: no PEXPIRE to change", name)
		}
		w := Wrap(variant)
		if !strings.HasPrefix(w, inlineHead) || !strings.Contains(w, want) {
			t.Errorf("%s: not under the inline journal as expected:\n%s", name, w)
		}
		if got, want := strings.Count(w, "\n"), strings.Count(variant, "\n")+1; got != want {
			t.Errorf("%s: %d lines, want %d", name, got, want)
		}
	}
}

func TestInlinePlans(t *testing.T) {
	for _, c := range []struct {
		name   string
		inline bool
		src    string
	}{
		{"read then write", true, "local h = redis.call('HMGET', KEYS[1], 'a', 'b') redis.call('HSET', KEYS[1], 'a', 1) redis.call('HSET', KEYS[1], 'b', 2) return redis.call('GET', KEYS[2])"},
		{"HGET", true, "local v = redis.call('HGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"field not read", false, "local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1, 'c', 2) return redis.call('GET', KEYS[2])"},
		{"other key", false, "local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[2], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"read after a write", false, "redis.call('SET', KEYS[2], 1) local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"reply changed", false, "local h = redis.call('HMGET', KEYS[1], 'a') h[1] = 'x' redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"reply handed on", false, "local h = redis.call('HMGET', KEYS[1], 'a') table.remove(h) redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"reply reassigned", false, "local h = redis.call('HMGET', KEYS[1], 'a') if ARGV[1] then h = {} end redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"another write not planned", false, "local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1) redis.call('DEL', KEYS[3]) return redis.call('GET', KEYS[2])"},
		{"a final write besides", true, "local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1) redis.call('DEL', KEYS[3]) return 1"},
		{"KEYS changed", false, "local h = redis.call('HMGET', KEYS[1], 'a') KEYS[1] = 'x' redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"RESP3", false, "redis.setresp(3) local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"},
		{"in a function", false, "local h = redis.call('HMGET', KEYS[1], 'a') local function w() redis.call('HSET', KEYS[1], 'a', 1) end w() return redis.call('GET', KEYS[2])"},
		{"in a loop", true, "local h = redis.call('HMGET', KEYS[1], 'a') for i = 1, 3 do redis.call('HSET', KEYS[1], 'a', i) end return redis.call('GET', KEYS[2])"},
		{"read in the loop", false, "for i = 1, 3 do local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', i) end return 1"},
		{"push", true, "redis.call('LPUSH', KEYS[1], ARGV[1], 'b') redis.call('RPUSH', KEYS[1], 'c') return redis.call('GET', KEYS[2])"},
		{"push of what unpack gives", false, "redis.call('LPUSH', KEYS[1], unpack(ARGV)) return redis.call('GET', KEYS[2])"},
		{"push by pcall", false, "redis.pcall('RPUSH', KEYS[1], 'c') return redis.call('GET', KEYS[2])"},
		// A key an EXISTS found absent before any write (TestInlineAbsent).
		{"absent: GET nil", true, "local v = redis.call('GET', KEYS[1]) if v then return v end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: not GET", true, "local v = redis.call('GET', KEYS[1]) if not v then redis.call('INCR', KEYS[1]) end return redis.call('GET', KEYS[2])"},
		{"absent: GET found", false, "local v = redis.call('GET', KEYS[1]) if not v then return 0 end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: GET after a write", false, "redis.call('SET', KEYS[3], 1) local v = redis.call('GET', KEYS[1]) if v then return v end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: GET reassigned", false, "local v = redis.call('GET', KEYS[1]) v = ARGV[1] if v then return v end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: == 1 returns", true, "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: ~= 0 returns", true, "if redis.call('EXISTS', KEYS[1]) ~= 0 then return 0 end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: == 0 branch", true, "if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('RPUSH', KEYS[1], 1) redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return redis.call('GET', KEYS[2])"},
		{"absent: through a local key", true, "local k = KEYS[1] if redis.call('EXISTS', k) == 1 then return 0 end redis.call('SADD', KEYS[1], 'a') return redis.call('GET', KEYS[2])"},
		{"absent: several writes", true, "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('HSET', KEYS[1], 'a', 1) redis.call('HINCRBY', KEYS[1], 'a', ARGV[1]) return 1"},
		{"absent: exists branch", false, "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('SET', KEYS[1], 1) end return redis.call('GET', KEYS[2])"},
		{"absent: not returned", false, "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('GET', KEYS[3]) end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: after a write", false, "redis.call('SET', KEYS[3], 1) if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: other key", false, "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('SET', KEYS[3], 1) return redis.call('GET', KEYS[2])"},
		{"absent: two keys counted", false, "if redis.call('EXISTS', KEYS[1], KEYS[3]) == 1 then return 0 end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: a second key written", false, "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('LMOVE', KEYS[1], KEYS[3], 'LEFT', 'LEFT') return redis.call('GET', KEYS[2])"},
		{"absent: in a function", false, "local function f() if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2]) end return f()"},
		{"absent: pcall", false, "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end redis.pcall('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
		{"absent: KEYS changed", false, "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end KEYS[1] = ARGV[1] redis.call('SET', KEYS[1], 1) return redis.call('GET', KEYS[2])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.HasPrefix(Wrap(c.src), inlineHead); got != c.inline {
				t.Errorf("inline = %v, want %v:\n%s", got, c.inline, Wrap(c.src))
			}
		})
	}
}

// TestPropertyInline runs random scripts that read hash fields into locals
// and then write them (with other writes and failures mixed in) on a real
// redis-server, wrapped and as is, as TestPropertyRollback does: a failed
// wrapped run leaves the keyspace as it was, a successful one as the plain
// run leaves it. Enough of the scripts must run under the inline journal.
var inlineRuns = flag.Int("inline.runs", 1500, "random scripts TestPropertyInline runs on redis-server")

func TestPropertyInline(t *testing.T) {
	ctx, c := start(t)
	r := rand.New(rand.NewSource(*propSeed))
	keys := []string{"{i}1", "{i}2", "{i}3"}
	fields := []string{"a", "b", "c"}
	deadline := time.Now().Add(time.Minute)
	runs, inlined, rolledBack := 0, 0, 0
	for ; runs < *inlineRuns && time.Now().Before(deadline); runs++ {
		var b strings.Builder
		for k := 1; k <= 2; k++ {
			if r.Intn(3) > 0 {
				fmt.Fprintf(&b, "local h%d = redis.call('HMGET', KEYS[%d], 'a', 'b', 'c')\n", k, k)
			}
		}
		if r.Intn(3) == 0 {
			b.WriteString("local g = redis.call('HGET', KEYS[2], 'b')\n")
		}
		for i := 1 + r.Intn(5); i > 0; i-- {
			switch r.Intn(9) {
			case 0:
				b.WriteString("if ARGV[1] == 'fail' then error('injected') end\n")
			case 1:
				b.WriteString("redis.call('INCR', KEYS[3])\n") // WRONGTYPE on a hash: a failure
			case 2:
				fmt.Fprintf(&b, "redis.call('PEXPIREAT', KEYS[%d], 4102444800%03d)\n", 1+r.Intn(3), r.Intn(1000))
			case 3:
				b.WriteString("for i = 1, 2 do redis.call('HSET', KEYS[1], 'c', i) end\n")
			default:
				k := 1 + r.Intn(2)
				f := fields[r.Intn(3)]
				fmt.Fprintf(&b, "redis.call('HSET', KEYS[%d], '%s', '%d')\n", k, f, r.Intn(9))
				if r.Intn(3) == 0 {
					fmt.Fprintf(&b, "redis.call('HMSET', KEYS[%d], 'a', 'x', 'b', 'y')\n", k)
				}
			}
		}
		body := endScript(r, &b)
		wrapped := Wrap(body)
		isInline := strings.HasPrefix(wrapped, inlineHead)
		inlined += boolInt(isInline)
		var state [][]any
		for i, k := range keys {
			switch r.Intn(4) {
			case 0:
				state = append(state, []any{"HSET", k, "a", "1", "z", "keep"})
			case 1:
				state = append(state, []any{"HSET", k, "b", "2"}, []any{"PEXPIREAT", k, 4102444900000 + r.Intn(1000)})
			case 2:
				if i == 2 {
					state = append(state, []any{"SET", k, "7"})
				}
			}
		}
		argv := []string{"", "fail", "late"}[r.Intn(3)]
		// Every fourth script runs as a function of a library, with Run's
		// text (and Declare only when Run needs it).
		functions := runs%4 == 3
		if functions {
			tx := Run(body)
			code := "local function tx(KEYS, ARGV)\n" + tx + "end\n" +
				"local function plain(KEYS, ARGV)\n" + body + "end\n" +
				"redis.register_function('tx', tx) redis.register_function('plain', plain)\n"
			if Declared(tx) {
				code = Declare(code) + code
			}
			if err := c.FunctionLoadReplace(ctx, "#!lua name=i\n"+code).Err(); err != nil {
				t.Fatalf("run %d: FUNCTION LOAD: %v", runs, err)
			}
		}
		call := func(tx bool) (any, error) {
			switch {
			case functions && tx:
				return c.FCall(ctx, "tx", keys, argv).Result()
			case functions:
				return c.FCall(ctx, "plain", keys, argv).Result()
			case tx:
				return c.Eval(ctx, wrapped, keys, argv).Result()
			}
			return c.Eval(ctx, body, keys, argv).Result()
		}
		failed, undone := againstPlain(t, ctx, c, keys, state, call, functions, fmt.Sprintf("run %d", runs), body)
		if failed && undone && isInline {
			rolledBack++
		}
	}
	t.Logf("%d scripts, %d under the inline journal, %d of their failed runs rolled back what the plain run left half done", runs, inlined, rolledBack)
	if inlined < runs/8 || rolledBack < runs/30 {
		t.Fatalf("the generator no longer exercises the inline journal: %d inlined, %d rolled back of %d", inlined, rolledBack, runs)
	}
}

// endScript ends a random script, raising late in some, and returns it.
func endScript(r *rand.Rand, b *strings.Builder) string {
	if r.Intn(2) == 0 {
		b.WriteString("if ARGV[1] == 'late' then error('late') end\n")
	}
	b.WriteString("return 'ok'\n")
	return b.String()
}

// againstPlain runs call's shipped script (call(true)) and its plain
// one from state, and fails t unless both reply the same and the shipped
// run leaves the keyspace as it was when it fails, as the plain run does
// when it succeeds. It reports whether the run failed and the plain run
// had left a change behind (what the journal undid).
func againstPlain(t *testing.T, ctx context.Context, c *redis.Client, keys []string, state [][]any, call func(tx bool) (any, error), functions bool, run, body string) (failed, undone bool) {
	t.Helper()
	c.FlushAll(ctx)
	apply(t, ctx, c, state)
	before := describe(t, ctx, c, keys)
	got, err := call(true)
	after := describe(t, ctx, c, keys)
	c.FlushAll(ctx)
	apply(t, ctx, c, state)
	want, errPlain := call(false)
	plain := describe(t, ctx, c, keys)
	e, ePlain := errText(err), errText(errPlain)
	if functions {
		e, ePlain = functionLine.ReplaceAllString(e, "user_function:N:"), functionLine.ReplaceAllString(ePlain, "user_function:N:")
	}
	if e != ePlain || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: shipped %v, %v; plain %v, %v\nscript:\n%s", run, got, err, want, errPlain, body)
	}
	if err != nil {
		if after != before {
			t.Fatalf("%s: failed with %v but the keyspace changed:\n%s\nbefore:\n%s\nscript:\n%s", run, err, after, before, body)
		}
		return true, plain != before
	}
	if after != plain {
		t.Fatalf("%s: succeeded but left\n%s\nwhere the plain script leaves\n%s\nscript:\n%s", run, after, plain, body)
	}
	return false, false
}

func TestJournal(t *testing.T) {
	runtime := "redis.call('SET', KEYS[1], 1) redis.call('SET', KEYS[2], 2)"
	inlined := "local h = redis.call('HMGET', KEYS[1], 'a') redis.call('HSET', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])"
	for src, want := range map[string]string{
		Wrap(runtime): "runtime",
		"#!lua flags=no-cluster\n" + Wrap(runtime): "runtime",
		Wrap(inlined):                       "inline",
		"return redis.call('GET', KEYS[1])": "",
	} {
		if got := Journal(src); got != want {
			t.Errorf("Journal(%.60q) = %q, want %q", src, got, want)
		}
	}
}

// hashWrite is a body the inline journal covers: it reads n fields of
// KEYS[1], sets them to ARGV[1], and raises afterwards when ARGV[2] is
// "fail".
func hashWrite(n int) string {
	var fields []string
	for i := 1; i <= n; i++ {
		fields = append(fields, fmt.Sprintf("'f%d'", i))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "local old = redis.call('HMGET', KEYS[1], %s)\n", strings.Join(fields, ", "))
	b.WriteString("redis.call('HSET', KEYS[1]")
	for _, f := range fields {
		b.WriteString(", " + f + ", ARGV[1]")
	}
	b.WriteString(")\nif ARGV[2] == 'fail' then error('injected') end\nreturn #old\n")
	return b.String()
}

// TestLibraryInline: a library declares the inline journal once, and its
// log's table outlives a call. Calls of functions of different widths (one
// whose log is let go, 20 fields; others that keep it) and of a runtime
// function of the same library follow each other without a flush, failing
// at random: a failed call leaves the keyspace as it was, whatever the
// calls before it logged; a successful one wrote what it says.
func TestLibraryInline(t *testing.T) {
	ctx, c := start(t)
	bodies := map[string]string{"wide": hashWrite(20), "four": hashWrite(4), "two": hashWrite(2),
		"rt": "redis.call('HSET', KEYS[1], 'f1', ARGV[1])\nredis.call('SET', KEYS[2], ARGV[1])\nif ARGV[2] == 'fail' then error('injected') end\nreturn 0\n"}
	var code strings.Builder
	for _, name := range []string{"wide", "four", "two", "rt"} {
		fn, declare := ShipFunction(bodies[name])
		if wantInline := name != "rt"; strings.HasPrefix(fn, inlinePrefix) != wantInline || !declare {
			t.Fatalf("%s ships as %.60q", name, fn)
		}
		fmt.Fprintf(&code, "local function %s(KEYS, ARGV)\n%send\nredis.register_function('%s', %s)\n", name, fn, name, name)
	}
	head := Declare(code.String())
	if strings.Count(head, inlineLua) != 1 || !strings.Contains(head, declareHead) || strings.Count(head, "\n") != 2 {
		t.Fatalf("Declare: want the inline journal's line and the runtime's:\n%s", head)
	}
	if err := c.FunctionLoadReplace(ctx, "#!lua name=shared\n"+head+code.String()).Err(); err != nil {
		t.Fatal(err)
	}
	keys := []string{"{s}h", "{s}s"}
	r := rand.New(rand.NewSource(*propSeed))
	names := []string{"wide", "four", "two", "two", "four", "rt"}
	failed := 0
	for i := 0; i < 400; i++ {
		name := names[r.Intn(len(names))]
		val, mode := fmt.Sprint(i), []string{"ok", "fail"}[r.Intn(2)]
		before := describe(t, ctx, c, keys)
		_, err := c.FCall(ctx, name, keys, val, mode).Result()
		after := describe(t, ctx, c, keys)
		if mode == "fail" {
			failed++
			if err == nil || !strings.Contains(err.Error(), "injected") {
				t.Fatalf("call %d (%s): error %v, want the injected one", i, name, err)
			}
			if after != before {
				t.Fatalf("call %d (%s) failed but changed the keyspace:\n%s\nbefore:\n%s", i, name, after, before)
			}
			continue
		}
		if err != nil {
			t.Fatalf("call %d (%s): %v", i, name, err)
		}
		if got := c.HGet(ctx, keys[0], "f1").Val(); got != val {
			t.Fatalf("call %d (%s): f1 = %q, want %q", i, name, got, val)
		}
	}
	if failed < 100 {
		t.Fatalf("only %d failing calls", failed)
	}
}

// TestInlineNested: a run inside a run (a function calling another's Lua
// function, which the bundler never writes but a hand-made library may)
// shares the log: the inner run's failure undoes its own writes only, and
// the outer run's failure undoes everything, the inner run's writes
// included.
func TestInlineNested(t *testing.T) {
	ctx, c := start(t)
	lib := "#!lua name=nested\n" + inlineLua + "\n" +
		"local function inner(KEYS, ARGV)\n" + inlinePrefix +
		"local o = redis.call('HMGET', KEYS[1], 'b') " + inlineName + "(redis.call('HSET', KEYS[1], 'b', 'inner'), KEYS[1], 'b', o[1]) " +
		"if ARGV[1] == 'inner' then error('inner failed') end return 1\n" + runSuffix + "end\n" +
		"local function outer(KEYS, ARGV)\n" + inlinePrefix +
		"local o = redis.call('HMGET', KEYS[1], 'a', 'c') " + inlineName + "(redis.call('HSET', KEYS[1], 'a', 'outer'), KEYS[1], 'a', o[1]) " +
		"local ok = pcall(inner, KEYS, ARGV) " +
		inlineName + "(redis.call('HSET', KEYS[1], 'c', tostring(ok)), KEYS[1], 'c', o[2]) " +
		"if ARGV[2] == 'outer' then error('outer failed') end return 1\n" + runSuffix + "end\n" +
		"redis.register_function('outer', outer)\n"
	if err := c.FunctionLoadReplace(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		inner, outer string
		want         []any // a, b, c after the call
	}{
		{"ok", "ok", []any{"outer", "inner", "true"}},
		{"inner", "ok", []any{"outer", "b0", "false"}},
		{"ok", "outer", []any{"a0", "b0", nil}},
		{"inner", "outer", []any{"a0", "b0", nil}},
	} {
		c.FlushAll(ctx)
		c.HSet(ctx, "{n}h", "a", "a0", "b", "b0")
		err := c.FCall(ctx, "outer", []string{"{n}h"}, tc.inner, tc.outer).Err()
		if (err != nil) != (tc.outer == "outer") {
			t.Fatalf("%s/%s: %v", tc.inner, tc.outer, err)
		}
		got := c.HMGet(ctx, "{n}h", "a", "b", "c").Val()
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s/%s: a, b, c = %v, want %v", tc.inner, tc.outer, got, tc.want)
		}
	}
}
