package transactional

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

// benchScript is a typical 5-command script: a hash-based counter with a
// TTL and a bounded log.
const benchScript = `
local n = redis.call('HINCRBY', KEYS[1], 'count', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[1])
redis.call('PEXPIRE', KEYS[1], 60000)
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, 99)
return n
`

// BenchmarkEngineEvalsha runs the script in-process through Engine.Do.
func BenchmarkEngineEvalsha(b *testing.B) {
	e := New()
	defer e.Close()
	sha, err := e.Do("SCRIPT", "LOAD", benchScript)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Do("EVALSHA", sha.(string), "2", "h", "l", "v"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkEngineEvalSHA runs the script in-process through
// Engine.EvalSHA, the simulator's path.
func BenchmarkEngineEvalSHA(b *testing.B) {
	e := New()
	defer e.Close()
	sha, err := e.Do("SCRIPT", "LOAD", benchScript)
	if err != nil {
		b.Fatal(err)
	}
	keys, argv := []string{"h", "l"}, []string{"v"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.EvalSHA(sha.(string), keys, argv); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkMiniredisEvalshaTCP is the baseline: the same script through
// miniredis's own EVALSHA, over TCP with go-redis, as a Go test would use
// miniredis today.
func BenchmarkMiniredisEvalshaTCP(b *testing.B) {
	m := miniredis.NewMiniRedis()
	if err := m.Start(); err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	c := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer c.Close()
	ctx := context.Background()
	sha, err := c.ScriptLoad(ctx, benchScript).Result()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.EvalSha(ctx, sha, []string{"h", "l"}, "v").Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkEngineEvalshaTCP is the engine over TCP with go-redis, for a
// like-for-like comparison with the baseline.
func BenchmarkEngineEvalshaTCP(b *testing.B) {
	e := New()
	defer e.Close()
	addr, err := e.Listen("")
	if err != nil {
		b.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: addr.String()})
	defer c.Close()
	ctx := context.Background()
	sha, err := c.ScriptLoad(ctx, benchScript).Result()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.EvalSha(ctx, sha, []string{"h", "l"}, "v").Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkRunParts takes the library's token bucket apart, run through
// Engine.EvalSHA as the simulator runs it: a run that does nothing
// (return1), one that builds the reply table (table4), the same with the
// bucket's HMGET (hmget) and with all three of its commands (3calls), the
// script's Lua with its commands taken out (pure), and the script itself
// (token_bucket). The differences are what each part costs a request.
func BenchmarkRunParts(b *testing.B) {
	tb, err := os.ReadFile("../lua/ratelimit/token_bucket.lua")
	if err != nil {
		b.Fatal(err)
	}
	pure := strings.NewReplacer("redis.call('HMGET', KEYS[1], 'l', 't')", "{'5000', '7'}",
		"redis.call('DEL', KEYS[1])", "", "redis.call('HSET', KEYS[1], 'l', level, 't', last)", "",
		"redis.call('PEXPIRE', KEYS[1], reset)", "").Replace(string(tb))
	if strings.Contains(pure, "redis.call('H") || strings.Contains(pure, "PEXPIRE', KEYS") {
		b.Fatal("the token bucket's commands are no longer where this benchmark takes them out")
	}
	const reply = " return {1, 2, 3, 4}"
	for _, c := range []struct{ name, src string }{
		{"return1", "return 1"},
		{"table4", reply},
		{"hmget", "local s = redis.call('HMGET', KEYS[1], 'l', 't')" + reply},
		{"3calls", "redis.call('HMGET', KEYS[1], 'l', 't') redis.call('HSET', KEYS[1], 'l', 5, 't', 7) redis.call('PEXPIRE', KEYS[1], 100)" + reply},
		{"pure", pure},
		{"token_bucket", string(tb)},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := New()
			defer e.Close()
			sha, err := e.Do("SCRIPT", "LOAD", c.src)
			if err != nil {
				b.Fatal(err)
			}
			keys, argv := []string{"rl:{a}:tb"}, []string{"100", "500", "1000", "1", ""}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				argv[4] = strconv.Itoa(i) // the time, as the simulator sends it
				if _, err := e.EvalSHA(sha.(string), keys, argv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVMOps is the cost of one Lua operation in the engine's VM: a
// loop doing it b.N times, less the empty loop (empty).
func BenchmarkVMOps(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"empty", ""},
		{"arith", "x = x + i * 2"},
		{"luacall", "x = f(i, 1)"},
		{"gcall", "x = math.max(i, 1)"},
		{"tonumber", "x = tonumber('123')"},
		{"table", "x = {1, 2, 3, 4}"},
		{"record", "x = {a = i, b = 2}"},
		{"concat", "x = 'r' .. i"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := New()
			defer e.Close()
			src := "local function f(v, m) return v end local x = 0 for i = 1, tonumber(ARGV[1]) do " + c.body + " end return 1"
			sha, err := e.Do("SCRIPT", "LOAD", src)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			if _, err := e.EvalSHA(sha.(string), nil, []string{strconv.Itoa(b.N)}); err != nil {
				b.Fatal(err)
			}
		})
	}
}
