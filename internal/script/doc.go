// Package script is the one front end: it reads an annotated Redis Lua
// source once into a Script that every later stage (lint, test, bundle, gen,
// doc) reads instead of parsing the text again: the `--!` header (the script
// contract, `--! lint:` directives split into action and rules), the `#!lua`
// shebang split as Redis splits it (ParseShebang, which the engine uses
// too), and its Lua (type Lua): the AST, with a line and a column on every
// node, the `--! include:` and BullMQ `--- @include` lines, and the
// `-- lint: ignore` comments.
//
// A Loader reads the files of one run once: the scripts, and the helpers
// their include lines reach, each parsed once whichever stage asks, and it
// alone says which files are helpers rather than entry points (Helpers).
//
// Imports: the parser of our gopher-lua copy, and the standard library. It
// must not import any later stage (luaflow, lint, bundle, gen, the engine).
//
// A header is a block of `--! key: value` lines at the top of the file,
// after an optional `#!lua …` shebang, mixed freely with ordinary comments and
// blank lines. The first line of code ends the header; a `--!` line after it
// is an error rather than being silently ignored, because a misplaced
// annotation would otherwise change a generated API without anyone noticing.
//
//	--! name: token_bucket
//	--! doc: Token bucket: capacity tokens, refilled at rate per period.
//	--! key: bucket            the hash holding tokens and last refill time
//	--! arg: capacity int
//	--! arg: cost int = 1
//	--! arg: now_ms int?        omitted: the server's TIME
//	--! returns: allowed bool, remaining int
//	--! flags: transactional
//
// # Optional arguments
//
// An optional arg (`type?`) at the end of ARGV is left out when absent. One
// before a required arg cannot be, ARGV being positional: the wrappers send
// an empty string in its place, so the script must treat "" as absent
// (`if ARGV[2] == "" then …`), as scripts written for other clients
// already do with an optional `now`. Script.Padded tells the two apart.
// A default of "" is allowed for every type and says the same anywhere in
// ARGV: `--! arg: now int = ""` sends "" when absent.
//
// # Scripts without a header
//
// A script with no `--!` line at all gets the contract its body implies
// (infer.go): its keys and args, their names and types, and a name from
// any file name (addStandardJob-9.lua: add_standard_job, nine keys).
// Script.Inferred marks it, for lint to say so once and for
// `scriptgen annotate` to write it down.
//
// # Key patterns
//
// A key line may give the shape of the key's name after an `=`, the same
// marker an arg line uses for its default:
//
//	--! key: bucket = rl:{user}:tb         the hash holding tokens
//	--! key: gate = gate:{caller}:<resource>
//	--! key: logs... = rl:{tag}:log:<party>
//
// A pattern is one word: literal text, exactly one hash tag {name}, and any
// number of plain parts <name>. The hash tag's value is written inside the
// braces, so by Redis Cluster's rule it alone decides the key's slot; a
// second {…} would be ignored by Redis, so it is an error rather than a
// surprise. A variadic key's pattern has exactly one plain part, filled from
// each element of the tail. Across the keys of one script: every key has a
// pattern or none does, and all use the same hash-tag name (unless the
// script is flagged allow-cross-slot-keys), which is what lets gen emit a
// constructor that takes the tag once and so cannot put the script's keys
// in two slots. Braces in a key's doc text mean nothing: only a word after
// `=` is a pattern, so headers written before patterns existed keep
// parsing the same. The values are not checked here: a tag value that is
// empty or starts with '}' gives Redis no tag, and then the wrappers' slot
// check refuses keys in different slots before any I/O.
//
// Errors are collected for the whole file and reported as
// `path:line:col: message`; messages about a bad value list the valid ones.
//
// Wire encoding of argument types, shared by the wrappers and the runner:
// int and float are decimal text, bool is "1" or "0", duration is whole
// milliseconds, json is the JSON text, string and bytes are sent as is.
package script
