package rdb

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"
	"strconv"

	"github.com/scriptgen/scriptgen/crc"
)

// Redis's RESTORE errors, verbatim (the server prefixes them with "ERR ").
var (
	// ErrPayload is a payload too short, of a later RDB version, or with a
	// wrong checksum.
	ErrPayload = errors.New("DUMP payload version or checksum are wrong")
	// ErrBadData is a payload whose value does not decode.
	ErrBadData = errors.New("Bad data format")
)

// Restore decodes a DUMP payload, as RESTORE does on redis-server 7.0.
func Restore(payload []byte) (Value, error) {
	if err := Verify(payload); err != nil {
		return nil, err
	}
	r := &reader{b: payload[:len(payload)-10]}
	t, err := r.byte()
	if err != nil {
		return nil, ErrBadData
	}
	v, err := r.object(t)
	if err != nil {
		return nil, ErrBadData
	}
	return v, nil
}

// Verify is Redis's verifyDumpPayload: at least the version and checksum,
// a version Redis 7.0 reads, and a matching CRC-64.
func Verify(payload []byte) error {
	if len(payload) < 10 {
		return ErrPayload
	}
	footer := payload[len(payload)-10:]
	if binary.LittleEndian.Uint16(footer) > Version {
		return ErrPayload
	}
	if crc.CRC64(0, payload[:len(payload)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return ErrPayload
	}
	return nil
}

type reader struct {
	b []byte
	p int
}

var errShort = errors.New("rdb: truncated")

func (r *reader) byte() (byte, error) {
	if r.p >= len(r.b) {
		return 0, errShort
	}
	r.p++
	return r.b[r.p-1], nil
}

func (r *reader) next(n int) ([]byte, error) {
	if n < 0 || len(r.b)-r.p < n {
		return nil, errShort
	}
	r.p += n
	return r.b[r.p-n : r.p], nil
}

// length is rdbLoadLenByRef: a length, or (encoded) a special string
// encoding in the low six bits.
func (r *reader) length() (n uint64, encoded bool, err error) {
	c, err := r.byte()
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3F), false, nil
	case 1:
		d, err := r.byte()
		return uint64(c&0x3F)<<8 | uint64(d), false, err
	case 3:
		return uint64(c & 0x3F), true, nil
	}
	switch c {
	case 0x80:
		b, err := r.next(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(b)), false, nil
	case 0x81:
		b, err := r.next(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(b), false, nil
	}
	return 0, false, ErrBadData
}

func (r *reader) len() (uint64, error) {
	n, enc, err := r.length()
	if err == nil && enc {
		err = ErrBadData
	}
	return n, err
}

// count is a length that bounds a loop: more elements than bytes left
// cannot be, and must not make us allocate.
func (r *reader) count() (int, error) {
	n, err := r.len()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(r.b)-r.p) {
		return 0, ErrBadData
	}
	return int(n), nil
}

// str is rdbGenericLoadStringObject.
func (r *reader) str() (string, error) {
	n, enc, err := r.length()
	if err != nil {
		return "", err
	}
	if !enc {
		if n > uint64(len(r.b)) {
			return "", errShort
		}
		b, err := r.next(int(n))
		return string(b), err
	}
	switch n {
	case 0:
		b, err := r.next(1)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int8(b[0])), 10), nil
	case 1:
		b, err := r.next(2)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int16(binary.LittleEndian.Uint16(b))), 10), nil
	case 2:
		b, err := r.next(4)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int32(binary.LittleEndian.Uint32(b))), 10), nil
	case 3:
		clen, err := r.len()
		if err != nil {
			return "", err
		}
		ulen, err := r.len()
		if err != nil || clen > uint64(len(r.b)) || ulen > math.MaxInt32 {
			return "", ErrBadData
		}
		c, err := r.next(int(clen))
		if err != nil {
			return "", err
		}
		out, err := lzfDecompress(c, int(ulen))
		return string(out), err
	}
	return "", ErrBadData
}

// binaryDouble is rdbLoadBinaryDoubleValue.
func (r *reader) binaryDouble() (float64, error) {
	b, err := r.next(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// textDouble is rdbLoadDoubleValue, the score format of RDB_TYPE_ZSET.
func (r *reader) textDouble() (float64, error) {
	n, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := r.next(int(n))
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(string(b), 64)
}

func (r *reader) millis() (int64, error) {
	b, err := r.next(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

func (r *reader) rawID() (StreamID, error) {
	b, err := r.next(16)
	if err != nil {
		return StreamID{}, err
	}
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}, nil
}

func (r *reader) lenID() (StreamID, error) {
	ms, err := r.len()
	if err != nil {
		return StreamID{}, err
	}
	seq, err := r.len()
	return StreamID{ms, seq}, err
}

// unique reports duplicates, which Redis refuses in sets, hashes and
// sorted sets.
type unique map[string]struct{}

func (u unique) add(s string) bool {
	if _, dup := u[s]; dup {
		return false
	}
	u[s] = struct{}{}
	return true
}

func (r *reader) object(t byte) (Value, error) {
	switch t {
	case typeString:
		s, err := r.str()
		return String(s), err
	case typeList:
		return r.plainList()
	case typeSet:
		return r.plainSet()
	case typeZSet, typeZSet2:
		return r.plainZSet(t == typeZSet2)
	case typeHash:
		return r.plainHash()
	case typeListQuicklist, typeListQuicklist2:
		return r.quicklist(t == typeListQuicklist2)
	case typeSetIntset:
		return r.intset()
	case typeListZiplist, typeZSetZiplist, typeHashZiplist, typeHashListpack, typeZSetListpack:
		blob, err := r.str()
		if err != nil {
			return nil, err
		}
		var es []lpEntry
		if t == typeHashListpack || t == typeZSetListpack {
			es, err = parseListpack([]byte(blob))
		} else {
			es, err = parseZiplist([]byte(blob))
		}
		if err != nil {
			return nil, err
		}
		switch t {
		case typeListZiplist:
			return listOf(es)
		case typeZSetZiplist, typeZSetListpack:
			return zsetOf(es)
		}
		return hashOf(es)
	case typeStreamLP, typeStreamLP2:
		return r.stream(t == typeStreamLP2)
	}
	return nil, ErrBadData
}

func (r *reader) plainList() (Value, error) {
	n, err := r.count()
	if err != nil || n == 0 {
		return nil, ErrBadData
	}
	l := make(List, n)
	for i := range l {
		if l[i], err = r.str(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (r *reader) plainSet() (Value, error) {
	n, err := r.count()
	if err != nil || n == 0 {
		return nil, ErrBadData
	}
	s, seen := make(Set, n), unique{}
	for i := range s {
		if s[i], err = r.str(); err != nil {
			return nil, err
		}
		if !seen.add(s[i]) {
			return nil, ErrBadData
		}
	}
	return s, nil
}

func (r *reader) plainZSet(binaryScores bool) (Value, error) {
	n, err := r.count()
	if err != nil || n == 0 {
		return nil, ErrBadData
	}
	z, seen := make(ZSet, n), unique{}
	for i := range z {
		if z[i].Name, err = r.str(); err != nil {
			return nil, err
		}
		if binaryScores {
			z[i].Score, err = r.binaryDouble()
		} else {
			z[i].Score, err = r.textDouble()
		}
		if err != nil || math.IsNaN(z[i].Score) || !seen.add(z[i].Name) {
			return nil, ErrBadData
		}
	}
	// Saved highest first; a ZSet reads lowest first like ZRANGE.
	sortZSet(z)
	return z, nil
}

func (r *reader) plainHash() (Value, error) {
	n, err := r.count()
	if err != nil || n == 0 {
		return nil, ErrBadData
	}
	h, seen := make(Hash, n), unique{}
	for i := range h {
		if h[i].Name, err = r.str(); err != nil {
			return nil, err
		}
		if h[i].Value, err = r.str(); err != nil {
			return nil, err
		}
		if !seen.add(h[i].Name) {
			return nil, ErrBadData
		}
	}
	return h, nil
}

func (r *reader) quicklist(v2 bool) (Value, error) {
	n, err := r.count()
	if err != nil || n == 0 {
		return nil, ErrBadData
	}
	var l List
	for i := 0; i < n; i++ {
		container := uint64(2)
		if v2 {
			if container, err = r.len(); err != nil {
				return nil, err
			}
		}
		blob, err := r.str()
		if err != nil {
			return nil, err
		}
		switch {
		case container == 1: // QUICKLIST_NODE_CONTAINER_PLAIN: one large element
			l = append(l, blob)
			continue
		case container != 2:
			return nil, ErrBadData
		}
		var es []lpEntry
		if v2 {
			es, err = parseListpack([]byte(blob))
		} else {
			es, err = parseZiplist([]byte(blob))
		}
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			l = append(l, e.String())
		}
	}
	if len(l) == 0 {
		return nil, ErrBadData
	}
	return l, nil
}

func (r *reader) intset() (Value, error) {
	blob, err := r.str()
	if err != nil {
		return nil, err
	}
	b := []byte(blob)
	if len(b) < 8 {
		return nil, ErrBadData
	}
	width := int(binary.LittleEndian.Uint32(b))
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if (width != 2 && width != 4 && width != 8) || n == 0 || len(b) != 8+n*width {
		return nil, ErrBadData
	}
	s := make(Set, n)
	prev := int64(math.MinInt64)
	for i := range s {
		var v int64
		switch p := b[8+i*width:]; width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, ErrBadData // intsets are sorted and unique
		}
		prev = v
		s[i] = strconv.FormatInt(v, 10)
	}
	return s, nil
}

func listOf(es []lpEntry) (Value, error) {
	if len(es) == 0 {
		return nil, ErrBadData
	}
	l := make(List, len(es))
	for i, e := range es {
		l[i] = e.String()
	}
	return l, nil
}

func hashOf(es []lpEntry) (Value, error) {
	if len(es) == 0 || len(es)%2 != 0 {
		return nil, ErrBadData
	}
	h, seen := make(Hash, len(es)/2), unique{}
	for i := range h {
		h[i] = Field{es[2*i].String(), es[2*i+1].String()}
		if !seen.add(h[i].Name) {
			return nil, ErrBadData
		}
	}
	return h, nil
}

func zsetOf(es []lpEntry) (Value, error) {
	if len(es) == 0 || len(es)%2 != 0 {
		return nil, ErrBadData
	}
	z, seen := make(ZSet, len(es)/2), unique{}
	for i := range z {
		z[i].Name = es[2*i].String()
		sc := es[2*i+1]
		if sc.isInt {
			z[i].Score = float64(sc.v)
		} else {
			f, err := strconv.ParseFloat(sc.s, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
				return nil, ErrBadData
			}
			z[i].Score = f
		}
		if !seen.add(z[i].Name) {
			return nil, ErrBadData
		}
	}
	return z, nil
}

func sortZSet(z ZSet) {
	// Usually saved highest first: reversed, it is already in order.
	for i, j := 0, len(z)-1; i < j; i, j = i+1, j-1 {
		z[i], z[j] = z[j], z[i]
	}
	sort.Slice(z, func(i, j int) bool { return less(z[i], z[j]) })
}

func less(a, b Member) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Name < b.Name
}
