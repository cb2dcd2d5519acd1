//go:build amd64 && !purego

package crc

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

// The carry-less paths need PCLMULQDQ, and SSE4.1 for PEXTRQ; the wide one
// needs AVX-512 with VPCLMULQDQ.
var (
	hasCLMUL  = cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE41
	hasAVX512 = hasCLMUL && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VPCLMULQDQ

	archAvailable = hasCLMUL
)

// archMin is where folding overtakes the portable slicing, whose setup is
// nil.
const archMin = 128

// avx512Min is the least input for the eight 512-bit accumulators.
const avx512Min = 512

//go:noescape
func foldSSE(crc uint64, p []byte, k *[66]uint64) (lo, hi uint64)

//go:noescape
func foldAVX512(crc uint64, p []byte, k *[66]uint64) (lo, hi uint64)

//go:noescape
func shiftClmul(c, n uint64, cache *[8][256]uint64, k *[66]uint64) uint64

//go:noescape
func mulClmul(a, b uint64, k *[66]uint64) uint64

// archUpdate returns the CRC of p (len(p) >= archMin, a multiple of 16)
// continuing crc.
func archUpdate(crc uint64, p []byte) uint64 {
	var lo, hi uint64
	if hasAVX512 && len(p) >= avx512Min {
		lo, hi = foldAVX512(crc, p, &redisClmul)
	} else {
		lo, hi = foldSSE(crc, p, &redisClmul)
	}
	// The folded 128 bits still have to pass through the register: as
	// sixteen bytes fed from zero, eight table lookups per half.
	return shift8(shift8(lo) ^ hi)
}

// archShift multiplies by the cache entries of n's base-256 digits. A length
// with one non-zero digit takes one multiply; shiftClmul multiplies all
// digits in a tree, which costs the same for every longer length.
func archShift(c, n uint64) uint64 {
	if i := (bits.Len64(n) - 1) / 8; n>>(8*i)<<(8*i) == n {
		return mulClmul(c, redisCombineClmul[i][byte(n>>(8*i))], &redisClmul)
	}
	return shiftClmul(c, n, &redisCombineClmul, &redisClmul)
}

// archMul is mulx on the carry-less multiplier.
func archMul(a, b uint64) uint64 {
	return mulClmul(a, b, &redisClmul)
}
