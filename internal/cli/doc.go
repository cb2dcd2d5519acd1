// Package cli is scriptgen's command line: Run is the whole program, so that
// cmd/scriptgen's main is one line and tests (testscripts/) call the same
// entry point in-process.
//
// It is the only package that parses flags, prints usage, chooses exit codes
// or writes files: the stages it drives return values (source as bytes,
// map[path][]byte, findings, reports, errors), so that each can be used and
// tested as a library. It may import every stage and the engine
// (transactional, whose Serve takes a Config and returns an error); no
// package imports it. The one other writer of files is crc/internal/gentables,
// a program of its own that go generate runs.
//
// Exit codes: 0 clean, 1 findings or failing tests, 2 bad usage or
// unreadable input.
package cli
