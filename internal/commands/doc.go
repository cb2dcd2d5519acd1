// Package commands is Redis's command table as Go source, and Redis's own
// rules for finding the keys in a command line.
//
// The table (table.go) is generated from the COMMAND reply of a real
// redis-server 7.0.15 by TestTable: `go test ./internal/commands -run
// TestTable -update` rewrites it, and without -update the test fails when
// the checked-in table differs from what the installed server reports. The
// generator lives in the test because the table is data about one server
// build; nothing at run time needs to talk to Redis.
//
// Every command and subcommand is one Command, named as Redis names them in
// ACL rules and COMMAND INFO: "get", "config|get". The table is a sorted
// slice searched by binary search, so there is no map to build at init time
// and Lookup does not allocate for lower-case names.
//
// Keys finds key positions the way Redis 7.0's db.c does: from the key specs
// (getKeysUsingKeySpecs) when they are complete, and otherwise from the
// command's getkeys procedure (SORT's STORE, MIGRATE's KEYS, SET and
// BITFIELD whose specs carry variable flags), which this package ports. KeysOf
// does the same on a command line whose arguments may be unknown until run
// time, as a linter sees them, and says when an unknown argument decides
// where the keys are instead of guessing.
//
// COMMAND's own replies (COMMAND INFO and COMMAND DOCS of every command:
// ACL categories, tips, summaries and the whole argument grammar) are kept
// as the server's RESP3 bytes in replies.resp, written by TestReplies the
// same way (-update), and served by InfoReply and DocsReply in RESP3 or
// RESP2. A Go type for every field would be a second copy of Redis's
// schema; the bytes are the reply, and the grammar differential reads the
// arguments from them.
//
// The table carries what an engine needs too (arity, every flag, the legacy
// first/last/step triple), so that transactional's smaller table could be
// replaced by this one.
package commands
