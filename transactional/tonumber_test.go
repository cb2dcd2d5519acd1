package transactional

import (
	"context"
	"fmt"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// tonumber must read what Redis's strtod reads: checked input by input
// against a real redis-server.
func TestToNumberMatchesRedis(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	e := New()
	t.Cleanup(e.Close)
	const src = "local n = tonumber(ARGV[1], tonumber(ARGV[2])) if n == nil then return 'nil' end return tostring(n)"
	inputs := []string{
		"1", "-1", "+1", " 12 ", "\t7\n", "1e15", "1E3", "1e", "1e+", "2.5e-3", ".5", "5.", ".", "-.5e1",
		"0x1A", "0X1a", "0x", "0x.8", "0x1p4", "0x1P-2", "-0x10", "inf", "-inf", "INF", "infinity", "Infinity",
		"nan", "-nan", "nan(123)", "nano", "1e400", "-1e400", "1e-400", "123abc", "abc", "", " ", "1 2",
		"0b101", "0o17", "1_000", "١", "9007199254740993", "3.14159265358979", "00012", "1.0e2 ",
		"0", "-0", "-", "123456789012345", "-999999999999999", "1234567890123456", "1000", "-12",
	}
	ctx := context.Background()
	for _, base := range []string{"10", "16", "2", "36"} {
		for _, in := range inputs {
			want, err := rdb.Eval(ctx, src, nil, in, base).Text()
			if err != nil {
				want = "error: " + err.Error()
			}
			got, err := e.Do("EVAL", src, "0", in, base)
			if err != nil {
				got = "error: " + err.Error()
			}
			if fmt.Sprint(got) != want {
				t.Errorf("tonumber(%q, %s): engine %q, redis %q", in, base, got, want)
			}
		}
	}
}
