package lint

import (
	"os"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/luaflow"
	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// TestRecallRealWorld measures, on a script that takes no KEYS at all
// (qless.lua: every key it touches is built from literals and ARGV), the
// share of redis.call sites with a key that the key rules report. The
// count is the test's own: sites found by the scanner, their command read
// from its literal first argument, counted when Redis's command table
// gives the command keys; a site is found when a key-source or
// key-derived finding points inside its parentheses. Set SCRIPTGEN_RECALL
// to the script's path (`make realworld` fetches qless's pinned release).
func TestRecallRealWorld(t *testing.T) {
	path := os.Getenv("SCRIPTGEN_RECALL")
	if path == "" {
		t.Skip("SCRIPTGEN_RECALL names no script to measure")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	lineStart := []int{0, 0}
	for i := range len(code) {
		if code[i] == '\n' {
			lineStart = append(lineStart, i+1)
		}
	}
	found := map[int]bool{}
	for _, f := range Source(Options{}, path, src) {
		if f.Rule == RuleKeySource || f.Rule == RuleKeyDerived {
			found[lineStart[f.Line]+f.Col-1] = true
		}
	}
	toks := script.Tokens(code)
	at := func(i int) int { return lineStart[toks[i].Pos.Line] + toks[i].Pos.Column - 1 }
	sites, hits := 0, 0
	var missed []string
	for _, o := range luaflow.SiteOffsets(code) {
		i := 0
		for i < len(toks) && at(i) < o.At {
			i++
		}
		if i+4 >= len(toks) || toks[i+4].Type != parse.TString || o.End < 0 {
			continue
		}
		cmd := commands.Lookup(toks[i+4].Str)
		if cmd == nil || len(cmd.KeySpecs) == 0 {
			continue
		}
		sites++
		hit := false
		for p := range found {
			hit = hit || p > o.At && p < o.End
		}
		if hit {
			hits++
		} else {
			missed = append(missed, strings.SplitN(code[o.At:o.End], "\n", 2)[0])
		}
	}
	recall := float64(hits) / float64(max(sites, 1))
	t.Logf("%s: %d of %d redis.call sites with keys reported (%.1f%%)", path, hits, sites, 100*recall)
	for _, m := range missed {
		t.Logf("missed: %s", m)
	}
	if recall < 0.95 {
		t.Errorf("recall %.1f%%; want at least 95%%", 100*recall)
	}
}
