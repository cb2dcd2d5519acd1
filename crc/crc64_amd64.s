//go:build amd64 && !purego

#include "textflag.h"

// Folding: the accumulator X holds 128 bits of message, its first eight bytes
// (H, low qword) the higher powers of x. Moving X by 128j bits is
// H·x^(128j+64) + L·x^(128j); both products are carry-less multiplies by the
// pair of constants at k + 16(j-1) ([x^(128j+63), x^(128j-1)]: reflected
// products carry an extra factor x). The caller reduces the final X.

// FOLD moves accumulator acc past the distance encoded in the constant pair
// k (both halves) and xors the result into dst; t is scratch.
#define FOLD(k, acc, t, dst) \
	MOVOA     acc, t;       \
	PCLMULQDQ $0x00, k, t;  \
	PCLMULQDQ $0x11, k, acc; \
	PXOR      t, dst;       \
	PXOR      acc, dst

// STEP folds acc by k and xors in the 16 bytes at off(SI).
#define STEP(k, acc, t, off) \
	MOVOA     acc, t;       \
	PCLMULQDQ $0x00, k, t;  \
	PCLMULQDQ $0x11, k, acc; \
	PXOR      t, acc;       \
	MOVOU     off(SI), t;   \
	PXOR      t, acc

// func foldSSE(crc uint64, p []byte, k *[66]uint64) (lo, hi uint64)
// len(p) >= 128 and a multiple of 16.
TEXT ·foldSSE(SB), NOSPLIT, $0-56
	MOVQ crc+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ k+32(FP), DX

	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVOU 64(SI), X4
	MOVOU 80(SI), X5
	MOVOU 96(SI), X6
	MOVOU 112(SI), X7
	MOVQ  AX, X8
	PXOR  X8, X0
	ADDQ  $128, SI
	SUBQ  $128, CX

	// Eight independent accumulators hide the multiply latency.
	MOVOU 112(DX), X8 // 1024 bits

loop8:
	CMPQ CX, $128
	JB   reduce8
	STEP(X8, X0, X9, 0)
	STEP(X8, X1, X10, 16)
	STEP(X8, X2, X11, 32)
	STEP(X8, X3, X12, 48)
	STEP(X8, X4, X13, 64)
	STEP(X8, X5, X14, 80)
	STEP(X8, X6, X15, 96)
	STEP(X8, X7, X9, 112)
	ADDQ $128, SI
	SUBQ $128, CX
	JMP  loop8

reduce8:
	MOVOU 96(DX), X8
	FOLD(X8, X0, X9, X7)
	MOVOU 80(DX), X8
	FOLD(X8, X1, X9, X7)
	MOVOU 64(DX), X8
	FOLD(X8, X2, X9, X7)
	MOVOU 48(DX), X8
	FOLD(X8, X3, X9, X7)
	MOVOU 32(DX), X8
	FOLD(X8, X4, X9, X7)
	MOVOU 16(DX), X8
	FOLD(X8, X5, X9, X7)
	MOVOU 0(DX), X8
	FOLD(X8, X6, X9, X7)

loop1:
	CMPQ CX, $16
	JB   done
	STEP(X8, X7, X9, 0)
	ADDQ $16, SI
	SUBQ $16, CX
	JMP  loop1

done:
	MOVQ   X7, AX
	PEXTRQ $1, X7, BX
	MOVQ   AX, lo+40(FP)
	MOVQ   BX, hi+48(FP)
	RET

// ZSTEP folds a 512-bit accumulator (four 128-bit lanes) by the broadcast
// constants in Z16 and xors in the 64 bytes at off(SI).
#define ZSTEP(acc, t, off) \
	VPCLMULQDQ $0x00, Z16, acc, t;  \
	VPCLMULQDQ $0x11, Z16, acc, acc; \
	VPTERNLOGD $0x96, off(SI), t, acc

// ZFOLD folds acc by the constants in Z17 into dst.
#define ZFOLD(acc, t, dst) \
	VPCLMULQDQ $0x00, Z17, acc, t;  \
	VPCLMULQDQ $0x11, Z17, acc, acc; \
	VPTERNLOGD $0x96, acc, t, dst

// func foldAVX512(crc uint64, p []byte, k *[66]uint64) (lo, hi uint64)
// len(p) >= 512 and a multiple of 16.
TEXT ·foldAVX512(SB), NOSPLIT, $0-56
	MOVQ crc+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ k+32(FP), DX

	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 256(SI), Z4
	VMOVDQU64 320(SI), Z5
	VMOVDQU64 384(SI), Z6
	VMOVDQU64 448(SI), Z7
	VMOVQ     AX, X8
	VPXORQ    Z8, Z0, Z0
	ADDQ      $512, SI
	SUBQ      $512, CX

	// Eight 512-bit accumulators, 512 bytes per round: 4096 bits.
	VBROADCASTI32X4 496(DX), Z16

	PCALIGN $32

loop8:
	CMPQ CX, $512
	JB   reduce
	ZSTEP(Z0, Z8, 0)
	ZSTEP(Z1, Z9, 64)
	ZSTEP(Z2, Z10, 128)
	ZSTEP(Z3, Z11, 192)
	ZSTEP(Z4, Z12, 256)
	ZSTEP(Z5, Z13, 320)
	ZSTEP(Z6, Z14, 384)
	ZSTEP(Z7, Z15, 448)
	ADDQ $512, SI
	SUBQ $512, CX
	JMP  loop8

reduce:
	// Fold Z0..Z6 into Z7: Zi is 7-i registers (4(7-i) lanes) early.
	VBROADCASTI32X4 432(DX), Z17 // 28 lanes
	ZFOLD(Z0, Z8, Z7)
	VBROADCASTI32X4 368(DX), Z17 // 24
	ZFOLD(Z1, Z8, Z7)
	VBROADCASTI32X4 304(DX), Z17 // 20
	ZFOLD(Z2, Z8, Z7)
	VBROADCASTI32X4 240(DX), Z17 // 16
	ZFOLD(Z3, Z8, Z7)
	VBROADCASTI32X4 176(DX), Z17 // 12
	ZFOLD(Z4, Z8, Z7)
	VBROADCASTI32X4 112(DX), Z17 // 8
	ZFOLD(Z5, Z8, Z7)
	VBROADCASTI32X4 48(DX), Z17 // 4
	ZFOLD(Z6, Z8, Z7)

	// Whole 64-byte blocks left over, still four lanes at a time.
loop4:
	CMPQ       CX, $64
	JB         lanes
	VPCLMULQDQ $0x00, Z17, Z7, Z8
	VPCLMULQDQ $0x11, Z17, Z7, Z7
	VPTERNLOGD $0x96, 0(SI), Z8, Z7
	ADDQ       $64, SI
	SUBQ       $64, CX
	JMP        loop4

lanes:
	// Fold the four lanes of Z7 into its top lane.
	VEXTRACTI32X4 $1, Z7, X1
	VEXTRACTI32X4 $2, Z7, X2
	VEXTRACTI32X4 $3, Z7, X3
	VMOVDQU       32(DX), X8 // 3 lanes
	VPCLMULQDQ    $0x00, X8, X7, X9
	VPCLMULQDQ    $0x11, X8, X7, X10
	VPTERNLOGD    $0x96, X9, X10, X3
	VMOVDQU       16(DX), X8 // 2 lanes
	VPCLMULQDQ    $0x00, X8, X1, X9
	VPCLMULQDQ    $0x11, X8, X1, X10
	VPTERNLOGD    $0x96, X9, X10, X3
	VMOVDQU       0(DX), X8 // 1 lane
	VPCLMULQDQ    $0x00, X8, X2, X9
	VPCLMULQDQ    $0x11, X8, X2, X10
	VPTERNLOGD    $0x96, X9, X10, X3

	// Remaining 16-byte blocks, one at a time (at most three).
loop1:
	CMPQ       CX, $16
	JB         done
	VPCLMULQDQ $0x00, X8, X3, X9
	VPCLMULQDQ $0x11, X8, X3, X3
	VPTERNLOGD $0x96, 0(SI), X9, X3
	ADDQ       $16, SI
	SUBQ       $16, CX
	JMP        loop1

done:
	VMOVQ   X3, AX
	VPEXTRQ $1, X3, BX
	MOVQ    AX, lo+40(FP)
	MOVQ    BX, hi+48(FP)
	VZEROUPPER
	RET

// MULX sets a to a·b·x mod P (reflected registers in the low qwords; the
// cache entries carry x^-1, so with one of them this is a plain product).
// X15 holds [mu, poly] for the Barrett reduction of the high powers; b and t
// are clobbered.
#define MULX(a, b, t) \
	PCLMULQDQ $0x00, b, a;   \
	MOVOA     a, b;          \
	PCLMULQDQ $0x00, X15, b; \
	PSLLQ     $1, b;         \
	PXOR      a, b;          \
	PCLMULQDQ $0x10, X15, b; \
	MOVOA     b, t;          \
	PSRLQ     $63, t;        \
	PSLLQ     $1, b;         \
	PSLLDQ    $8, t;         \
	PXOR      t, b;          \
	PXOR      b, a;          \
	PSHUFD    $0xee, a, a

// DIGIT loads the cache entry for the next base-256 digit of BX into x.
#define DIGIT(row, x) \
	MOVBQZX BX, R8;                \
	SHRQ    $8, BX;                \
	MOVQ    (row*2048)(DI)(R8*8), x

// func shiftClmul(c, n uint64, cache *[8][256]uint64, k *[66]uint64) uint64
TEXT ·shiftClmul(SB), NOSPLIT, $0-40
	MOVQ  c+0(FP), AX
	MOVQ  n+8(FP), BX
	MOVQ  cache+16(FP), DI
	MOVQ  k+24(FP), DX
	MOVOU 512(DX), X15

	MOVQ AX, X0
	DIGIT(0, X1)
	DIGIT(1, X3)
	DIGIT(2, X4)
	DIGIT(3, X6)
	DIGIT(4, X7)
	DIGIT(5, X9)
	DIGIT(6, X10)

	// A product tree: four independent multiplies, then two, then one.
	MULX(X0, X1, X2)   // c·K0
	MULX(X3, X4, X5)   // K1·K2
	MULX(X6, X7, X8)   // K3·K4
	MULX(X9, X10, X11) // K5·K6
	MULX(X0, X3, X2)
	MULX(X6, X9, X8)
	MULX(X0, X6, X2)

	// Lengths of 2^56 bytes and more have an eighth digit.
	TESTQ BX, BX
	JZ    out
	DIGIT(7, X1)
	MULX(X0, X1, X2)

out:
	MOVQ X0, AX
	MOVQ AX, ret+32(FP)
	RET

// func mulClmul(a, b uint64, k *[66]uint64) uint64
TEXT ·mulClmul(SB), NOSPLIT, $0-32
	MOVQ  k+16(FP), DX
	MOVOU 512(DX), X15
	MOVQ  a+0(FP), X0
	MOVQ  b+8(FP), X1
	MULX(X0, X1, X2)
	MOVQ  X0, AX
	MOVQ  AX, ret+24(FP)
	RET
