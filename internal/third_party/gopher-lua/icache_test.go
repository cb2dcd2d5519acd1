package lua

import "testing"

// TestInlineCache: a get with a constant key caches where it found the
// key in a read-only table. The entry must follow the table it was made
// for (two tables, the key at different slots), see values Go stores
// there later, fall back to __index once the key holds nil, and leave
// tables that are not read-only alone.
func TestInlineCache(t *testing.T) {
	L := NewState()
	defer L.Close()
	a, b := L.NewTable(), L.NewTable()
	a.RawSetString("x", LString("a.x"))
	b.RawSetString("pad", LTrue) // x at another slot in b
	b.RawSetString("x", LString("b.x"))
	a.SetReadOnly(true)
	b.SetReadOnly(true)
	fallback := L.NewTable()
	fallback.RawSetString("__index", L.NewFunction(func(L *LState) int {
		L.Push(LString("from __index"))
		return 1
	}))
	L.SetMetatable(a, fallback)
	L.SetGlobal("a", a)
	L.SetGlobal("b", b)
	w := L.NewTable()
	L.SetGlobal("w", w)
	if err := L.DoString(`function get(t) return t.x end`); err != nil {
		t.Fatal(err)
	}
	get := func(tb *LTable) string {
		t.Helper()
		if err := L.CallByParam(P{Fn: L.GetGlobal("get"), NRet: 1, Protect: true}, tb); err != nil {
			t.Fatal(err)
		}
		v := L.Get(-1)
		L.Pop(1)
		return v.String()
	}
	for i, c := range []struct {
		tb   *LTable
		set  func()
		want string
	}{
		{a, nil, "a.x"},
		{a, nil, "a.x"},
		{b, nil, "b.x"},
		{a, nil, "a.x"},
		{b, func() { b.RawSetString("x", LString("b2")) }, "b2"},
		{a, func() { a.RawSetString("x", LString("new")) }, "new"},
		{a, func() { a.RawSetString("x", LNil) }, "from __index"},
		{a, func() { a.RawSetString("x", LString("back")) }, "back"},
		{w, func() { w.RawSetString("x", LString("w1")) }, "w1"},
		{w, func() { w.RawSetString("x", LString("w2")) }, "w2"},
	} {
		if c.set != nil {
			c.set()
		}
		if got := get(c.tb); got != c.want {
			t.Errorf("step %d: t.x = %q, want %q", i, got, c.want)
		}
	}
	if e := L.GetGlobal("get").(*LFunction).Proto.icache; e == nil {
		t.Fatal("no cache")
	}

	// A global (GETGLOBAL) in a read-only environment, the same way.
	env := L.NewTable()
	env.RawSetString("y", LString("env.y"))
	env.SetReadOnly(true)
	L.SetMetatable(env, fallback)
	fn, err := L.LoadString("return y")
	if err != nil {
		t.Fatal(err)
	}
	fn.Env = env
	for i, c := range []struct {
		set  func()
		want string
	}{
		{nil, "env.y"},
		{nil, "env.y"},
		{func() { env.RawSetString("y", LString("new")) }, "new"},
		{func() { env.RawSetString("y", LNil) }, "from __index"},
		{nil, "from __index"},
		{func() { env.RawSetString("y", LString("back")) }, "back"},
	} {
		if c.set != nil {
			c.set()
		}
		if err := L.CallByParam(P{Fn: fn, NRet: 1, Protect: true}); err != nil {
			t.Fatal(err)
		}
		if got := L.Get(-1).String(); got != c.want {
			t.Errorf("global step %d: y = %q, want %q", i, got, c.want)
		}
		L.Pop(1)
	}
}
