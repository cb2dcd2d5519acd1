package catalog

import (
	"regexp"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/script"
)

// TestTransactionalJournal: the page says how the bundle undoes each
// transactional script's writes, as the bundler decides it: gcra,
// concurrency and credits as they stand, token_bucket (made to need it)
// with the inline journal, window (made to need it) with the runtime.
func TestTransactionalJournal(t *testing.T) {
	scripts, errs, err := script.Load("../../lua/ratelimit")
	if err != nil || len(errs) > 0 {
		t.Fatalf("loading the library: %v %v", err, errs)
	}
	pexpire := regexp.MustCompile(`redis.call\('PEXPIRE', KEYS\[1\], (\w+)\)`)
	for _, s := range scripts {
		s.Flags = append(s.Flags, script.Transactional)
		if s.Name == "token_bucket" {
			// A PEXPIRE that could fail keeps the HSET before it under
			// the inline journal.
			s.Body = pexpire.ReplaceAllString(s.Body, "redis.call('PEXPIRE', KEYS[1], $1 + (tonumber(ARGV[9]) or 0))")
			s.Source = []byte(s.Body)
		}
		if s.Name == "window" {
			// A PEXPIRE that could fail leaves the HSETs before it to
			// the runtime.
			s.Body = strings.Replace(s.Body, "redis.call('PEXPIRE', key, ttl)", "redis.call('PEXPIRE', key, ttl + (tonumber(ARGV[9]) or 0))", 1)
			s.Source = []byte(s.Body)
		}
	}
	page, err := Markdown(scripts, Options{Package: "ratelimit", Source: "lua/ratelimit"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"gcra":         "all or nothing as it stands",
		"token_bucket": "an inline journal, no runtime",
		"concurrency":  "all or nothing as it stands",
		"credits":      "all or nothing as it stands",
		"window":       "undone by the rollback runtime",
	} {
		i := strings.Index(string(page), "\n## "+name+"\n")
		if i < 0 {
			t.Fatalf("no section for %s", name)
		}
		sec := string(page[i+1:])
		if j := strings.Index(sec[1:], "\n## "); j >= 0 {
			sec = sec[:j+1]
		}
		if !strings.Contains(sec, want) {
			t.Errorf("%s's section does not say %q", name, want)
		}
	}
}
