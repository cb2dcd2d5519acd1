//go:build amd64 && !purego

package crc

import (
	"math/rand/v2"
	"testing"
)

// archPaths returns each carry-less path this CPU runs, wrapped to accept
// any length like CRC64 does.
func archPaths() map[string]func(uint64, []byte) uint64 {
	m := map[string]func(uint64, []byte) uint64{}
	if hasCLMUL {
		m["sse-pclmul"] = func(c uint64, p []byte) uint64 {
			if len(p) >= 128 {
				n := len(p) &^ 15
				lo, hi := foldSSE(c, p[:n], &redisClmul)
				c, p = shift8(shift8(lo)^hi), p[n:]
			}
			return redisUpdate(c, p)
		}
	}
	if hasAVX512 {
		m["avx512-vpclmul"] = func(c uint64, p []byte) uint64 {
			if len(p) >= avx512Min {
				n := len(p) &^ 15
				lo, hi := foldAVX512(c, p[:n], &redisClmul)
				c, p = shift8(shift8(lo)^hi), p[n:]
			}
			return redisUpdate(c, p)
		}
	}
	return m
}

func TestArchPathsListed(t *testing.T) {
	t.Logf("PCLMULQDQ path: %v, AVX-512 VPCLMULQDQ path: %v", hasCLMUL, hasAVX512)
	if hasCLMUL && len(archPaths()) == 0 {
		t.Fatal("a carry-less path is available but not under test")
	}
}

func TestMulClmul(t *testing.T) {
	if !hasCLMUL {
		t.Skip("no PCLMULQDQ")
	}
	r := rand.New(rand.NewPCG(21, 22))
	for range 10000 {
		a, b := r.Uint64(), r.Uint64()
		if got, want := mulClmul(a, b, &redisClmul), mulx(a, b); got != want {
			t.Fatalf("mulClmul(%#x, %#x) = %#x, want %#x", a, b, got, want)
		}
	}
}
