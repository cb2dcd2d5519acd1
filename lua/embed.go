// Package lua is scriptgen's standard library of Redis Lua scripts, embedded
// so that tools and tests can use it without the source tree.
package lua

import "embed"

// FS holds every script and its *_test.lua file, by directory
// ("ratelimit/gate.lua").
//
//go:embed ratelimit/*.lua
var FS embed.FS
