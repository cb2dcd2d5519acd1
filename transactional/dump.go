package transactional

import (
	"encoding/binary"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// luaHeader is the header of a Lua 5.1 binary chunk as Redis's string.dump
// writes it on x86-64 (lundump.c's luaU_header): signature, version 5.1,
// format 0, little-endian, 4-byte int, 8-byte size_t, 4-byte instruction,
// 8-byte number, numbers not integral.
const luaHeader = "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"

// stringDump is string.dump. Redis's Lua has it, and its loadstring
// refuses binary chunks (they fail to parse as text), so a dump can be
// looked at but never run: what a script can observe is the header and
// the source name after it (a size_t length, the name, a NUL), which are
// Redis's; gopher-lua's bytecode is not Lua 5.1's, so nothing follows.
func stringDump(L *lua.LState) int {
	fn := L.CheckFunction(1)
	if fn.IsG {
		L.RaiseError("unable to dump given function")
	}
	b := []byte(luaHeader)
	src := "=?"
	if fn.Proto != nil {
		src = "@" + fn.Proto.SourceName
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(src)+1))
	b = append(b, src...)
	b = append(b, 0)
	L.Push(lua.LString(b))
	return 1
}
