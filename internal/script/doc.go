// Package script holds the script contract: the `--!` header of an annotated
// Redis Lua source, parsed into a Script model that every later stage (lint,
// test, bundle, gen) reads instead of re-parsing comments.
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
// Errors are collected for the whole file and reported as
// `path:line:col: message`; messages about a bad value list the valid ones.
//
// Wire encoding of argument types, shared by the wrappers and the runner:
// int and float are decimal text, bool is "1" or "0", duration is whole
// milliseconds, json is the JSON text, string and bytes are sent as is.
package script
