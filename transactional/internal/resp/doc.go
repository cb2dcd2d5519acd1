// Package resp holds the Redis protocol as the engine speaks it: the reply
// types a caller of the engine gets (RESP2 and RESP3), a parser that reads
// both protocols and nested errors exactly (miniredis's own knows only
// RESP2 and stops at the first nested error), and a Writer that writes a
// reply in the protocol a connection speaks, degrading RESP3 types as
// Redis's addReply* functions do, or hands it over as Go values (GoReply)
// for in-process callers that would only parse it back.
//
// It is a package of its own because it knows neither Lua nor the
// keyspace: the engine's sandbox, its command fixes and its in-process
// API all write and read replies through it. package transactional names
// the reply types again (transactional.Status, transactional.Error, …),
// so callers never import this one.
//
// It may import the standard library and the gopher-lua copy (for
// Lua's number formatting, which Redis's doubles share). It must not
// import package transactional or its other parts.
package resp
