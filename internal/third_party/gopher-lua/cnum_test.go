package lua

import (
	"math"
	"testing"
)

// scriptgen's tests of cnum.go. What Redis prints and reads is checked
// against a real redis-server by the runner's tests (TestNumbersMatchRedis,
// TestToNumberMatchesRedis in package transactional); these pin the Go side.

func TestFormatNumber(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		prec int
		want string
	}{
		{1.0 / 3, 14, "0.33333333333333"},
		{1e15, 14, "1e+15"},
		{1e14, 14, "1e+14"},
		{123456789012345, 14, "1.2345678901234e+14"},
		{99999999999999, 14, "99999999999999"},
		{100, 14, "100"},
		{0.1, 17, "0.10000000000000001"},
		{1e20, 17, "1e+20"},
		{123456789012345678, 14, "1.2345678901235e+17"},
		{0.0001, 14, "0.0001"},
		{0.00001, 14, "1e-05"},
		{-2.5, 14, "-2.5"},
		{9.99999999999999999, 14, "10"},
		{5e-324, 14, "4.9406564584125e-324"},
		{math.Copysign(0, -1), 14, "-0"},
		{math.Inf(-1), 14, "-inf"},
		{math.NaN(), 14, "nan"},
		{math.Copysign(math.NaN(), -1), 17, "-nan"},
	} {
		if got := FormatNumber(tt.f, tt.prec); got != tt.want {
			t.Errorf("%%.%dg of %v = %q, want %q", tt.prec, tt.f, got, tt.want)
		}
		if got := LNumber(tt.f).String(); tt.prec == 14 && got != tt.want {
			t.Errorf("LNumber(%v).String() = %q, want %q", tt.f, got, tt.want)
		}
	}
}

// The fast paths for integers read and print exactly what the general ones do.
func TestIntegerFastPaths(t *testing.T) {
	var nums []float64
	for _, f := range []float64{0, 1, 7, 255, 256, 1023, 1024, 1e13, 1e14 - 1, 1e14, 1e15, 1e16, 1e17 - 1, 1e17, 1 << 53, 1<<53 + 2, 1e300} {
		nums = append(nums, f, -f, f+0.5, -f-0.5)
	}
	nums = append(nums, math.Copysign(0, -1), 1699999999999, 0.1)
	for _, f := range nums {
		for _, prec := range []int{14, 17} {
			if fast, slow := FormatNumber(f, prec), formatG(f, prec, false); fast != slow {
				t.Errorf("FormatNumber(%v, %d) = %q, %%.%dg %q", f, prec, fast, prec, slow)
			}
		}
	}
	for _, s := range []string{"0", "-0", "12", "-12", "007", "123456789012345", "-123456789012345", "1234567890123456", "", "-", "1a", "+1", " 1"} {
		fast, fastOK := plainInteger(s)
		if !fastOK {
			continue
		}
		_, start, i, _ := cPrefix(s)
		slow, _, slowOK := decFloat(s, start, i)
		if !slowOK || fast != slow || math.Signbit(fast) != math.Signbit(slow) {
			t.Errorf("plainInteger(%q) = %v, strtod's %v", s, fast, slow)
		}
	}
}
