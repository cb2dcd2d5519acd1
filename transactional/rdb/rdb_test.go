package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/crc"
)

// normal sorts what has no order in Redis (set members, hash fields) so
// that values compare with DeepEqual.
func normal(v Value) Value {
	switch v := v.(type) {
	case Set:
		s := append(Set(nil), v...)
		sort.Strings(s)
		return s
	case Hash:
		h := append(Hash(nil), v...)
		sort.Slice(h, func(i, j int) bool { return h[i].Name < h[j].Name })
		return h
	case ZSet:
		z := append(ZSet(nil), v...)
		sort.Slice(z, func(i, j int) bool { return less(z[i], z[j]) })
		return z
	case *Stream:
		s := *v
		if s.FirstID == (StreamID{}) && len(s.Entries) > 0 {
			s.FirstID = s.Entries[0].ID
		}
		return &s
	}
	return v
}

func randomString(r *rand.Rand) string {
	switch r.Intn(6) {
	case 0:
		return strconv.FormatInt(r.Int63n(1<<uint(r.Intn(62)+1))-r.Int63n(1<<20), 10)
	case 1:
		return strings.Repeat("ab", r.Intn(600))
	case 2:
		return ""
	}
	b := make([]byte, r.Intn(80))
	r.Read(b)
	return string(b)
}

func randomValue(r *rand.Rand) Value {
	n := 1 + r.Intn(1<<uint(r.Intn(11)))
	switch r.Intn(6) {
	case 0:
		return String(randomString(r))
	case 1:
		l := make(List, n)
		for i := range l {
			l[i] = randomString(r)
		}
		return l
	case 2:
		seen, s := map[string]bool{}, Set{}
		ints := r.Intn(2) == 0
		for len(s) < n {
			m := randomString(r)
			if ints {
				m = strconv.FormatInt(r.Int63()>>uint(r.Intn(63)), 10)
			}
			if !seen[m] {
				seen[m] = true
				s = append(s, m)
			}
		}
		return s
	case 3:
		seen, h := map[string]bool{}, Hash{}
		for len(h) < n {
			f := randomString(r)
			if !seen[f] {
				seen[f] = true
				h = append(h, Field{f, randomString(r)})
			}
		}
		return h
	case 4:
		seen, z := map[string]bool{}, ZSet{}
		for len(z) < n {
			m := randomString(r)
			if !seen[m] {
				seen[m] = true
				scores := []float64{r.NormFloat64() * 1e6, float64(r.Intn(100)), math.Inf(1), math.Inf(-1), 0.1, 1e300}
				z = append(z, Member{m, scores[r.Intn(len(scores))]})
			}
		}
		sort.Slice(z, func(i, j int) bool { return less(z[i], z[j]) })
		return z
	}
	s := &Stream{EntriesAdded: uint64(n)}
	id := StreamID{uint64(r.Int63n(1 << 45)), 0}
	for i := 0; i < n; i++ {
		id.Seq += uint64(r.Intn(3))
		if r.Intn(4) == 0 {
			id = StreamID{id.Ms + uint64(r.Intn(5000)), 0}
		}
		e := StreamEntry{ID: id}
		for j := 0; j < 1+r.Intn(3); j++ {
			e.Fields = append(e.Fields, fmt.Sprint("f", r.Intn(3)), randomString(r))
		}
		s.Entries = append(s.Entries, e)
		id.Seq++
	}
	s.LastID = s.Entries[len(s.Entries)-1].ID
	s.Groups = []Group{{Name: "g", LastID: s.LastID, EntriesRead: int64(n),
		Pending:   []Pending{{ID: s.Entries[0].ID, Consumer: "c", DeliveryTime: 1700000000000, DeliveryCount: 2}},
		Consumers: []Consumer{{Name: "c", SeenTime: 1700000000001}, {Name: "idle", SeenTime: 5}}}}
	return s
}

// TestRoundTrip: Restore(Dump(v)) is v for random values of every type and
// size, across every encoding Dump chooses.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		v := randomValue(r)
		p := Dump(v)
		got, err := Restore(p)
		if err != nil {
			t.Fatalf("case %d (%s): %v", i, v.Type(), err)
		}
		if !reflect.DeepEqual(normal(got), normal(v)) {
			t.Fatalf("case %d (%s): restored\n%.500v\nwant\n%.500v", i, v.Type(), got, v)
		}
	}
}

// TestPayloadErrors: Redis's two error texts, for what Redis gives them.
func TestPayloadErrors(t *testing.T) {
	good := Dump(String("hello"))
	withVersion := func(v uint16) []byte {
		p := append([]byte(nil), good...)
		binary.LittleEndian.PutUint16(p[len(p)-10:], v)
		binary.LittleEndian.PutUint64(p[len(p)-8:], crc.CRC64(0, p[:len(p)-8]))
		return p
	}
	resum := func(body []byte) []byte {
		p := append(append([]byte(nil), body...), 10, 0)
		return binary.LittleEndian.AppendUint64(p, crc.CRC64(0, p))
	}
	flipped := append([]byte(nil), good...)
	flipped[2] ^= 1
	for _, tc := range []struct {
		name    string
		payload []byte
		want    error
	}{
		{"empty", nil, ErrPayload},
		{"nine bytes", good[len(good)-9:], ErrPayload},
		{"flipped bit", flipped, ErrPayload},
		{"version 11", withVersion(11), ErrPayload},
		{"version 9", withVersion(9), nil},
		{"unknown type", resum([]byte{42, 0}), ErrBadData},
		{"module type", resum([]byte{7, 0}), ErrBadData},
		{"truncated string", resum([]byte{0, 5, 'a'}), ErrBadData},
		{"empty list", resum([]byte{typeListQuicklist2, 0}), ErrBadData},
		{"empty hash", resum([]byte{typeHash, 0}), ErrBadData},
		{"duplicate set member", resum([]byte{typeSet, 2, 1, 'a', 1, 'a'}), ErrBadData},
		{"bad listpack", resum([]byte{typeHashListpack, 3, 1, 2, 3}), ErrBadData},
		{"lzf too short", resum([]byte{0, 0xC3, 2, 5, 1, 'a', 'b'}), ErrBadData},
	} {
		_, err := Restore(tc.payload)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	if ErrPayload.Error() != "DUMP payload version or checksum are wrong" || ErrBadData.Error() != "Bad data format" {
		t.Error("the error texts must be Redis's")
	}
}

// TestKnownPayloads pins bytes that follow from the format alone.
func TestKnownPayloads(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		body []byte // before version and checksum
	}{
		{String("10"), []byte{0, 0xC0, 10}},
		{String("-129"), []byte{0, 0xC1, 0x7F, 0xFF}},
		{String("0123"), []byte{0, 4, '0', '1', '2', '3'}},
		{String("4294967296"), append([]byte{0, 10}, "4294967296"...)},
		{Set{"3", "1", "2"}, []byte{typeSetIntset, 14, 2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0, 3, 0}},
		{List{"a", "1"}, []byte{typeListQuicklist2, 1, 2, 12, 12, 0, 0, 0, 2, 0, 0x81, 'a', 2, 1, 1, 0xFF}},
	} {
		p := Dump(tc.v)
		if !bytes.Equal(p[:len(p)-10], tc.body) {
			t.Errorf("%v: body % x, want % x", tc.v, p[:len(p)-10], tc.body)
		}
	}
}

func TestLZF(t *testing.T) {
	// "abcabcabc…": a literal run, then one back reference of 2+ctrl>>5 (+ extension).
	out, err := lzfDecompress([]byte{2, 'a', 'b', 'c', 0xE0, 3, 2}, 15)
	if err != nil || string(out) != "abcabcabcabcabc" {
		t.Fatalf("%q, %v", out, err)
	}
	if _, err := lzfDecompress([]byte{0xE0, 4, 200}, 15); err == nil {
		t.Fatal("a reference before the start must fail")
	}
}

func BenchmarkDump(b *testing.B) {
	for _, n := range []int{10, 1000, 100000} {
		h := make(Hash, n)
		for i := range h {
			h[i] = Field{"field" + strconv.Itoa(i), strconv.Itoa(i * 7)}
		}
		b.Run(fmt.Sprintf("hash-%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Dump(h)
			}
		})
		p := Dump(h)
		b.Run(fmt.Sprintf("restore-hash-%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for i := 0; i < b.N; i++ {
				if _, err := Restore(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
