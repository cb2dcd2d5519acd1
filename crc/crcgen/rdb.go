package crcgen

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"sync"

	"github.com/scriptgen/scriptgen/crc"
)

// RDBReport is the outcome of VerifyRDB.
type RDBReport struct {
	Size     int64  // file size in bytes
	Version  string // the four digits after "REDIS", if present
	Magic    bool   // the file starts with "REDIS"
	EOF      bool   // the byte before the trailer is the EOF opcode 0xFF
	Stored   uint64 // the trailer, little-endian
	Computed uint64 // CRC64 of everything before the trailer
	Damage   []Damage
}

// Damage is a byte range the checksum difference points to.
type Damage struct {
	Offset int64  // first damaged byte
	Len    int    // bytes from Offset to the last differing byte
	Xor    []byte // the difference between the file's bytes and the ones the checksum expects
}

// Disabled reports whether the file was written with rdbchecksum no, which
// stores a zero trailer that Redis itself does not check.
func (r *RDBReport) Disabled() bool { return r.Stored == 0 }

// OK reports whether the file passed.
func (r *RDBReport) OK() bool {
	return r.Magic && r.EOF && (r.Disabled() || r.Stored == r.Computed)
}

// Lines describes the report for people.
func (r *RDBReport) Lines() []string {
	var l []string
	if !r.Magic {
		l = append(l, `not an RDB file: it does not start with "REDIS"`)
	}
	if !r.EOF {
		l = append(l, fmt.Sprintf("no EOF opcode (0xff) at offset %d before the checksum: the file is truncated or its end is damaged", r.Size-9))
	}
	switch {
	case r.Disabled():
		l = append(l, "no checksum: written with rdbchecksum no, so there is nothing to verify")
	case r.Stored == r.Computed:
		if r.Magic && r.EOF {
			l = append(l, fmt.Sprintf("OK: RDB version %s, %d bytes, CRC64 %#016x", r.Version, r.Size, r.Computed))
		}
	default:
		l = append(l, fmt.Sprintf("CHECKSUM MISMATCH: stored %#016x, computed %#016x over %d bytes", r.Stored, r.Computed, r.Size-8))
		for _, d := range r.Damage {
			l = append(l, fmt.Sprintf("damaged at offset %d (%#x), %d byte(s), xor % x", d.Offset, d.Offset, d.Len, d.Xor))
		}
		if len(r.Damage) == 0 {
			l = append(l, "the damage is not one short burst, so the checksum cannot say where it is")
		}
	}
	return l
}

// rdbMinSize is "REDIS", four version digits, the EOF opcode and the trailer.
const rdbMinSize = 9 + 1 + 8

// VerifyRDB checks the CRC64 trailer of the RDB file at path. An error means
// the file could not be read; a damaged file is a report that is not OK.
func VerifyRDB(path string) (*RDBReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := &RDBReport{Size: st.Size()}
	if r.Size < rdbMinSize {
		return nil, fmt.Errorf("%s: %d bytes is too short for an RDB file", path, r.Size)
	}
	var head [9]byte
	var tail [9]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if _, err := f.ReadAt(tail[:], r.Size-9); err != nil {
		return nil, err
	}
	r.Magic = string(head[:5]) == "REDIS"
	r.Version = string(head[5:9])
	r.EOF = tail[0] == 0xff
	r.Stored = binary.LittleEndian.Uint64(tail[1:])
	if r.Computed, err = parallelCRC64(f, r.Size-8); err != nil {
		return nil, err
	}
	if !r.Disabled() && r.Stored != r.Computed {
		r.Damage = locate(r.Stored^r.Computed, r.Size-8)
	}
	return r, nil
}

// chunkMin keeps small files on one goroutine, where a split costs more than
// it saves.
const chunkMin = 4 << 20

// parallelCRC64 returns the CRC64 of the first n bytes of f. Every core reads
// and checksums its own contiguous part; Combine64 joins the parts in order,
// which costs nanoseconds however large they are.
func parallelCRC64(f io.ReaderAt, n int64) (uint64, error) {
	parts := int64(runtime.GOMAXPROCS(0))
	if parts > n/chunkMin {
		parts = max(1, n/chunkMin)
	}
	size := (n + parts - 1) / parts
	crcs := make([]uint64, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			start := i * size
			end := min(start+size, n)
			crcs[i], errs[i] = sectionCRC64(f, start, end)
		})
	}
	wg.Wait()
	var c uint64
	for i := range parts {
		if errs[i] != nil {
			return 0, errs[i]
		}
		c = crc.Combine64(c, crcs[i], min(size, n-i*size))
	}
	return c, nil
}

func sectionCRC64(f io.ReaderAt, start, end int64) (uint64, error) {
	buf := make([]byte, min(1<<20, end-start))
	var c uint64
	for off := start; off < end; {
		b := buf[:min(int64(len(buf)), end-off)]
		if _, err := f.ReadAt(b, off); err != nil {
			return 0, err
		}
		c = crc.CRC64(c, b)
		off += int64(len(b))
	}
	return c, nil
}

// locate finds the damage behind a checksum difference diff over n bytes.
//
// CRC64 is linear: flipping bits e in the data changes the CRC by the CRC of
// e (with a zero start). If e is a burst of at most eight bytes starting at
// offset k, that CRC is w·x^(8(n-k)) mod P, where w is the burst read as a
// register; so diff·x^(-8j) mod P for j = n-k is w itself, a register whose
// only non-zero bytes are its first few. Walking j from 1 to n, one table
// lookup per byte, tests every offset. A random register looks that short
// with probability 2^(8·len-64), so only lengths that cannot show up by
// chance within n bytes are reported. A difference confined to one byte of
// the trailer itself is reported as damage to the trailer.
func locate(diff uint64, n int64) []Damage {
	if nz := nonZeroBytes(diff); nz == 1 {
		i := bits.TrailingZeros64(diff) / 8
		return []Damage{{Offset: n + int64(i), Len: 1, Xor: []byte{byte(diff >> (8 * i))}}}
	}
	maxLen := (54 - int(math.Log2(float64(n+1)))) / 8
	if maxLen < 1 {
		return nil
	}
	m := newModel(redisParams)
	var inv [256]byte
	for i, v := range m.table {
		inv[v>>56] = byte(i)
	}
	var found []Damage
	best := maxLen + 1
	w := diff
	for j := int64(1); j <= n; j++ {
		// Undo one zero byte: the table entry that produced w is the one
		// whose top byte w shows, since the shifted part leaves it clear.
		i := inv[w>>56]
		w = (w^m.table[i])<<8 | uint64(i)
		if w&0xff == 0 {
			continue
		}
		l := (bits.Len64(w) + 7) / 8
		if int64(l) > j || l > best {
			continue
		}
		d := Damage{Offset: n - j, Len: l, Xor: make([]byte, l)}
		for b := range l {
			d.Xor[b] = byte(w >> (8 * b))
		}
		if l < best {
			best, found = l, nil
		}
		found = append(found, d)
	}
	if len(found) > 1 {
		// Two explanations of one size: the checksum cannot tell them apart.
		return nil
	}
	return found
}

func nonZeroBytes(v uint64) int {
	n := 0
	for ; v != 0; v >>= 8 {
		if v&0xff != 0 {
			n++
		}
	}
	return n
}

var redisParams = Params{Name: "redis", Pkg: "crc", Width: 64, Poly: 0xad93d23594c935a9, Reflect: true}
