package prelude

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// describe and apply are redistest's: the luaflow tests compare the
// keyspace the same way.
var (
	describe = redistest.Describe
	apply    = redistest.Apply
)

// errText is an error reply without Redis's " script: <sha>, on
// @user_script:<line>." suffix, which names the line that raised it last.
func errText(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.Index(s, " script: "); i >= 0 {
		s = s[:i]
	}
	return s
}
