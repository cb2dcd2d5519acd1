// Package crcgen generates Go source for table-driven CRCs of up to 64 bits
// and verifies the CRC64 trailer of RDB files; `scriptgen crc` (internal/cli)
// is its command line.
//
// Generate renders, for any Rocksoft-model parameters with refin = refout,
// slicing-by-8 tables, a combine cache and the Update, Checksum, Combine and
// Mul functions that use them. The combine cache holds x^(8·d·256^i) mod P for
// every base-256 digit d at every position i, so joining two CRCs costs one
// multiplication modulo P per non-zero digit of the second length instead of
// Redis's 64×64 bit-matrix product per set bit. For reflected 64-bit CRCs the
// output adds folding and Barrett constants for carry-less-multiply code.
//
// Package crc renders its own tables with this package (go generate), and the
// output is deterministic so a test can compare the checked-in files with a
// fresh render.
//
// It returns source as bytes and reports as values: it parses no flags,
// chooses no exit codes and writes no files, which is internal/cli's work
// (or, for package crc's own tables, crc/internal/gentables'). It may import
// package crc, whose CRC64 checks RDB files, and nothing else of scriptgen's.
package crcgen
