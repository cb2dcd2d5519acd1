package lua51

import "testing"

// TestFormatNumber: lua_tolstring's "%.14g".
func TestFormatNumber(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{1, "1"}, {0.1, "0.1"}, {1e15, "1e+15"}, {2.0 / 3, "0.66666666666667"}, {-0.5, "-0.5"}} {
		if got := FormatNumber(c.f); got != c.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
