package transactional

import (
	"context"
	"fmt"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestXpcallMatchesRedis: xpcall's handler gets a runtime error in Lua
// 5.1's words, as redis-server 7.0's Lua gives it. Before, the handler got
// gopher-lua's ("attempt to index a non-table object(nil) with key 'x'"),
// and a script wrapped in the inline journal, which runs its body under
// xpcall, failed with other words than the same script unwrapped
// (TestJournalProperty, run 3069 of seed 11).
func TestXpcallMatchesRedis(t *testing.T) {
	srv := redistest.Start(t)
	client := srv.Client(t)
	e := New()
	t.Cleanup(e.Close)
	for _, src := range []string{
		"local ok, r = xpcall(function() local t = nil; t.x = 3 end, function(e) return e end) return {tostring(ok), r}",
		"local ok, r = xpcall(function(...) redis.call('RPUSH', KEYS[1], 'e') local t = nil; t.x = 3 end, function(e) return e end) return r",
		"local ok, r = xpcall(function() local s = 'a' + 1 end, function(e) return 'h: ' .. e end) return r",
		"local ok, r = xpcall(function() local t = {} return t.a.b end, function(e) return e end) return r",
		"local ok, r = xpcall(function() return #nil end, function(e) return e end) return r",
		"local ok, r = xpcall(function() error('x') end, function(e) return e end) return r",
		"local ok, r = xpcall(function() error({1}) end, function(e) return type(e) end) return r",
		"local ok, r = xpcall(function() redis.call('nope') end, function(e) return e.err end) return r",
		"local ok, r = xpcall(function() redis.call('nope') end, function(e) return e end) return r",
		"return {xpcall(function() return 1, 2 end, function(e) return e end)}",
		"local t = nil; local ok, r = xpcall(function() t.x = 1 end, function(e) return e end) return r",
		"local ok, r = xpcall(function() local t = nil; t.x = 3 end, function(e) error('again') end) return tostring(ok)",
	} {
		want, werr := client.Eval(context.Background(), src, []string{"xk"}).Result()
		got, gerr := e.Do("EVAL", src, "1", "xk")
		if gerr != nil {
			got = nil // go-redis gives no value beside an error reply
		}
		if w, g := fmt.Sprintf("%v | %v", want, werr), fmt.Sprintf("%v | %v", got, gerr); w != g {
			t.Errorf("%s\n engine %s\n redis  %s", src, g, w)
		}
	}
}
