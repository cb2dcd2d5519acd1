// Package gen turns scripts (package script's model) into the files the CLI
// writes: Bundle renders the Lua that Redis runs, Go renders typed go-redis v9
// wrappers with jennifer. Both return file name → contents and never touch
// the disk, so that `scriptgen gen -diff` and the freshness tests compare
// in memory.
//
// Bundle layout, relative to the output directory, one directory per
// library (a directory of scripts; its base name is the library name):
//
//	<lib>/<script>.lua        EVAL-ready: `#!lua flags=…` when the script has Redis
//	                          flags, the included helpers, then the source with
//	                          its header kept as comments
//	<lib>/<lib>.library.lua   `#!lua name=<lib>` for FUNCTION LOAD: the helpers
//	                          once, each script as function <lib>_<script>
//	                          registered with its flags, and <lib>_version
//	                          returning a SHA-1 of the library's code
//
// Function names carry the library prefix because Redis keeps all functions
// of all libraries in one namespace. A file that another script of its
// directory includes (`--! include: x.lua`) is a helper, not an entry point:
// it is pasted into its includers and gets no wrapper of its own. In a
// library a helper runs once at load time, outside any call, so it may only
// define functions and constants; KEYS and ARGV reach it as parameters.
//
// BullMQ's include form, a `--- @include "path"` comment line, is resolved
// as package lint resolves it and pasted where the line is, recursively,
// each file once per script (see include.go): such helpers may use the
// includer's locals, so in a library they go into each function's body.
// A file that either form includes is a helper, never an entry point.
//
// A script whose keys have patterns (`key: name = pattern`, see package
// script) also gets key helpers: a function per key and a constructor of
// the keys struct that takes the shared hash tag once (see keys.go).
//
// A script flagged transactional is wrapped in the rollback prelude of
// package transactional/prelude: its EVAL file as a whole (helpers
// included), and in a library the prelude is declared once before the
// helpers and each transactional function's body runs under it. Functions
// without the flag in such a library reach Redis through the prelude's
// pass-through, which only changes the line Redis names in the suffix of
// their errors.
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
