// Package bundle is the bundling stage: it turns scripts (package script's
// model) into the Lua text Redis runs, as file name → contents, and never
// touches the disk. gen embeds that text in its Go wrappers, the Lua test
// runner (internal/luatest) runs it, and the catalogue (internal/catalog)
// quotes its SHA-1s; none of them bundles on its own.
//
// It sits under gen because the top level's layout gives gen "bundling and
// Go code generation", and because a bundle is half of what gen emits; it
// is a package of its own so that the runner and the catalogue can bundle
// without importing Go generation.
//
// Imports: internal/script (the parsed scripts) and transactional/prelude
// (the rollback prelude's Lua, wrapped around transactional scripts). It
// must not import gen, jennifer, or the engine (package transactional).
//
// Layout of Render's output, relative to the output directory, one
// directory per library (a directory of scripts; its base name is the
// library name):
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
// A script flagged transactional is wrapped in the rollback prelude of
// package transactional/prelude: its EVAL file as a whole (helpers
// included), and in a library the prelude is declared once before the
// helpers and each transactional function's body runs under it. Functions
// without the flag in such a library reach Redis through the prelude's
// pass-through, which only changes the line Redis names in the suffix of
// their errors.
//
// Output is deterministic: scripts are sorted by name, helpers by path.
package bundle
