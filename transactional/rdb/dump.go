package rdb

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"github.com/scriptgen/scriptgen/crc"
)

// Version is the RDB version Redis 7.0 writes into DUMP payloads and the
// highest one it restores.
const Version = 10

// RDB object types (rdb.h).
const (
	typeString         = 0
	typeList           = 1
	typeSet            = 2
	typeZSet           = 3
	typeHash           = 4
	typeZSet2          = 5
	typeHashZipmap     = 9
	typeListZiplist    = 10
	typeSetIntset      = 11
	typeZSetZiplist    = 12
	typeHashZiplist    = 13
	typeListQuicklist  = 14
	typeStreamLP       = 15
	typeHashListpack   = 16
	typeZSetListpack   = 17
	typeListQuicklist2 = 18
	typeStreamLP2      = 19
)

// Redis 7.0's defaults for the compact encodings.
const (
	maxListpackNode  = 8192 // list-max-listpack-size -2
	maxIntsetEntries = 512  // set-max-intset-entries
	maxLPEntries     = 128  // hash- and zset-max-listpack-entries
	maxLPValue       = 64   // hash- and zset-max-listpack-value
	streamNodeBytes  = 4096 // stream-node-max-bytes
	streamNodeItems  = 100  // stream-node-max-entries
)

// Dump returns the DUMP payload of v. It panics on a Value of a type this
// package does not define.
func Dump(v Value) []byte {
	var w writer
	switch v := v.(type) {
	case String:
		w.byte(typeString)
		w.str(string(v))
	case List:
		w.byte(typeListQuicklist2)
		w.quicklist(v)
	case Set:
		if is, ok := intset(v); ok {
			w.byte(typeSetIntset)
			w.raw(is)
		} else {
			w.byte(typeSet)
			w.len(uint64(len(v)))
			for _, m := range v {
				w.str(m)
			}
		}
	case Hash:
		if smallHash(v) {
			lp := newListpack()
			for _, f := range v {
				lp.appendString(f.Name)
				lp.appendString(f.Value)
			}
			w.byte(typeHashListpack)
			w.raw(lp.bytes())
		} else {
			w.byte(typeHash)
			w.len(uint64(len(v)))
			for _, f := range v {
				w.str(f.Name)
				w.str(f.Value)
			}
		}
	case ZSet:
		z := append(ZSet(nil), v...)
		sort.SliceStable(z, func(i, j int) bool {
			if z[i].Score != z[j].Score {
				return z[i].Score < z[j].Score
			}
			return z[i].Name < z[j].Name
		})
		if smallZSet(z) {
			lp := newListpack()
			for _, m := range z {
				lp.appendString(m.Name)
				lp.appendString(d2string(m.Score))
			}
			w.byte(typeZSetListpack)
			w.raw(lp.bytes())
		} else {
			// Highest first: Redis saves from the tail so that loading
			// inserts each member at the head of the skiplist.
			w.byte(typeZSet2)
			w.len(uint64(len(z)))
			for i := len(z) - 1; i >= 0; i-- {
				w.str(z[i].Name)
				w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(z[i].Score))
			}
		}
	case *Stream:
		w.byte(typeStreamLP2)
		w.stream(v)
	default:
		panic("rdb: Dump of an unknown Value type")
	}
	w.b = binary.LittleEndian.AppendUint16(w.b, Version)
	return binary.LittleEndian.AppendUint64(w.b, crc.CRC64(0, w.b))
}

type writer struct{ b []byte }

func (w *writer) byte(c byte) { w.b = append(w.b, c) }

// len is rdbSaveLen.
func (w *writer) len(n uint64) {
	switch {
	case n < 1<<6:
		w.b = append(w.b, byte(n))
	case n < 1<<14:
		w.b = append(w.b, 0x40|byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		w.b = append(w.b, 0x80)
		w.b = binary.BigEndian.AppendUint32(w.b, uint32(n))
	default:
		w.b = append(w.b, 0x81)
		w.b = binary.BigEndian.AppendUint64(w.b, n)
	}
}

// str is rdbSaveRawString without compression: short canonical integers
// that fit 32 bits are stored as integers.
func (w *writer) str(s string) {
	if len(s) <= 11 {
		if v, ok := canonicalInt(s); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				w.b = append(w.b, 0xC0, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				w.b = append(w.b, 0xC1)
				w.b = binary.LittleEndian.AppendUint16(w.b, uint16(v))
			default:
				w.b = append(w.b, 0xC2)
				w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v))
			}
			return
		}
	}
	w.raw([]byte(s))
}

func (w *writer) raw(p []byte) {
	w.len(uint64(len(p)))
	w.b = append(w.b, p...)
}

// quicklist writes a list as Redis 7.0's quicklist does when it is built by
// pushes at the tail: listpack nodes of at most 8 KB by quicklist.c's own
// estimate, each one PACKED.
func (w *writer) quicklist(l List) {
	var nodes [][]byte
	var lp *listpack
	for _, e := range l {
		if lp == nil || !allowInsert(lp.size(), len(e)) {
			if lp != nil {
				nodes = append(nodes, lp.bytes())
			}
			lp = newListpack()
		}
		lp.appendString(e)
	}
	if lp != nil {
		nodes = append(nodes, lp.bytes())
	}
	w.len(uint64(len(nodes)))
	for _, n := range nodes {
		w.len(2) // QUICKLIST_NODE_CONTAINER_PACKED
		w.raw(n)
	}
}

// allowInsert is quicklist.c's _quicklistNodeAllowInsert for fill -2:
// the node's size plus the element plus SIZE_ESTIMATE_OVERHEAD (8) may not
// pass 8 KB.
func allowInsert(nodeSize, sz int) bool {
	return nodeSize+sz+8 <= maxListpackNode
}

// intset returns the intset of a set of at most 512 canonical integers:
// the narrowest width that holds them all, sorted.
func intset(s Set) ([]byte, bool) {
	if len(s) == 0 || len(s) > maxIntsetEntries {
		return nil, false
	}
	vs := make([]int64, len(s))
	width := 2
	for i, m := range s {
		v, ok := canonicalInt(m)
		if !ok {
			return nil, false
		}
		vs[i] = v
		switch {
		case v < math.MinInt32 || v > math.MaxInt32:
			width = 8
		case (v < math.MinInt16 || v > math.MaxInt16) && width < 4:
			width = 4
		}
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	b := binary.LittleEndian.AppendUint32(nil, uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vs)))
	for _, v := range vs {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b, true
}

func smallHash(h Hash) bool {
	if len(h) > maxLPEntries {
		return false
	}
	for _, f := range h {
		if len(f.Name) > maxLPValue || len(f.Value) > maxLPValue {
			return false
		}
	}
	return true
}

func smallZSet(z ZSet) bool {
	if len(z) > maxLPEntries {
		return false
	}
	for _, m := range z {
		if len(m.Name) > maxLPValue {
			return false
		}
	}
	return true
}

// d2string is Redis 7.0's d2string: integers below 2^52 in decimal,
// anything else with %.17g.
func d2string(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	case f > -4503599627370495 && f < 4503599627370496 && f == math.Trunc(f):
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// stream writes RDB_TYPE_STREAM_LISTPACKS_2 as streamAppendItem would have
// built the nodes, entry by entry.
func (w *writer) stream(s *Stream) {
	type node struct {
		master StreamID
		lp     *listpack // the entries after the master entry
		fields []string
		count  int
		head   int // the master entry's size, which its count does not change (at most 100 fits one byte)
	}
	var nodes []*node
	var cur *node
	for _, e := range s.Entries {
		nf := len(e.Fields) / 2
		size := 0
		for _, f := range e.Fields {
			size += len(f)
		}
		if cur != nil && (cur.head+cur.lp.size()+size >= streamNodeBytes || cur.count >= streamNodeItems) {
			cur = nil
		}
		if cur == nil {
			cur = &node{master: e.ID, lp: newListpack()}
			for i := 0; i < nf; i++ {
				cur.fields = append(cur.fields, e.Fields[2*i])
			}
			cur.head = len(masterEntry(1, cur.fields).buf) - 6
			nodes = append(nodes, cur)
		}
		cur.count++
		same := len(cur.fields) == nf
		for i := 0; same && i < nf; i++ {
			same = cur.fields[i] == e.Fields[2*i]
		}
		flags := int64(0)
		if same {
			flags = 2 // STREAM_ITEM_FLAG_SAMEFIELDS
		}
		lp := cur.lp
		lp.appendInt(flags)
		lp.appendInt(int64(e.ID.Ms - cur.master.Ms))
		lp.appendInt(int64(e.ID.Seq - cur.master.Seq))
		if same {
			for i := 0; i < nf; i++ {
				lp.appendString(e.Fields[2*i+1])
			}
			lp.appendInt(int64(nf + 3))
		} else {
			lp.appendInt(int64(nf))
			for _, f := range e.Fields {
				lp.appendString(f)
			}
			lp.appendInt(int64(2*nf + 4))
		}
	}
	w.len(uint64(len(nodes)))
	for _, n := range nodes {
		key := binary.BigEndian.AppendUint64(nil, n.master.Ms)
		key = binary.BigEndian.AppendUint64(key, n.master.Seq)
		w.raw(key)
		// The master entry goes first; its count is only known now.
		head := masterEntry(n.count, n.fields)
		head.buf = append(head.buf, n.lp.buf[6:]...)
		head.count += n.lp.count
		w.raw(head.bytes())
	}
	w.len(uint64(len(s.Entries)))
	w.len(s.LastID.Ms)
	w.len(s.LastID.Seq)
	first := s.FirstID
	if first == (StreamID{}) && len(s.Entries) > 0 {
		first = s.Entries[0].ID
	}
	w.len(first.Ms)
	w.len(first.Seq)
	w.len(s.MaxDeletedID.Ms)
	w.len(s.MaxDeletedID.Seq)
	w.len(s.EntriesAdded)
	w.len(uint64(len(s.Groups)))
	for _, g := range s.Groups {
		w.str(g.Name)
		w.len(g.LastID.Ms)
		w.len(g.LastID.Seq)
		w.len(uint64(g.EntriesRead))
		w.len(uint64(len(g.Pending)))
		for _, p := range g.Pending {
			w.id(p.ID)
			w.b = binary.LittleEndian.AppendUint64(w.b, uint64(p.DeliveryTime))
			w.len(p.DeliveryCount)
		}
		w.len(uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			w.str(c.Name)
			w.b = binary.LittleEndian.AppendUint64(w.b, uint64(c.SeenTime))
			var own []StreamID
			for _, p := range g.Pending {
				if p.Consumer == c.Name {
					own = append(own, p.ID)
				}
			}
			w.len(uint64(len(own)))
			for _, id := range own {
				w.id(id)
			}
		}
	}
}

// masterEntry starts a stream node: count, deleted, the master fields
// and a terminating 0.
func masterEntry(count int, fields []string) *listpack {
	lp := newListpack()
	lp.appendInt(int64(count))
	lp.appendInt(0)
	lp.appendInt(int64(len(fields)))
	for _, f := range fields {
		lp.appendString(f)
	}
	lp.appendInt(0)
	return lp
}

// id writes a stream ID raw, as rax keys are: 16 bytes big-endian.
func (w *writer) id(id StreamID) {
	w.b = binary.BigEndian.AppendUint64(w.b, id.Ms)
	w.b = binary.BigEndian.AppendUint64(w.b, id.Seq)
}
