package integration

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
)

func init() {
	for _, src := range syntaxSources {
		cases = append(cases, tcase{name: "syntax/" + src, cmds: [][]string{{"SCRIPT", "LOAD", src}}})
	}
}

// syntaxSources exercise each error path of Lua 5.1's lexer and parser.
var syntaxSources = []string{
	"return +", "if x then", "local = 1", "x = ", "for i=1 do end", "return 'unclosed", "end", "return 1 2",
	"local function", "return )", "x.y.z", "return {1,2", "goto x", "return 0x", "f(", "local t = {} t.",
	"return [[abc", "--[[ x", "return 1..2", "a, b", "return #", "if x then\n\nelse", "local t = {\n1,\n2",
	"x = 1\n(f)()", "break", "function f() return ... end", "return 'a\\300'", "return [==[ x ]=]",
	"return [=x", "(x) = 1", "f() = 1", "return 1e", "return 3..4", "local a <const> = 1", "return a // b",
	"::l::", "return function(..., a) end", "return function(a,) end", "return 'ab\ncd'", "x = [[\n[[",
	"return [[a[[b]]c]]", "for a b", "while true", "repeat", "return x:y", "do return end return",
	"local function f(a b) end", "return {[1] 2}", "return not", "t = {a = }", "return 1 + + 1",
	"return \"\\", "x = 1 2", "if x then elseif then end", "return function() end end",
	"a.b:c = 1", "return ;", "local x = (", "return x[", "return ~= 1", "return 1 .. .. 2",
}

// TestSyntaxErrorsRandom compares compile errors of pseudo-random token
// soups (a fixed seed, so a failure reproduces) between the real server and
// the engine: every message of the syntax checker, on inputs nobody wrote by
// hand.
func TestSyntaxErrorsRandom(t *testing.T) {
	srv := redistest.Start(t)
	e := transactional.New()
	t.Cleanup(e.Close)
	real := dial(t, srv.Addr)
	tokens := []string{
		"local", "x", "y", "=", "(", ")", "{", "}", "[", "]", ",", ";", ".", "..", "...", ":", "function", "end",
		"if", "then", "else", "elseif", "for", "in", "do", "while", "repeat", "until", "return", "break", "nil",
		"true", "not", "and", "or", "+", "-", "*", "^", "#", "==", "~=", "<=", "1", "2.5", "0x1f", "'s'",
		"[[l]]", "\n", "f", "t", "--c\n",
	}
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 400; i++ {
		n := 1 + rng.Intn(8)
		parts := make([]string, n)
		for j := range parts {
			parts[j] = tokens[rng.Intn(len(tokens))]
		}
		src := strings.Join(parts, " ")
		want := string(real.do(t, "SCRIPT", "LOAD", src))
		got := string(render(must(e.Do("SCRIPT", "LOAD", src)), false))
		if strings.HasPrefix(want, "-") || strings.HasPrefix(got, "-") {
			if want != got {
				t.Errorf("SCRIPT LOAD %q\n redis:  %q\n engine: %q", src, want, got)
			}
		}
	}
}

func must(v any, _ error) any { return v }
