// Package lualib holds the Lua libraries Redis 7 adds to its Lua 5.1 for
// scripts: cjson, cmsgpack, struct and bit, written after the C sources
// Redis bundles (deps/lua/src), with their error texts. miniredis's own
// (gopher-json and friends) encode {} as [] and have no cjson.null, so the
// engine loads these instead.
//
// They are a package of their own because they are pure functions of Lua
// values: they know nothing of keys, commands or the engine, and the
// differential tests in package transactional (TestCodecsMatchRedis)
// check them against a real redis-server through the engine.
//
// It may import the gopher-lua copy and package lua51 (Lua 5.1's number
// and string conversions). It must not import package transactional or
// anything of the keyspace: data flows from here into the engine's
// sandbox, never back.
package lualib

import lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"

// Open makes the four libraries in L, by the global name Redis gives each.
// The tables are writable: the caller protects them as it does the
// standard libraries.
func Open(L *lua.LState) map[string]*lua.LTable {
	return map[string]*lua.LTable{
		"cjson":    openCjson(L),
		"bit":      openBit(L),
		"struct":   openStruct(L),
		"cmsgpack": openCmsgpack(L),
	}
}

// IsNull says whether v is cjson.null, which Lua 5.1's tostring prints as
// a NULL pointer ("userdata: (nil)").
func IsNull(v lua.LValue) bool {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return false
	}
	_, null := ud.Value.(cjsonNull)
	return null
}
