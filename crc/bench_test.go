package crc

import (
	"fmt"
	"hash/crc64"
	"strings"
	"testing"

	"github.com/minio/crc64nvme"
)

var benchSizes = []int{64, 1 << 10, 64 << 10, 1 << 20, 64 << 20}

var benchBuf []byte

func buf(n int) []byte {
	if len(benchBuf) < n {
		benchBuf = make([]byte, n)
		for i := range benchBuf {
			benchBuf[i] = byte(i*131 + i>>9)
		}
	}
	return benchBuf[:n]
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

var sink64 uint64

// jonesTable makes hash/crc64 compute CRC-64/REDIS: Redis's init and
// xorout are 0 where hash/crc64's are all ones, hence the complements.
var jonesTable = crc64.MakeTable(redisPolyReflected)

// BenchmarkCRC64 names its cases size=…/impl=… so that
// `benchstat -col /impl` lays the implementations side by side with ratios.
// minio-nvme is the speed reference: carry-less folding in Go assembly for
// another 64-bit polynomial, which costs the same per byte.
func BenchmarkCRC64(b *testing.B) {
	impls := []struct {
		name string
		f    func(uint64, []byte) uint64
	}{
		{"scriptgen", CRC64},
		{"portable", updatePortable},
		{"stdlib-jones", func(c uint64, p []byte) uint64 { return ^crc64.Update(^c, jonesTable, p) }},
		{"minio-nvme", crc64nvme.Update},
	}
	for _, n := range benchSizes {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("size=%s/impl=%s", sizeName(n), impl.name), func(b *testing.B) {
				p := buf(n)
				b.SetBytes(int64(n))
				for b.Loop() {
					sink64 = impl.f(sink64, p)
				}
			})
		}
	}
}

func BenchmarkCombine64(b *testing.B) {
	impls := []struct {
		name string
		f    func(a, b uint64, n int64) uint64
	}{
		{"scriptgen", Combine64},
		{"portable", func(a, b uint64, n int64) uint64 { return shiftPortable(a, uint64(n)) ^ b }},
	}
	// 0x7f7f… has eight non-zero digits, the most multiplies a length needs.
	for _, n := range []int64{1, 1 << 10, 1 << 20, 1 << 40, 1 << 62, 0x7f7f7f7f7f7f7f7f} {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("len=%#x/impl=%s", n, impl.name), func(b *testing.B) {
				for b.Loop() {
					sink64 = impl.f(sink64, 0x1234, n)
				}
			})
		}
	}
}

var slotKeys = map[int]string{
	10:  "{u:1234}:x",
	32:  "session:{user:12345}:tokens:abcd",
	100: "events:{" + strings.Repeat("abcdefghij", 9) + "}x",
}

// slotKeysNoTag have no braces: the whole key is hashed.
var slotKeysNoTag = map[int]string{
	10:  "user:12345",
	32:  "session:user:12345:tokens:abcdef",
	100: "events:" + strings.Repeat("abcdefghij", 9) + "xyz",
}

var sinkSlot uint16

func BenchmarkSlot(b *testing.B) {
	// Both are called through a func value of the same type, so neither
	// pays for a wrapper the other does not.
	impls := []struct {
		name string
		f    func(string) uint16
	}{
		{"scriptgen", Slot},
		{"go-redis", goRedisSlot},
	}
	for _, n := range []int{10, 32, 100} {
		for _, key := range []string{slotKeys[n], slotKeysNoTag[n]} {
			tag := "tag"
			if key == slotKeysNoTag[n] {
				tag = "plain"
			}
			for _, impl := range impls {
				b.Run(fmt.Sprintf("len=%d/key=%s/impl=%s", n, tag, impl.name), func(b *testing.B) {
					for b.Loop() {
						sinkSlot += impl.f(key)
					}
				})
			}
		}
	}
}

func TestSlotKeysAndBaseline(t *testing.T) {
	for n, k := range slotKeys {
		k2 := slotKeysNoTag[n]
		if len(k2) != n || Slot(k2) != goRedisSlot(k2) {
			t.Errorf("plain benchmark key %q: length or slot wrong", k2)
		}
		if len(k) != n {
			t.Errorf("benchmark key %q has %d bytes, want %d", k, len(k), n)
		}
		if got, want := Slot(k), goRedisSlot(k); got != want {
			t.Errorf("Slot(%q) = %d, go-redis algorithm %d", k, got, want)
		}
	}
}

// goRedisSlot is go-redis v9's internal/hashtag.Slot (which is internal, so
// not importable), minus its random slot for the empty key: two IndexByte
// calls and a bytewise CRC16 loop over the same table.
func goRedisSlot(key string) uint16 {
	if s := strings.IndexByte(key, '{'); s > -1 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+e+1]
		}
	}
	return goRedisCRC16(key) % 16384
}

func goRedisCRC16(key string) (crc uint16) {
	for i := 0; i < len(key); i++ {
		crc = (crc << 8) ^ goRedisTab[(byte(crc>>8)^key[i])&0x00FF]
	}
	return crc
}

// goRedisTab is a copy, not a reference, so the baseline reads a
// [256]uint16 of its own as go-redis does.
var goRedisTab = xmodemTable[0]
