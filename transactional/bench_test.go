package transactional

import (
	"context"
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
