package prelude

import (
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

var alwaysWrap = flag.Bool("prelude.always", false, "BenchmarkServerTime wraps every limiter, also those that need no runtime (Needed)")

// limiterCalls are the library's limiters with arguments that keep them on
// their writing path (allowed requests), the path the prelude journals.
var limiterCalls = []struct {
	name, script string // script: lua/ratelimit's file, when not name
	keys         []string
	args         func(i int) []any
	// after runs on both servers after each call, outside what
	// commandstats counts for the call.
	after string
}{
	{name: "token_bucket", keys: []string{"{b}k"}, args: func(int) []any { return []any{1 << 40, 1000, 1000, 1} }},
	{name: "gcra", keys: []string{"{b}k"}, args: func(int) []any { return []any{1 << 30, 1 << 30, 1000, 1} }},
	{name: "cl_throttle", keys: []string{"{b}k"}, args: func(int) []any { return []any{1 << 30, 1000, 1, 1} }},
	{name: "credits", keys: []string{"{b}k"}, args: func(int) []any { return []any{1 << 40, 60000, 1} }},
	{name: "concurrency", keys: []string{"{b}k"}, args: func(i int) []any { return []any{1 << 30, "r" + strconv.Itoa(i%1000), 60000} }},
	{name: "window", keys: []string{"{b}k"}, args: func(int) []any { return []any{"[[60000, 1000000000]]", 1} }},
	{name: "log", keys: []string{"{b}k"}, args: func(int) []any { return []any{"[[1000, 1000000000]]", 1} }},
	{name: "gate", keys: []string{"{b}k"}, args: func(int) []any { return []any{1} }},
	{name: "queue", keys: []string{"{b}k"}, args: func(int) []any { return []any{1 << 30, "f", "v"} }},
	// As the library means a queue to be used: a consumer deletes what it
	// is done with (ratelimit.QueueConsumer acknowledges and deletes), so
	// the stream stays short and has had deletions.
	{name: "queue/drained", script: "queue", keys: []string{"{b}k"}, args: func(int) []any { return []any{1 << 30, "f", "v"} },
		after: "local e = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1) if e[1] then redis.call('XDEL', KEYS[1], e[1][1]) end"},
}

// BenchmarkServerTime measures what the prelude costs Redis: one
// redis-server runs each limiter as is, a second one runs it as the
// bundler ships a transactional script (wrapped when luaflow.Needed says so, or
// always with -prelude.always),
// calls alternate between them, and INFO commandstats of each gives the
// server's own usec_per_call for EVALSHA (and FCALL for the library form),
// the best of rounds of 100 calls.
// Client round trips do not count, which is what a shared Redis cares
// about. Reported per limiter: plain-us, wrapped-us, their ratio, and
// extra-calls, the commands the journal adds per call (in the last round).
func BenchmarkServerTime(b *testing.B) {
	ctx := context.Background()
	plainSrv, wrappedSrv := redistest.Start(b), redistest.Start(b)
	plain, wrapped := plainSrv.Client(b), wrappedSrv.Client(b)
	for _, lc := range limiterCalls {
		file := lc.script
		if file == "" {
			file = lc.name
		}
		src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", file+".lua"))
		if os.IsNotExist(err) {
			continue // the library is still being written
		}
		if err != nil {
			b.Fatal(err)
		}
		body := string(src)
		for _, mode := range []string{"evalsha", "fcall"} {
			b.Run(lc.name+"/"+mode, func(b *testing.B) {
				callPlain := load(b, ctx, plain, mode, body, false)
				callWrapped := load(b, ctx, wrapped, mode, body, true)
				// The machine is shared: a round that was preempted only
				// looks slower, so each server's best round of 100 calls
				// is its cost.
				p, w := math.Inf(1), math.Inf(1)
				// Server time is noisy on a shared machine; the commands the
				// journal adds per call are not.
				var extra float64
				reset := func() {
					for _, c := range []*redis.Client{plain, wrapped} {
						c.ConfigResetStat(ctx)
					}
				}
				plain.FlushAll(ctx)
				wrapped.FlushAll(ctx)
				reset()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					a := lc.args(i)
					if err := callPlain(lc.keys, a); err != nil {
						b.Fatalf("plain: %v", err)
					}
					if err := callWrapped(lc.keys, a); err != nil {
						b.Fatalf("wrapped: %v", err)
					}
					if lc.after != "" {
						for _, c := range []*redis.Client{plain, wrapped} {
							if err := c.Eval(ctx, lc.after, lc.keys).Err(); err != nil && err != redis.Nil {
								b.Fatalf("after: %v", err)
							}
						}
					}
					if i%100 == 99 || i == b.N-1 {
						b.StopTimer()
						p = math.Min(p, usecPerCall(b, ctx, plain, mode))
						w = math.Min(w, usecPerCall(b, ctx, wrapped, mode))
						extra = nested(b, ctx, wrapped, mode) - nested(b, ctx, plain, mode)
						reset()
						b.StartTimer()
					}
				}
				b.StopTimer()
				b.ReportMetric(extra, "extra-calls")
				b.ReportMetric(p, "plain-us")
				b.ReportMetric(w, "wrapped-us")
				b.ReportMetric(w/p, "ratio")
			})
		}
	}
}

// load installs body on c, as a script or as a one-function library, as
// the bundler ships it transactional when wrap is set (with the runtime
// even when not needed under -prelude.always), and returns the call. An
// error reply fails the benchmark: the arguments are chosen to keep each
// limiter on its writing path, and an early refusal (say, of an argument)
// would measure nothing of the journal.
func load(b *testing.B, ctx context.Context, c *redis.Client, mode, body string, wrap bool) func(keys []string, args []any) error {
	b.Helper()
	if mode == "evalsha" {
		src := body
		switch {
		case wrap && *alwaysWrap:
			src = Wrap(body)
		case wrap:
			src = Ship(body)
		}
		sha, err := c.ScriptLoad(ctx, src).Result()
		if err != nil {
			b.Fatal(err)
		}
		return func(keys []string, args []any) error {
			return c.EvalSha(ctx, sha, keys, args...).Err()
		}
	}
	fnBody, declare := body, false
	switch {
	case wrap && *alwaysWrap:
		fnBody = Run(body)
		declare = Declared(fnBody)
	case wrap:
		fnBody, declare = ShipFunction(body)
	}
	code := "local function f(KEYS, ARGV)\n" + fnBody + "end\nredis.register_function('f', f)\n"
	if declare {
		code = Declare(code) + code
	}
	if err := c.FunctionLoadReplace(ctx, "#!lua name=bench\n"+code).Err(); err != nil {
		b.Fatal(err)
	}
	return func(keys []string, args []any) error {
		return c.FCall(ctx, "f", keys, args...).Err()
	}
}

func usecPerCall(b *testing.B, ctx context.Context, c *redis.Client, mode string) float64 {
	b.Helper()
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_"+mode+":") {
			continue
		}
		for _, f := range strings.Split(strings.TrimSpace(line), ",") {
			if v, ok := strings.CutPrefix(f, "usec_per_call="); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					b.Fatal(err)
				}
				return x
			}
		}
	}
	b.Fatalf("no cmdstat_%s in INFO commandstats", mode)
	return 0
}

// nested is how many commands a script ran per call since the last
// CONFIG RESETSTAT: every command but the calls themselves and the
// benchmark's own.
func nested(b *testing.B, ctx context.Context, c *redis.Client, mode string) float64 {
	b.Helper()
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total, outer float64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.ParseFloat(n, 64)
		if err != nil {
			b.Fatal(err)
		}
		switch name {
		case "cmdstat_" + mode:
			outer = v
		case "cmdstat_config|resetstat", "cmdstat_info":
		default:
			total += v
		}
	}
	if outer == 0 {
		b.Fatalf("no cmdstat_%s in INFO commandstats", mode)
	}
	return total / outer
}
