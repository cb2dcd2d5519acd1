package lint

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
)

// argScripts read Lua 5.1's implicit arg table in vararg functions.
var argScripts = []string{
	"local function f(...) return arg[1] .. arg.n end\nreturn f('a', 'b')",
	"local function f(a, ...) return {a, arg.n, arg[1]} end\nreturn f('x', 'y')",
	// A body that reads ... itself gets no arg table: arg is a nil local.
	"local function f(...) local x = ... return tostring(arg) .. x end\nreturn f('a')",
	"local t = {}\nt.f = function(...) return #arg end\nreturn t.f(1, 2, 3)",
}

// TestArgInVarargFunctions: Redis builds Lua with LUA_COMPAT_VARARG, so arg
// is a local of every vararg function. The linter must not call it a
// global, and the engine must answer as redis-server does.
func TestArgInVarargFunctions(t *testing.T) {
	for _, src := range argScripts {
		if got := lintSrc(src); got != "" {
			t.Errorf("%q: %s", src, got)
		}
	}
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	e := transactional.New()
	defer e.Close()
	for _, src := range argScripts {
		want, werr := rdb.Eval(ctx, src, nil).Result()
		got, gerr := e.Do("EVAL", src, "0")
		if werr != nil || gerr != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: engine %v (%v), redis-server %v (%v)", src, got, gerr, want, werr)
		}
	}
}

// laterLua are scripts in a later Lua's syntax, which Redis's Lua 5.1
// refuses: each must be a syntax finding with Lua 5.1's own message, at
// the line Redis names, and the reason.
var laterLua = []string{
	"local n = 0\ngoto done\nreturn n",
	"local x = 7 // 2\nreturn x",
	"local x = 6 & 3\nreturn x",
	"return 6 | 3",
	"local x = ~1\nreturn x",
	"local x = 1\nx = x ~ 2\nreturn x",
	"local x = 1 << 2\nreturn x",
	"local x = 8 >> 2\nreturn x",
	"local n = 0\n::done::\nreturn n",
	"for i = 1, 3 do\n  if i == 2 then goto continue end\n  ::continue::\nend",
	"local a, b = 1, 2\nif a & b then return 1 end",
	"local a, b = 1, 2\nwhile a | b do end",
	"local a = 1\nlocal t = {a & 1}\nreturn t",
	"local a = 1\nreturn tostring(a | 1)",
	"local function f(a)\n  return a ~ 1\nend\nreturn f(1)",
	"local x <const> = 1\nreturn x",
}

// TestLaterLuaSyntax checks each syntax finding against redis-server's
// EVAL error for the same script.
func TestLaterLuaSyntax(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := regexp.MustCompile(`^ERR Error compiling script \(new function\): user_script:(\d+): (.*)$`)
	for _, src := range laterLua {
		err := rdb.Eval(ctx, src, nil).Err()
		m := prefix.FindStringSubmatch(strings.TrimSpace(fmt.Sprint(err)))
		if m == nil {
			t.Errorf("%q: redis-server %v", src, err)
			continue
		}
		fs := Source(Options{}, "p.lua", []byte(src))
		want := fmt.Sprintf("p.lua:%s:", m[1])
		if len(fs) != 1 || fs[0].Rule != RuleSyntax || !strings.HasPrefix(fs[0].String(), want) ||
			!strings.HasPrefix(fs[0].Msg, "lua: "+m[2]+": ") || !strings.Contains(fs[0].Msg, "; Redis runs Lua 5.1") {
			t.Errorf("%q: lint %v; redis-server says line %s: %s", src, fs, m[1], m[2])
		}
	}
}
