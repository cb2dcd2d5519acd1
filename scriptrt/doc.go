// Package scriptrt is the runtime of the Go packages that scriptgen
// generates: what every such package needs and none owns. It runs a script
// (EVALSHA with EVAL on NOSCRIPT, or FCALL of the Functions library), loads
// the library on every primary, replays a pipeline's failed calls, checks
// that keys share one cluster slot, and decodes replies; and it holds the
// error types the wrappers return.
//
// A generated package holds its own scripts (a Script each, a Library for
// all) and the typed wrappers around them, and calls this package for the
// rest. It names this package's types that its API mentions (Scripter and
// the error types) with aliases, so that callers need not import scriptrt.
// The exported API here is for generated code: it may change between
// versions, and EnforceVersion makes a mismatch fail at compile time rather
// than at run time.
//
// Being public, consumer modules import it: it may import go-redis and
// package crc, and nothing else of scriptgen; it never imports the
// generator (gen) or anything under internal.
package scriptrt
