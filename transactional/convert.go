package transactional

import (
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/transactional/internal/lua51"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// maxReplyDepth bounds the Lua→RESP conversion, so a table that contains
// itself ends in an error instead of unbounded recursion, at the depth where
// Redis's lua_checkstack gives up (LUAI_MAXCSTACK).
const maxReplyDepth = 7994

// writeLuaReply converts a script's return value to a RESP reply, exactly as
// Redis 7's luaReplyToRedisReply: numbers truncate to integers, false is
// null (or a RESP3 false after redis.setresp(3)), tables with err/ok are
// error/status replies, tables with map/set/double/big_number/
// verbatim_string are the RESP3 types, and other tables are arrays that stop
// at the first nil.
func writeLuaReply(w *resp.Writer, v lua.LValue, resp3 bool, depth int) {
	if depth > maxReplyDepth {
		w.ErrorReply(miniredis.MsgLuaStackLimit)
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.Bulk(string(v))
	case lua.LBool:
		if resp3 {
			w.Boolean(bool(v))
		} else if v {
			w.Integer(1)
		} else {
			w.Null()
		}
	case lua.LNumber:
		w.Integer(lua51.Integer(float64(v)))
	case *lua.LTable:
		writeLuaTable(w, v, resp3, depth)
	default:
		w.Null()
	}
}

func writeLuaTable(w *resp.Writer, t *lua.LTable, resp3 bool, depth int) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		w.ErrorReply(string(e))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Status(string(s))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if b, ok := t.RawGetString("big_number").(lua.LString); ok {
		// luaReplyToRedisReply maps CR and LF to spaces (sdsmapchars).
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(b)))
		return
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		var keys, vals []lua.LValue
		m.ForEach(func(k, v lua.LValue) {
			keys = append(keys, k)
			vals = append(vals, v)
		})
		w.MapLen(len(keys))
		for i := range keys {
			writeLuaReply(w, keys[i], resp3, depth+1)
			writeLuaReply(w, vals[i], resp3, depth+1)
		}
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		var keys []lua.LValue
		s.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		w.SetLen(len(keys))
		for _, k := range keys {
			writeLuaReply(w, k, resp3, depth+1)
		}
		return
	}
	if vs, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		format, _ := vs.RawGetString("format").(lua.LString)
		str, _ := vs.RawGetString("string").(lua.LString)
		w.Verbatim(string(format), string(str))
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		writeLuaReply(w, t.RawGetInt(i), resp3, depth+1)
	}
}

// replyToLua converts a command's reply to Lua as Redis's
// redisProtocolToLuaType does. Error replies become {err=...} tables.
func replyToLua(L *lua.LState, v any, resp3 bool) lua.LValue {
	switch v := v.(type) {
	case nil:
		return nullToLua(resp3)
	case int64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case Status:
		return wrapTable(L, "ok", lua.LString(v))
	case *Error:
		return errorReplyTable(L, v.Msg)
	case []any:
		t := L.CreateTable(len(v), 0)
		for i, e := range v {
			t.RawSetInt(i+1, replyToLua(L, e, resp3))
		}
		return t
	case Map:
		m := L.CreateTable(0, len(v))
		for _, e := range v {
			m.RawSet(replyToLua(L, e.Key, resp3), replyToLua(L, e.Value, resp3))
		}
		return wrapTable(L, "map", m)
	case Set:
		m := L.CreateTable(0, len(v))
		for _, e := range v {
			m.RawSet(replyToLua(L, e, resp3), lua.LTrue)
		}
		return wrapTable(L, "set", m)
	case float64:
		return wrapTable(L, "double", lua.LNumber(v))
	case bool:
		return lua.LBool(v)
	case BigNumber:
		return wrapTable(L, "big_number", lua.LString(v))
	case Verbatim:
		vs := L.CreateTable(0, 2)
		vs.RawSetString("format", lua.LString(v.Format))
		vs.RawSetString("string", lua.LString(v.Text))
		return wrapTable(L, "verbatim_string", vs)
	case Push:
		return replyToLua(L, []any(v), resp3)
	}
	return lua.LNil
}

// nullToLua is a null reply in Lua: false in RESP2, nil in RESP3.
func nullToLua(resp3 bool) lua.LValue {
	if resp3 {
		return lua.LNil
	}
	return lua.LFalse
}

// wrapTable is {field = v}, the form of statuses and RESP3's typed replies.
func wrapTable(L *lua.LState, field string, v lua.LValue) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString(field, v)
	return t
}

// errorReplyTable is an error reply in Lua, with the flag Redis 7.0 adds.
func errorReplyTable(L *lua.LState, msg string) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(msg))
	t.RawSetString("ignore_error_stats_update", lua.LTrue)
	return t
}
