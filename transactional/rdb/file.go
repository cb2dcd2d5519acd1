package rdb

import (
	"encoding/binary"
	"fmt"

	"github.com/scriptgen/scriptgen/crc"
)

// Entry is one key of a keyspace written by File: its database, name,
// value and absolute expiry in Unix milliseconds (0: none).
type Entry struct {
	DB       int
	Key      string
	Value    Value
	ExpireMs int64
}

// RDB opcodes (rdb.h) that File writes.
const (
	opAux        = 0xFA
	opResizeDB   = 0xFB
	opExpireMs   = 0xFC
	opSelectDB   = 0xFE
	opEOF        = 0xFF
	fileMagicFmt = "REDIS%04d"
)

// File is a whole RDB file of version Version holding the function
// libraries' codes and entries, grouped by database in the order given
// (callers sort them): what a master sends a replica after SYNC, and what
// redis-server loads as dump.rdb. Libraries come first, as FUNCTION DUMP
// writes them, and each value is encoded as Dump encodes it; the file ends
// with the CRC64 of all that precedes it, as rdbSaveRio writes it.
func File(functions []string, entries []Entry) []byte {
	w := writer{b: fmt.Appendf(nil, fileMagicFmt, Version)}
	w.aux("redis-ver", "7.0.15")
	w.aux("redis-bits", "64")
	for _, code := range functions {
		w.byte(opFunction2)
		w.str(code)
	}
	for i := 0; i < len(entries); {
		db := entries[i].DB
		j := i
		for j < len(entries) && entries[j].DB == db {
			j++
		}
		w.byte(opSelectDB)
		w.len(uint64(db))
		expires := 0
		for _, e := range entries[i:j] {
			if e.ExpireMs != 0 {
				expires++
			}
		}
		w.byte(opResizeDB)
		w.len(uint64(j - i))
		w.len(uint64(expires))
		for _, e := range entries[i:j] {
			if e.ExpireMs != 0 {
				w.byte(opExpireMs)
				w.b = binary.LittleEndian.AppendUint64(w.b, uint64(e.ExpireMs))
			}
			p := Dump(e.Value)
			w.byte(p[0])
			w.raw([]byte(e.Key))
			// A DUMP payload is the type, the value, a 2-byte version and
			// an 8-byte CRC: the value is what a file holds after the key.
			w.b = append(w.b, p[1:len(p)-10]...)
		}
		i = j
	}
	w.byte(opEOF)
	return binary.LittleEndian.AppendUint64(w.b, crc.CRC64(0, w.b))
}

func (w *writer) aux(k, v string) {
	w.byte(opAux)
	w.raw([]byte(k))
	w.raw([]byte(v))
}
