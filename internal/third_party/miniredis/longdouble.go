// scriptgen: INCRBYFLOAT and HINCRBYFLOAT compute in C's long double in
// Redis (t_string.c, t_hash.c), and print the result with ld2string's
// human form: "%.17Lf" without trailing zeros, and "-0" as "0"
// (util.c, Redis 7.0.15). Upstream computed with 128 bits and kept "-0".

package miniredis

import (
	"math/big"
	"runtime"
)

// longDoubleBits is the mantissa of C's long double on the machine this
// runs on, which a redis-server beside it computes with: x87's 64 bits on
// amd64 and 386, IEEE quad's 113 on 64-bit Linux ARM, RISC-V and s390x,
// and a double's 53 where long double is one (Apple's arm64, Windows).
var longDoubleBits = func() uint {
	switch runtime.GOARCH {
	case "amd64", "386":
		if runtime.GOOS != "windows" {
			return 64
		}
	case "arm64", "riscv64", "s390x":
		if runtime.GOOS == "linux" {
			return 113
		}
	}
	return 53
}()

// parseLongDouble reads a number as strtold does, rounded to a long
// double.
func parseLongDouble(s string) (*big.Float, error) {
	v, _, err := big.ParseFloat(s, 10, longDoubleBits, big.ToNearestEven)
	return v, err
}
