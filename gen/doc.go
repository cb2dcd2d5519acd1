// Package gen turns scripts (package script's model) into typed go-redis v9
// wrappers with jennifer: Go returns file name → contents and never touches
// the disk, so that `scriptgen gen -diff` and the freshness tests compare in
// memory. The Lua the wrappers send comes from package gen/bundle, the
// stage before this one, which also renders the bundle files (see there for
// their layout, helpers and includes).
//
// Imports: gen/bundle, internal/script and jennifer; nothing of the engine.
//
// A script whose keys have patterns (`key: name = pattern`, see package
// script) also gets key helpers: a function per key and a constructor of
// the keys struct that takes the shared hash tag once (see keys.go).
//
// Go wrappers are documented on Go (optional args, file layout). The Go
// package for one directory holds only what is its own: scripts.go (from
// scripts.go.tmpl), library.go and one file per script rendered with
// jennifer. What every such package needs lives once, in the public package
// scriptrt, which the generated code imports and whose version it checks at
// compile time (scriptrt.EnforceVersion). The EVAL source embedded in the
// Go code is byte-identical to the bundle's file, so both give one SHA-1.
// Output is deterministic: scripts are sorted by name, helpers by path,
// everything is gofmt'd, and nothing depends on the time, the machine or
// absolute paths.
package gen
