package prelude

import (
	"strings"
	"testing"
)

// TestRenderKeepsWhatIsNamed: a script pays only for the handlers of the
// commands it names (and the helpers they share), and every spelling it
// uses is in the write table, once.
func TestRenderKeepsWhatIsNamed(t *testing.T) {
	lua, w := render("redis.call('hset', KEYS[1], 'a', 1) return redis.call('GET', KEYS[2])")
	if !strings.Contains(lua, "op == 'h_hset'") || !strings.Contains(lua, "op == 'fields'") || !strings.Contains(lua, "op == 'rget'") ||
		strings.Contains(lua, "op == 'h_zadd'") || strings.Contains(lua, "op == 'keepttl'") {
		t.Errorf("handlers rendered:\n%s", lua)
	}
	if w != `{["GET"] = 'rget', ["hset"] = 'h_hset'}` {
		t.Errorf("W = %s", w)
	}
	_, w = render("redis.call('FLUSHALL') redis.call('ZUNIONSTORE', 'd', 1, 's') redis.call('MSET', 'a', 1) redis.call('TIME')")
	for _, e := range []string{`["FLUSHALL"] = 'x'`, `["ZUNIONSTORE"] = 'g'`, `["MSET"] = {1, -1, 2}`, `["TIME"] = false`} {
		if !strings.Contains(w, e) {
			t.Errorf("W lacks %s: %s", e, w)
		}
	}
}
