package luaflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
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

// TestDropped: a site is Dropped when its call is a statement of its own,
// in the main chunk or a function, directly or through an alias; not when
// its reply is assigned, returned or passed on.
func TestDropped(t *testing.T) {
	code := `local rcall = redis.call
local function trim(k)
  rcall('XTRIM', k, 'MAXLEN', '~', 5)
  return rcall('XLEN', k)
end
redis.call('XADD', KEYS[1], '*', 'f', 'v')
local n = redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', 5)
trim(KEYS[1])
redis.pcall('DEL', KEYS[2])
return {n, redis.call('GET', KEYS[3])}
`
	an := Analyze(code)
	var got []string
	for _, s := range an.Sites {
		cmd := s.Args[0].(*ast.StringExpr).Value
		got = append(got, fmt.Sprintf("%s:%v", cmd, an.Dropped[s]))
	}
	want := "XTRIM:true XLEN:false XADD:true XTRIM:false DEL:true GET:false"
	if strings.Join(got, " ") != want {
		t.Errorf("dropped %q, want %q", strings.Join(got, " "), want)
	}
}
