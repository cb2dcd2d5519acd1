package transactional

import (
	"fmt"
	"testing"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// TestSinkMatchesRESP holds the sink, which turns miniredis's replies into
// Lua values directly, to the RESP path it replaced (write RESP, parse it,
// replyToLua), which the differential suite holds to a real Redis: two
// engines with the same data run the same commands, one each way, and
// every reply must convert to the same Lua value, error or not, in RESP2
// and RESP3. The commands cover every kind of reply miniredis writes,
// nested arrays, maps, sets, doubles, and the raw RESP of the engine's own
// commands (DUMP, COPY) and of COMMAND.
func TestSinkMatchesRESP(t *testing.T) {
	setup := [][]string{
		{"SET", "s", "v"}, {"HSET", "h", "a", "1", "b", "2"}, {"RPUSH", "l", "x", "y", "z"},
		{"SADD", "set", "m1", "m2"}, {"ZADD", "z", "1.5", "a", "2", "b"},
		{"XADD", "st", "1-1", "f", "v"}, {"XADD", "st", "2-1", "g", "w", "h", "u"},
	}
	cmds := [][]string{
		{"GET", "s"}, {"GET", "nope"}, {"SET", "s2", "v", "GET"}, {"SET", "s3", "x"}, {"INCR", "s"},
		{"INCR", "n"}, {"INCRBYFLOAT", "f", "1.25"}, {"HGETALL", "h"}, {"HMGET", "h", "a", "zz", "b"},
		{"HGET", "h", "zz"}, {"LRANGE", "l", "0", "-1"}, {"LPOP", "l", "0"}, {"LPOP", "nope", "2"},
		{"SMEMBERS", "set"}, {"SISMEMBER", "set", "m1"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
		{"ZSCORE", "z", "a"}, {"ZSCORE", "z", "none"}, {"ZPOPMIN", "z"}, {"ZRANDMEMBER", "z", "-2", "WITHSCORES"},
		{"XRANGE", "st", "-", "+"}, {"XINFO", "STREAM", "st"}, {"TYPE", "h"}, {"TTL", "h"}, {"PING"},
		{"SCAN", "0"}, {"HSCAN", "h", "0"}, {"TIME"}, {"DUMP", "s"}, {"DUMP", "nope"}, {"COPY", "h", "h2"},
		{"COPY", "h", "h2"}, {"COMMAND", "INFO", "get"}, {"OBJECT", "ENCODING", "l"}, {"LPUSH", "s", "x"},
		{"HINCRBY", "h", "a", "x"}, {"EXPIRE", "h", "10", "XX", "NX"}, {"DEL", "h2", "s3"}, {"EXISTS", "s", "l"},
		{"ZADD", "z", "NX", "XX", "1", "a"}, {"LPOS", "l", "y", "COUNT", "0"}, {"SINTERSTORE", "e", "set", "nope"},
	}
	type outcome struct {
		value string
		err   bool
	}
	run := func(viaSink, resp3 bool) []outcome {
		e := newEngine(t)
		for _, c := range setup {
			mustDo(t, e, c...)
		}
		L := lua.NewState(lua.Options{SkipOpenLibs: true})
		defer L.Close()
		var out []outcome
		e.m.Lock()
		defer e.m.Unlock()
		miniredis.PrepareNested(e.inner, 0, "sha")
		for _, c := range cmds {
			if viaSink {
				s := e.dispatchToLua(L, e.scriptCmdFor(c[0]), c, resp3)
				if !s.done {
					t.Fatalf("%q: the sink got no complete reply", c)
				}
				out = append(out, outcome{luaString(s.value), s.isErr})
				continue
			}
			reply, _, err := resp.Parse(e.dispatchInner(c, resp3))
			if err != nil {
				t.Fatalf("%q: %v", c, err)
			}
			_, isErr := reply.(*Error)
			out = append(out, outcome{luaString(replyToLua(L, reply, resp3)), isErr})
		}
		return out
	}
	for _, resp3 := range []bool{false, true} {
		want, got := run(false, resp3), run(true, resp3)
		for i, c := range cmds {
			if got[i] != want[i] {
				t.Errorf("%q (resp3 %v): sink gave %v, RESP path %v", c, resp3, got[i], want[i])
			}
		}
	}
}

// TestSinkNesting: aggregates nested in aggregates, empty ones among them,
// close where RESP would close them, and only the first reply is kept.
func TestSinkNesting(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	var s luaSink
	s.reset(L, true)
	s.Array(3)
	s.Map(1)
	s.Bulk("k")
	s.Array(0)
	s.Set(2)
	s.Int(1)
	s.Array(-1)
	s.Double(0.5)
	s.Int(99) // a second reply: not read, as resp.Parse reads one
	raw := "*3\r\n%1\r\n$1\r\nk\r\n*0\r\n~2\r\n:1\r\n*-1\r\n,0.5\r\n"
	want, _, err := resp.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !s.done || s.isErr {
		t.Fatalf("done %v, isErr %v", s.done, s.isErr)
	}
	if got, want := luaString(s.value), luaString(replyToLua(L, want, true)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// luaString renders a Lua value with its type, tables by their entries.
func luaString(v lua.LValue) string {
	t, ok := v.(*lua.LTable)
	if !ok {
		return fmt.Sprintf("%s(%s)", v.Type(), v.String())
	}
	s := "{"
	t.ForEach(func(k, e lua.LValue) { s += luaString(k) + "=" + luaString(e) + "," })
	return s + "}"
}
