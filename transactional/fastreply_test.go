package transactional

import (
	"fmt"
	"testing"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// TestFastReplyToLua checks the shortcut against the general path, which
// the differential suite holds to a real Redis: same Lua value, or a
// refusal that leaves the reply to the general path.
func TestFastReplyToLua(t *testing.T) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	cases := []struct {
		raw  string
		fast bool
	}{
		{":0\r\n", true},
		{":-42\r\n", true},
		{":9223372036854775807\r\n", false},
		{"$3\r\nabc\r\n", true},
		{"$0\r\n\r\n", true},
		{"$-1\r\n", true},
		{"*-1\r\n", true},
		{"*0\r\n", true},
		{"*3\r\n$1\r\na\r\n$-1\r\n:7\r\n", true},
		{"*2\r\n*1\r\n$2\r\nxy\r\n*0\r\n", true},
		{"*2\r\n$1\r\na\r\n-ERR x\r\n", false},
		{"+OK\r\n", false},
		{"-ERR bad\r\n", false},
		{"_\r\n", false},
		{"%1\r\n$1\r\na\r\n:1\r\n", false},
		{"$5\r\nab\r\n", false},
		{":1x\r\n", false},
	}
	for _, resp3 := range []bool{false, true} {
		for _, c := range cases {
			v, n, ok := fastReplyToLua(L, []byte(c.raw), resp3)
			if ok != c.fast {
				t.Errorf("%q (resp3 %v): fast path taken %v, want %v", c.raw, resp3, ok, c.fast)
				continue
			}
			if !ok {
				continue
			}
			if n != len(c.raw) {
				t.Errorf("%q: used %d bytes of %d", c.raw, n, len(c.raw))
			}
			want, _, err := parseReply([]byte(c.raw))
			if err != nil {
				t.Fatalf("%q: %v", c.raw, err)
			}
			if got, want := luaString(v), luaString(replyToLua(L, want, resp3)); got != want {
				t.Errorf("%q (resp3 %v): got %s, want %s", c.raw, resp3, got, want)
			}
		}
	}
}

// luaString renders a Lua value with its type, tables by their array part.
func luaString(v lua.LValue) string {
	t, ok := v.(*lua.LTable)
	if !ok {
		return fmt.Sprintf("%s(%s)", v.Type(), v.String())
	}
	s := "{"
	t.ForEach(func(k, e lua.LValue) { s += luaString(k) + "=" + luaString(e) + "," })
	return s + "}"
}
