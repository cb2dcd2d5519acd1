package transactional

import (
	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// luaSink turns the reply of a script's redis.call into its Lua value as
// miniredis writes it, with no RESP in between: the conversions are
// replyToLua's, event by event, through the same helpers. The first
// complete reply is the one kept, as resp.Parse reads only the first.
type luaSink struct {
	L     *lua.LState
	resp3 bool
	open  []sinkFrame // arrays, maps and sets still being filled
	value lua.LValue  // the reply, once complete
	isErr bool        // the reply is an error reply
	done  bool
}

// sinkFrame is an aggregate still being filled: n values of which i have
// come. A map's keys and values count separately; key holds a map's
// pending key.
type sinkFrame struct {
	t    *lua.LTable // the array, or the inner table of a map or set
	kind byte        // '*', '%' or '~'
	n, i int
	key  lua.LValue
}

func (s *luaSink) reset(L *lua.LState, resp3 bool) {
	s.L, s.resp3 = L, resp3
	s.open = s.open[:0]
	s.value, s.isErr, s.done = nil, false, false
}

// put hands a complete value to the innermost open aggregate, closing
// every aggregate it completes, or makes it the reply.
func (s *luaSink) put(v lua.LValue) {
	for {
		if s.done {
			return
		}
		if len(s.open) == 0 {
			s.value, s.done = v, true
			return
		}
		f := &s.open[len(s.open)-1]
		f.i++
		switch f.kind {
		case '*':
			f.t.RawSetInt(f.i, v)
		case '%':
			if f.i%2 == 1 {
				f.key = v
			} else {
				f.t.RawSet(f.key, v)
			}
		case '~':
			f.t.RawSet(v, lua.LTrue)
		}
		if f.i < f.n {
			return
		}
		v = s.close(f)
		s.open = s.open[:len(s.open)-1]
	}
}

// close is the Lua value of a filled aggregate.
func (s *luaSink) close(f *sinkFrame) lua.LValue {
	switch f.kind {
	case '%':
		return wrapTable(s.L, "map", f.t)
	case '~':
		return wrapTable(s.L, "set", f.t)
	}
	return f.t
}

// begin opens an aggregate of n values, or puts an empty one.
func (s *luaSink) begin(kind byte, n int) {
	var t *lua.LTable
	if kind == '*' {
		t = s.L.CreateTable(n, 0)
	} else {
		t = s.L.CreateTable(0, n)
	}
	f := sinkFrame{t: t, kind: kind, n: n}
	if kind == '%' {
		f.n = 2 * n
	}
	if f.n == 0 {
		s.put(s.close(&f))
		return
	}
	s.open = append(s.open, f)
}

func (s *luaSink) Error(msg string) {
	if len(s.open) == 0 && !s.done {
		s.isErr = true
	}
	s.put(errorReplyTable(s.L, msg))
}

func (s *luaSink) Status(v string)  { s.put(wrapTable(s.L, "ok", lua.LString(v))) }
func (s *luaSink) Int(n int)        { s.put(s.L.Number(lua.LNumber(n))) }
func (s *luaSink) Bulk(v string)    { s.put(lua.LString(v)) }
func (s *luaSink) Null()            { s.put(nullToLua(s.resp3)) }
func (s *luaSink) Double(f float64) { s.put(wrapTable(s.L, "double", lua.LNumber(f))) }

func (s *luaSink) Array(n int) {
	if n < 0 {
		s.Null()
		return
	}
	s.begin('*', n)
}

func (s *luaSink) Push(n int) { s.begin('*', n) }
func (s *luaSink) Map(n int)  { s.begin('%', n) }
func (s *luaSink) Set(n int)  { s.begin('~', n) }

// Raw is a reply the engine made as RESP itself (the replies inner.go
// reshapes, COMMAND): parsed and converted as the RESP path does.
func (s *luaSink) Raw(b string) {
	for len(b) > 0 && !s.done {
		reply, n, err := resp.Parse([]byte(b))
		if err != nil {
			s.Error("ERR " + err.Error())
			return
		}
		if _, ok := reply.(*Error); ok && len(s.open) == 0 {
			s.isErr = true
		}
		s.put(replyToLua(s.L, reply, s.resp3))
		b = b[n:]
	}
}
