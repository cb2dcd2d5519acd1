package prelude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/clustertest"
)

// limiterSequences drive each limiter of lua/ratelimit through allowed and
// denied requests on a clock the test supplies (now_ms), so that the
// wrapped and the plain script see the same inputs. gate and queue read
// the server's clock and are left out: their replies depend on it.
var limiterSequences = map[string]func(i int, now int64) []any{
	"token_bucket": func(i int, now int64) []any { return []any{5, 1, 1000, 1 + i%3, now} },
	"gcra":         func(i int, now int64) []any { return []any{5, 3, 1000, 1, now} },
	"cl_throttle":  func(i int, now int64) []any { return []any{3, 5, 1, 1, now} },
	"credits":      func(i int, now int64) []any { return []any{10, 1000, 1 + i%4, now} },
	"concurrency": func(i int, now int64) []any {
		return []any{3, "r" + strconv.Itoa(i%5), 500, strconv.Itoa(boolInt(i%4 == 0)), now}
	},
	"window": func(i int, now int64) []any { return []any{"[[1000, 5], [10000, 20, 1000]]", 1, now} },
	"log":    func(i int, now int64) []any { return []any{"[[1000, 3]]", 1, now} },
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var expiresAt = regexp.MustCompile(`expires=[1-9]\d*`)

// TestLimitersUnchanged runs the library's limiters wrapped and plain, side
// by side on keys of their own, through EVAL and FCALL, on a single
// redis-server and on a 3-primary cluster: every reply and the keyspace
// after each call must be the same (expiries compared as set or not, since
// the limiters set them relative to the server's clock).
func TestLimitersUnchanged(t *testing.T) {
	ctx, single := start(t)
	cluster := clustertest.Start(t).Client(t)
	for name, args := range limiterSequences {
		src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", name+".lua"))
		if os.IsNotExist(err) {
			t.Logf("%s: not in the library (yet)", name)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		body := string(src)
		code := "local function tx(KEYS, ARGV)\n" + Run(body) + "end\n" +
			"local function plain(KEYS, ARGV)\n" + body + "end\n" +
			"redis.register_function('tx', tx) redis.register_function('plain', plain)\n"
		lib := "#!lua name=lim\n" + Declare(code) + code
		for _, target := range []struct {
			name string
			c    redis.UniversalClient
			load func() error
		}{
			{"single", single, func() error { return single.FunctionLoadReplace(ctx, lib).Err() }},
			{"cluster", cluster, func() error {
				return cluster.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
					return n.FunctionLoadReplace(ctx, lib).Err()
				})
			}},
		} {
			if err := target.load(); err != nil {
				t.Fatalf("%s: FUNCTION LOAD: %v", target.name, err)
			}
			for _, mode := range []string{"eval", "fcall"} {
				c := target.c
				// One slot for both keys, so that each pair of calls runs
				// in one MULTI: run apart, on a loaded machine the second's
				// key could expire on the server's clock before the
				// first's did (gcra's, whose TTL can be 200 ms).
				wk, pk := []string{"{lim}w" + name}, []string{"{lim}p" + name}
				c.Del(ctx, wk[0])
				c.Del(ctx, pk[0])
				now := time.Now().UnixMilli()
				for i := 0; i < 60; i++ {
					now += int64(i%7) * 97
					a := args(i, now)
					var got, want *redis.Cmd
					pipe := c.TxPipeline()
					if mode == "eval" {
						got, want = pipe.Eval(ctx, Wrap(body), wk, a...), pipe.Eval(ctx, body, pk, a...)
					} else {
						got, want = pipe.FCall(ctx, "tx", wk, a...), pipe.FCall(ctx, "plain", pk, a...)
					}
					pipe.Exec(ctx) // each call's error is its own, compared below
					if fmt.Sprint(got.Val()) != fmt.Sprint(want.Val()) || errText(got.Err()) != errText(want.Err()) {
						t.Fatalf("%s/%s/%s call %d %v: wrapped %v, %v; plain %v, %v", target.name, mode, name, i, a, got.Val(), got.Err(), want.Val(), want.Err())
					}
					// The two keys are read one after the other on a real
					// clock: one may expire between the reads (or inside
					// one), so a difference is read again until it settles,
					// for a little longer than that race can last.
					var w, p string
					for wait := 0; ; wait++ {
						w = strings.ReplaceAll(describe(t, ctx, c, wk), "{lim}w", "")
						p = strings.ReplaceAll(describe(t, ctx, c, pk), "{lim}p", "")
						if expiresAt.ReplaceAllString(w, "expires=set") == expiresAt.ReplaceAllString(p, "expires=set") {
							break
						}
						if wait == 6 {
							t.Fatalf("%s/%s/%s call %d: wrapped left\n%s\nplain left\n%s", target.name, mode, name, i, w, p)
						}
						time.Sleep(50 * time.Millisecond)
					}
				}
			}
		}
	}
}
