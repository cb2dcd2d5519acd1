// Package lua51 holds what makes gopher-lua read and fail as Redis's PUC
// Lua 5.1 does, for the pieces a script sees: Compile, which first runs a
// port of Lua 5.1's lexer and parser (llex.c, lparser.c; the gopher-lua
// copy's parse.CheckLua51) so that compile errors have Lua's own words and Lua 5.2 syntax gopher-lua accepts is
// refused, and ChunkID, Lua's names for loadstring's chunks; error() with
// luaL_where's positions; runtime error texts reworded into Lua's, with the
// variable involved named from the failing instruction (varinfo.go);
// tonumber as strtod reads; and lua_tolstring's "%.14g".
//
// It is a package of its own because none of it knows Redis: it is Lua 5.1
// against gopher-lua, used by the engine's sandbox and by the Lua
// libraries (package lualib).
//
// It may import only the gopher-lua copy and the standard library. It must
// not import package transactional or its other parts.
package lua51
