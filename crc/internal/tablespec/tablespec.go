// Package tablespec lists the generated table files of package crc and the
// CRC parameters each is rendered from, so go:generate and the staleness test
// render from one list.
package tablespec

import "github.com/scriptgen/scriptgen/crc/crcgen"

// Files maps a file name in crc/ to the parameters it is generated from.
var Files = map[string]crcgen.Params{
	// CRC-16/XMODEM, the hash Redis Cluster takes modulo 16384.
	"crc16_table.go": {Name: "xmodem", Pkg: "crc", Width: 16, Poly: 0x1021, Slices: 16},
	// CRC-64/REDIS (Jones), the trailer of DUMP payloads and RDB files.
	"crc64_table.go": {Name: "redis", Pkg: "crc", Width: 64, Poly: 0xad93d23594c935a9, Reflect: true, Slices: 16},
}
