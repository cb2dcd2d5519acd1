package transactional

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// errorStatsSequence is a run of commands that answer errors of several
// codes: plain commands, scripts that return or raise them, commands a
// script calls that fail (caught by pcall or not) and commands scriptCall
// refuses. Redis counts each error once, when it is made.
var errorStatsSequence = [][]any{
	{"set", "str", "v"},
	{"lpush", "str", "x"},
	{"nosuchcommand"},
	{"get"},
	{"eval", "return redis.error_reply('MY_ERR_CODE custom msg')", "0"},
	{"eval", "return redis.error_reply('')", "0"},
	{"eval", "return redis.call('select', 99)", "0"},
	{"eval", "local t = redis.pcall('select', 99) return 1", "0"},
	{"eval", "return redis.pcall('lpush', 'str', 'x')", "0"},
	{"eval", "error('boom')", "0"},
	{"eval", "error({err='CUSTOM raised'})", "0"},
	{"eval", "return {err='ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ no space in 31'}", "0"},
	{"eval", "return redis.call('nosuchcommand')", "0"},
	{"eval_ro", "return redis.call('set', 'k', 'v')", "1", "k"},
	{"eval_ro", "return redis.pcall('set', 'k', 'v')", "1", "k"},
	{"eval", "return 1 +", "0"},
	{"evalsha", "ffffffffffffffffffffffffffffffffffffffff", "0"},
	{"script", "load", "return ("},
}

// TestErrorStatsAsRedis runs errorStatsSequence on serve and on a real
// redis-server and compares INFO errorstats and total_error_replies, then
// CONFIG RESETSTAT. On the code before the counts, serve had no
// errorstat_ lines and total_error_replies stayed 0.
func TestErrorStatsAsRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs := redistest.Start(t)
	addr, _ := startServe(t, ctx, Config{Addr: "127.0.0.1:0"})
	stats := func(addr string) (string, string) {
		c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1})
		defer c.Close()
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatalf("%s: CONFIG RESETSTAT: %v", addr, err)
		}
		for _, cmd := range errorStatsSequence {
			c.Do(ctx, cmd...) // the errors are the point
		}
		got := infoSection(t, ctx, c, "errorstats") + infoField(t, ctx, c, "stats", "total_error_replies")
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatalf("%s: CONFIG RESETSTAT: %v", addr, err)
		}
		return got, infoSection(t, ctx, c, "errorstats") + infoField(t, ctx, c, "stats", "total_error_replies")
	}
	want, wantReset := stats(rs.Addr)
	got, gotReset := stats(addr)
	if got != want {
		t.Errorf("after the sequence:\nserve %q\nredis %q", got, want)
	}
	if gotReset != wantReset {
		t.Errorf("after CONFIG RESETSTAT:\nserve %q\nredis %q", gotReset, wantReset)
	}
	if !strings.Contains(want, "errorstat_MY_ERR_CODE:count=1") {
		t.Errorf("redis-server's counts lack the sequence's own code: %q", want)
	}
}

// TestCachedScriptsAsRedis compares INFO memory's number_of_cached_scripts
// after SCRIPT LOAD, EVAL (one that compiles, one that does not) and
// SCRIPT FLUSH ASYNC. On the code before, serve always said 0.
func TestCachedScriptsAsRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs := redistest.Start(t)
	addr, _ := startServe(t, ctx, Config{Addr: "127.0.0.1:0"})
	counts := func(addr string) []string {
		c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1})
		defer c.Close()
		var out []string
		look := func() { out = append(out, infoField(t, ctx, c, "memory", "number_of_cached_scripts")) }
		look()
		for i := range 5 {
			c.ScriptLoad(ctx, "return "+strconv.Itoa(i))
		}
		c.ScriptLoad(ctx, "return 0") // already cached
		look()
		c.Eval(ctx, "return 'new'", nil)
		c.Eval(ctx, "return (", nil) // does not compile: not cached
		look()
		c.ScriptFlush(ctx)
		look()
		return out
	}
	want := counts(rs.Addr)
	got := counts(addr)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("number_of_cached_scripts:\nserve %q\nredis %q", got, want)
	}
}

// infoSection is the field lines of one INFO section, title left out.
func infoSection(t *testing.T, ctx context.Context, c *redis.Client, section string) string {
	t.Helper()
	s, err := c.Info(ctx, section).Result()
	if err != nil {
		t.Fatalf("INFO %s: %v", section, err)
	}
	var lines []string
	for _, l := range strings.Split(s, "\r\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// infoField is the line of one INFO field, empty when it is missing.
func infoField(t *testing.T, ctx context.Context, c *redis.Client, section, field string) string {
	t.Helper()
	for _, l := range strings.Split(infoSection(t, ctx, c, section), "\n") {
		if strings.HasPrefix(l, field+":") {
			return l
		}
	}
	return ""
}
