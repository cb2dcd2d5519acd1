package sim

import (
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"
)

// library loads the bundled limiters from the source tree.
func library(tb testing.TB) map[string]*script.Script {
	tb.Helper()
	ss, errs, err := script.Load("../lua/ratelimit")
	if err != nil {
		tb.Fatal(err)
	}
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	by := map[string]*script.Script{}
	for _, s := range ss {
		by[s.Name] = s
	}
	return by
}
