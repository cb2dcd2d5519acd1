package luaflow

import (
	"strings"
	"testing"
)

func TestSiteOffsets(t *testing.T) {
	code := "-- redis.call('x')\nlocal s = 'redis.call' .. [[redis.pcall]]\nlocal t = {redis = {call = tostring}}\n" +
		"local x = redis.call('GET', redis.call('GET', KEYS[1])) t.redis.call()\n" +
		"  \tredis.pcall('SET', KEYS[1], --[[ redis.call ]] 'v')\n"
	var got []string
	for _, o := range SiteOffsets(code) {
		if !strings.HasPrefix(code[o.At:], "redis.") {
			t.Fatalf("offset %d is not at redis: %q", o.At, code[o.At:])
		}
		got = append(got, code[o.At:o.At+strings.IndexByte(code[o.At:], '(')])
	}
	if strings.Join(got, " ") != "redis.call redis.call redis.pcall" {
		t.Fatalf("sites %q", got)
	}
	an := Analyze(code)
	if len(an.Sites) != 3 {
		t.Fatalf("analyze found %d sites, want 3", len(an.Sites))
	}
}
