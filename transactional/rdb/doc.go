// Package rdb encodes and decodes values in Redis's DUMP payload format,
// so that an embedded engine can serve DUMP and RESTORE for every type and
// exchange payloads with a real Redis 7.0, and so that a write journal can
// snapshot a key in the same bytes Redis would.
//
// A payload is the RDB type byte, the value in RDB encoding, the RDB
// version as two little-endian bytes, and the CRC-64/Jones (package crc) of
// all that, little-endian.
//
// Dump writes what redis-server 7.0 writes for a value built by ordinary
// commands under the default configuration: a list as a quicklist of
// listpacks of at most 8 KB (list-max-listpack-size -2); a set of at most
// 512 integers as an intset, any other set as a plain set; hashes and
// sorted sets of at most 128 elements of at most 64 bytes as listpacks,
// larger ones plain; a stream as listpacks of at most 100 entries or 4 KB.
// For such values the bytes are Redis's, with one exception: Redis
// compresses strings longer than 20 bytes with LZF when that saves at least
// 4 bytes, and Dump does not (Restore reads both, and so does Redis).
// Redis chooses an encoding from a value's history (a hash that once grew
// large stays a hash table); Dump only sees the value, so for such keys the
// bytes differ while the value is the same.
//
// Restore reads every type and encoding Redis 7.0 can RESTORE: plain
// strings, lists, sets, sorted sets (with string or binary scores) and
// hashes; ziplists, intsets, quicklists of ziplists or listpacks,
// listpacks, streams of either version; integer-encoded and LZF-compressed
// strings. It checks the version (at most 10, Redis 7.0's) and the
// checksum, and fails with Redis's own texts: ErrPayload and ErrBadData,
// which a server replies with after its "ERR " prefix. It also refuses what
// Redis refuses on RESTORE: empty aggregates and duplicate members.
//
// DumpFunctions and RestoreFunctions are the same format for FUNCTION DUMP
// and FUNCTION RESTORE: each library's code after opcode 245 (or, as
// Redis 7.0-rc wrote it, its name, engine and body after opcode 246), then
// the version and the checksum.
package rdb
