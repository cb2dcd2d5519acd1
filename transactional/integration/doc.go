// Package integration is the differential test suite of the embedded
// engine: every case runs on a real redis-server 7 (started by the test
// through internal/redistest), on the Engine over TCP (Listen) and on the
// Engine in-process (Do), and must give identical replies, byte for byte on
// the wire, and an identical resulting keyspace (compared as TYPE, a
// type-specific read and the TTL in seconds, since miniredis has no DUMP
// for every type).
//
// Cases that real Redis answers with data that is not reproducible
// (server-generated IDs, random picks, wall-clock time) are written to
// return something derived and stable instead.
//
// Beside the case table: TestJournalProperty (transactional runs against
// plain ones, and a sample of both against the prelude's Lua on the
// server), TestDumpRestoreAcrossEngines and TestRestoreErrors (payloads
// moved both ways per type and encoding, and RESTORE's and COPY's
// refusals).
package integration
