package miniredis

import (
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// longDouble500p1Plus12 is INCRBYFLOAT's and HINCRBYFLOAT's result for
// 500.1 plus 12, by the bits of the long double they compute in: what
// redis-server 7.0.15 answers on amd64 (64 bits), where upstream's tests
// expected "512.1"; the others are that sum rounded to their precision.
var longDouble500p1Plus12 = map[uint]string{
	53:  "512.10000000000002274",
	64:  "512.09999999999999998",
	113: "512.1",
}

// TestIncrbyfloatLongDouble holds INCRBYFLOAT and HINCRBYFLOAT to what
// redis-server 7.0.15 answers on amd64 (transactional/integration
// compares them with a running one).
func TestIncrbyfloatLongDouble(t *testing.T) {
	if longDoubleBits != 64 {
		t.Skipf("long double has %d bits here; the figures are amd64's", longDoubleBits)
	}
	s := RunT(t)
	c, err := proto.Dial(s.Addr())
	ok(t, err)
	defer c.Close()
	for _, tc := range []struct{ start, by, want string }{
		{"500.1", "12", "512.09999999999999998"},
		// Redis's suite, type/incr, "No negative zero".
		{"0.024390243902439025", "-0.024390243902439025", "0"},
		{"", "0.024390243902439025", "0.02439024390243902"},
		// Past 2^64 a long double drops the 1.
		{"100000000000000000000", "1", "100000000000000000000"},
		{"1e30", "1", "1000000000000000000024696061952"},
	} {
		s.FlushAll()
		if tc.start != "" {
			ok(t, s.Set("k", tc.start))
			s.HSet("h", "f", tc.start)
		}
		mustDo(t, c, "INCRBYFLOAT", "k", tc.by, proto.String(tc.want))
		mustDo(t, c, "HINCRBYFLOAT", "h", "f", tc.by, proto.String(tc.want))
	}
}
