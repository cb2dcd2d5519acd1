package lint

import (
	"strings"
	"testing"
)

// snippet lints the header-less snippets of the rule tests without the
// one inferred finding each would carry.
var snippet = Options{Severity: map[string]Severity{RuleInferred: Off}}

func TestInferred(t *testing.T) {
	src := "local jobKey = KEYS[1]\nlocal n = tonumber(ARGV[2])\nreturn redis.call('INCRBY', jobKey, n) + #KEYS[3]"
	got := Source(Options{}, "incrBy-4.lua", []byte(src))
	var lines []string
	for _, f := range got {
		lines = append(lines, f.String())
	}
	want := "incrBy-4.lua:1:1: inferred: info: no --! header: analysed with the contract its body implies, 4 key(s) and 2 arg(s), named incr_by; `scriptgen annotate incrBy-4.lua` writes it down"
	if strings.Join(lines, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), want)
	}
	// Before inference the same body gave one keys-declared error a read.
	if errs := Source(Options{}, "with_header.lua", []byte("--! name: with_header\n"+src)); len(errs) != 3 {
		t.Errorf("with an empty header: %v; want the 3 undeclared reads", errs)
	}
}
