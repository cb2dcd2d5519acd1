package crc

import (
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// Slot vectors: each was checked against CLUSTER KEYSLOT of redis-server
// 7.0.15 (TestSlotAgainstRedis re-checks them on a live server).
var slotGolden = []struct {
	key  string
	slot uint16
}{
	{"", 0},
	{"{}", 15257},
	{"{}a", 10875},
	{"a{}", 6082},
	{"{{a}}", 10276},
	{"a{b}c{d}", 3300},
	{"foo{", 7673},
	{"foo{}", 5542},
	{"}{bar}", 5061},
	{"{user1", 6548},
	{"{", 4092},
	{"}", 12090},
	{"{}}", 14790},
	{"{a}}", 15495},
	{"123456789", 12739},
	{"{user1000}.following", 3443},
	{"{user1000}.followers", 3443},
	{"foo{bar}{zap}", 5061},
}

func TestSlotGolden(t *testing.T) {
	for _, g := range slotGolden {
		if got := Slot(g.key); got != g.slot {
			t.Errorf("Slot(%q) = %d, want %d", g.key, got, g.slot)
		}
	}
}

func TestCRC16Check(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31c3 {
		t.Fatalf("CRC16 = %#x, want 0x31c3", got)
	}
}

// crc16Ref is CRC-16/XMODEM one bit at a time, as the Redis Cluster spec's
// appendix describes it.
func crc16Ref(p []byte) uint16 {
	var c uint16
	for _, b := range p {
		c ^= uint16(b) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return c
}

func TestCRC16Random(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := randBytes(r, 4096)
	for range 500 {
		n := r.IntN(300)
		off := r.IntN(8)
		p := buf[off : off+n]
		if got, want := CRC16(p), crc16Ref(p); got != want {
			t.Fatalf("CRC16(len %d) = %#x, want %#x", n, got, want)
		}
	}
}

const redisPolyReflected = 0x95ac9329ac4bc9b5

// crc64Ref is CRC-64/REDIS one bit at a time, the definition the fast paths
// are checked against.
func crc64Ref(c uint64, p []byte) uint64 {
	for _, b := range p {
		c ^= uint64(b)
		for range 8 {
			c = c>>1 ^ redisPolyReflected&-(c&1)
		}
	}
	return c
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestCRC64Check(t *testing.T) {
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64 = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
	if got := CRC64(0, nil); got != 0 {
		t.Fatalf("CRC64(0, nil) = %#x, want 0", got)
	}
}

// paths lists every CRC64 implementation this CPU can run, so each is held
// to the bit-at-a-time reference.
func paths() map[string]func(uint64, []byte) uint64 {
	m := map[string]func(uint64, []byte) uint64{
		"CRC64":       CRC64,
		"portable":    updatePortable,
		"generated":   redisUpdate,
		"stream1":     func(c uint64, p []byte) uint64 { n := len(p) &^ 15; return redisUpdate(stream1(c, p[:n]), p[n:]) },
		"multistream": multiStream,
	}
	for name, f := range archPaths() {
		m[name] = f
	}
	return m
}

// multiStream runs the two-chain loop on inputs of any length from 32 bytes,
// below streamMin too, so that short segments are held to the reference.
func multiStream(crc uint64, p []byte) uint64 {
	if len(p) < 32 {
		return redisUpdate(crc, p)
	}
	half := uint64(len(p) / 2)
	i := (bits.Len64(half) - 1) / 8
	d := half >> (8 * i)
	if i == 0 {
		d &^= 15
	}
	seg := int(d << (8 * i))
	crc = streams2(crc, p[:2*seg], seg, redisCombineClmul[i][d])
	return updatePortable(crc, p[2*seg:])
}

func TestCRC64AllPathsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	buf := randBytes(r, 1<<20+64)
	lengths := []int{0, 1, 7, 8, 15, 16, 17, 63, 64, 127, 128, 129, 255, 256, 511, 512, 576, 1023, 1024, 1025, 1024 + 448 + 48 + 5, 4095, 4096, 1 << 20}
	for range 40 {
		lengths = append(lengths, r.IntN(1<<20+1))
	}
	for range 200 {
		lengths = append(lengths, r.IntN(5000))
	}
	for _, n := range lengths {
		off := r.IntN(64)
		p := buf[off : off+n]
		init := r.Uint64()
		want := crc64Ref(init, p)
		for name, f := range paths() {
			if got := f(init, p); got != want {
				t.Fatalf("%s(%#x, len %d at offset %d) = %#x, want %#x", name, init, n, off, got, want)
			}
		}
	}
}

func TestCRC64Incremental(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := randBytes(r, 100000)
	want := CRC64(0, p)
	for range 100 {
		cut := r.IntN(len(p) + 1)
		if got := CRC64(CRC64(0, p[:cut]), p[cut:]); got != want {
			t.Fatalf("split at %d: %#x, want %#x", cut, got, want)
		}
	}
}

// mulRef multiplies reflected registers modulo P one bit at a time.
func mulRef(a, b uint64) uint64 {
	var p uint64
	for m := uint64(1) << 63; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		b = b>>1 ^ redisPolyReflected&-(b&1)
	}
	return p
}

// shiftRef moves register c past n zero bytes by square-and-multiply over
// mulRef, independent of the combine cache.
func shiftRef(c, n uint64) uint64 {
	sq := uint64(1) << 55 // x^8
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			c = mulRef(c, sq)
		}
		sq = mulRef(sq, sq)
	}
	return c
}

func TestCombine64Property(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	buf := randBytes(r, 300000)
	for range 300 {
		na, nb := r.IntN(3000), r.IntN(3000)
		if r.IntN(10) == 0 {
			nb = r.IntN(len(buf) - na)
		}
		a, b := buf[:na], buf[na:na+nb]
		got := Combine64(CRC64(0, a), CRC64(0, b), int64(nb))
		if want := CRC64(0, buf[:na+nb]); got != want {
			t.Fatalf("Combine64 at %d+%d = %#x, want %#x", na, nb, got, want)
		}
	}
}

func TestCombine64HugeLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	lengths := []uint64{1, 255, 256, 1 << 10, 1 << 20, 1 << 40, 1<<62 - 1, 1 << 62, 1<<63 - 1, 0x0101010101010101, 0x7f7f7f7f7f7f7f7f}
	for range 200 {
		lengths = append(lengths, r.Uint64()>>uint(1+r.IntN(63)))
	}
	for _, n := range lengths {
		a, b := r.Uint64(), r.Uint64()
		want := shiftRef(a, n) ^ b
		if got := Combine64(a, b, int64(n)); got != want {
			t.Fatalf("Combine64(%#x, %#x, %d) = %#x, want %#x", a, b, n, got, want)
		}
		if got := shiftPortable(a, n); got != shiftRef(a, n) {
			t.Fatalf("shiftPortable(%#x, %d) wrong", a, n)
		}
		// The generated generic combine uses the plain cache, not the one
		// carrying x^-1: both must agree.
		if got := redisCombine(a, b, int64(n)); got != want {
			t.Fatalf("redisCombine(%#x, %#x, %d) = %#x, want %#x", a, b, n, got, want)
		}
	}
}

func TestCombine64Negative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Combine64 with lenB < 0 did not panic")
		}
	}()
	Combine64(1, 2, -1)
}

func TestClmul(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 1000 {
		a, b := r.Uint64(), r.Uint64()
		var hi, lo uint64
		for i := range 64 {
			if a>>uint(i)&1 != 0 {
				lo ^= b << uint(i)
				hi ^= b >> uint(64-i) & -uint64(min(i, 1))
			}
		}
		if h, l := clmul(a, b); h != hi || l != lo {
			t.Fatalf("clmul(%#x, %#x) = %#x:%#x, want %#x:%#x", a, b, h, l, hi, lo)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	p := make([]byte, 4096)
	key := "user:{1000}:followers"
	var sink uint64
	for name, f := range map[string]func(){
		"Slot":      func() { sink += uint64(Slot(key)) },
		"CRC16":     func() { sink += uint64(CRC16(p[:100])) },
		"CRC64":     func() { sink += CRC64(0, p) },
		"Combine64": func() { sink += Combine64(1, 2, 1<<40) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
	_ = sink
}

// barrettMulx is mulx with the reduction the amd64 assembly uses (Barrett,
// two more carry-less multiplies) instead of table lookups; it pins down the
// bit bookkeeping of reflected operands the assembly relies on.
func barrettMulx(a, b uint64) uint64 {
	mu, poly := redisClmul[64], redisClmul[65]
	L, h := clmul(a, b)
	_, v1lo := clmul(h, mu)
	q := v1lo<<1 ^ h
	v2hi, v2lo := clmul(q, poly)
	return v2lo>>63 | v2hi<<1 ^ L
}

func TestBarrettModel(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for range 10000 {
		a, b := r.Uint64(), r.Uint64()
		if got, want := barrettMulx(a, b), mulx(a, b); got != want {
			t.Fatalf("barrettMulx(%#x, %#x) = %#x, want %#x", a, b, got, want)
		}
	}
}

// slotRef is the hash-tag rule written the obvious way.
func slotRef(key string) uint16 {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return crc16Ref([]byte(key)) % Slots
}

func TestSlotRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	alphabet := "{}{}ab|z\x00"
	for range 200000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := Slot(string(b)), slotRef(string(b)); got != want {
			t.Fatalf("Slot(%q) = %d, want %d", b, got, want)
		}
	}
}

func FuzzSlot(f *testing.F) {
	for _, g := range slotGolden {
		f.Add(g.key)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if got, want := Slot(key), slotRef(key); got != want {
			t.Fatalf("Slot(%q) = %d, want %d", key, got, want)
		}
	})
}

// TestSlotBracePlacement puts a '{' and a '}' (and sometimes a second '}'
// before the '{') at every pair of positions of keys of every length up to
// 40, which covers each word and each overlap of the word-scanning paths.
// The filler bytes are the ones SWAR tests trip on: '{'^1 and '}'^1 (a
// borrow out of a matching byte makes them look like matches), 0x00, 0x80
// and 0xff.
func TestSlotBracePlacement(t *testing.T) {
	for _, fill := range []byte{'a', 'z', '|', 0x00, 0x80, 0xff} {
		for n := range 41 {
			b := make([]byte, n)
			for i := range n + 1 {
				for j := range n + 1 {
					for extra := range 2 {
						for k := range b {
							b[k] = fill
						}
						if extra == 1 && i > 0 {
							b[i/2] = '}'
						}
						if i < n {
							b[i] = '{'
						}
						if j < n && j != i {
							b[j] = '}'
						}
						key := string(b)
						if got, want := Slot(key), slotRef(key); got != want {
							t.Fatalf("Slot(%q) = %d, want %d", key, got, want)
						}
					}
				}
			}
		}
	}
}
