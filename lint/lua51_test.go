package lint

import (
	"context"
	"fmt"
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
