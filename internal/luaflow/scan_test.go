package luaflow

import (
	"reflect"
	"testing"
)

func TestLiterals(t *testing.T) {
	src := `-- 'not' "this"
--[==[ 'nor' ]] "this" ]==]
local a = 'HSET' .. "x\"y" .. [[long]] .. [=[l]]ong]=]
redis.call('zadd') -- 'tail'`
	want := []string{"HSET", `x\"y`, "long", "l]]ong", "zadd"}
	if got := Literals(src); !reflect.DeepEqual(got, want) {
		t.Fatalf("literals = %q, want %q", got, want)
	}
}
