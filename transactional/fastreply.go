package transactional

import (
	"bytes"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// fastReplyToLua converts the replies most redis.calls get (integers, bulk
// strings, nulls and arrays of them) straight from RESP into Lua values,
// as parseReply followed by replyToLua would, without the Go values in
// between. ok is false for anything else (errors, statuses, RESP3 types, a
// malformed reply): the caller then takes the general path, which has the
// last word on every conversion rule.
func fastReplyToLua(L *lua.LState, b []byte, resp3 bool) (v lua.LValue, n int, ok bool) {
	if len(b) == 0 {
		return nil, 0, false
	}
	end := bytes.Index(b, crlf)
	if end < 1 {
		return nil, 0, false
	}
	num, numOK := atoiBytes(b[1:end])
	if !numOK {
		return nil, 0, false
	}
	next := end + 2
	switch b[0] {
	case ':':
		return luaNumber(float64(num)), next, true
	case '$':
		if num < 0 {
			return nullToLua(resp3), next, true
		}
		if int64(len(b)) < int64(next)+num+2 {
			return nil, 0, false
		}
		return lua.LString(b[next : next+int(num)]), next + int(num) + 2, true
	case '*':
		if num < 0 {
			return nullToLua(resp3), next, true
		}
		t := L.CreateTable(int(num), 0)
		for i := 1; int64(i) <= num; i++ {
			e, used, ok := fastReplyToLua(L, b[next:], resp3)
			if !ok {
				return nil, 0, false
			}
			t.RawSetInt(i, e)
			next += used
		}
		return t, next, true
	}
	return nil, 0, false
}

var crlf = []byte("\r\n")

// nullToLua is replyToLua's nil: false in RESP2, nil in RESP3.
func nullToLua(resp3 bool) lua.LValue {
	if resp3 {
		return lua.LNil
	}
	return lua.LFalse
}

// atoiBytes parses a RESP length or integer: an optional minus and at most
// 18 digits, which no reply here exceeds; anything else is left to
// strconv on the general path.
func atoiBytes(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
