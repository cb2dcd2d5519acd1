package miniredis

import (
	"math"
	"testing"
)

// TestFormatScore holds formatScore to redis-server 7.0.15's replies
// (ZSCORE after ZADD of the input; types/score-format in
// transactional/integration compares with a running one).
func TestFormatScore(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.1, "0.10000000000000001"},
		{1.5e-7, "1.4999999999999999e-07"},
		{1e17, "1e+17"},
		{1 << 63, "9.2233720368547758e+18"},
		{123456.789, "123456.789"},
		{2.4 - 1.2 + 1.2, "2.3999999999999999"},
		{1.5, "1.5"},
		{3, "3"},
		{math.Copysign(0, -1), "-0"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
	} {
		if got := formatScore(tc.in); got != tc.want {
			t.Errorf("formatScore(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
