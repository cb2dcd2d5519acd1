package transactional

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// benchLimiters are limiters of lua/ratelimit with arguments that keep
// them on their writing path (allowed requests): what the journal covers.
var benchLimiters = []struct {
	name string
	args []string
}{
	{"token_bucket", []string{strconv.Itoa(1 << 40), "1000", "1000", "1"}},
	{"gcra", []string{strconv.Itoa(1 << 30), strconv.Itoa(1 << 30), "1000", "1"}},
	{"window", []string{"[[60000, 1000000000]]", "1"}},
	{"log", []string{"[[1000, 1000000000]]", "1"}},
}

// BenchmarkJournal measures what all-or-nothing costs a script run in the
// engine, per limiter: plain EVALSHA; the prelude-wrapped text as gen
// bundles it, which the engine hosts with its Go journal; the plain script
// under DoTransactional (the same journal, no prelude text); and the
// wrapped text with hosting defeated, the prelude's own Lua journaling
// through the engine's DUMP, RESTORE and friends.
func BenchmarkJournal(b *testing.B) {
	for _, l := range benchLimiters {
		src, err := os.ReadFile(filepath.Join("..", "lua", "ratelimit", l.name+".lua"))
		if err != nil {
			b.Skipf("the library is not there: %v", err)
		}
		body := string(src)
		wrapped := prelude.Wrap(body)
		for _, v := range []struct {
			name string
			text string
			tx   bool
		}{
			{"plain", body, false},
			{"hosted", wrapped, false},
			{"DoTransactional", body, true},
			{"preludeLua", wrapped + "\n", false},
		} {
			b.Run(l.name+"/"+v.name, func(b *testing.B) {
				e := New()
				defer e.Close()
				sha, err := e.Do("SCRIPT", "LOAD", v.text)
				if err != nil {
					b.Fatal(err)
				}
				args := append([]string{"EVALSHA", sha.(string), "1", "{b}k"}, l.args...)
				do := e.Do
				if v.tx {
					do = e.DoTransactional
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := do(args...); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
