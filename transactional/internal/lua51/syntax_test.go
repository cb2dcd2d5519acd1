package lua51

import "testing"

// TestCheckSyntax: Lua 5.1's own messages, and Lua 5.2 syntax refused as
// Redis's Lua refuses it. The differential suite (package integration)
// compares many more with a real redis-server.
func TestCheckSyntax(t *testing.T) {
	for src, want := range map[string]string{
		"return 1":            "",
		"if x then\n":         "user_script:2: 'end' expected (to close 'if' at line 1) near '<eof>'",
		"x = ":                "user_script:1: unexpected symbol near '<eof>'",
		"return 1 2":          "user_script:1: '<eof>' expected near '2'",
		"goto x":              "user_script:1: '=' expected near 'x'",
		"::l::":               "user_script:1: unexpected symbol near ':'",
		"return 'unclosed":    "user_script:1: unfinished string near '<eof>'",
		"local a <const> = 1": "user_script:1: unexpected symbol near '<'",
	} {
		if got := checkSyntax(src, "user_script"); got != want {
			t.Errorf("checkSyntax(%q) = %q, want %q", src, got, want)
		}
	}
}
