package commands

import (
	"strings"
	"testing"
)

// synopsis prints a grammar as Redis's documentation does, so that the
// parse can be read against https://redis.io/commands.
func synopsis(args []Arg) string {
	var parts []string
	for _, a := range args {
		var s string
		switch a.Type {
		case "pure-token":
			s = a.Token
		case "oneof", "block":
			sep := " "
			if a.Type == "oneof" {
				sep = "|"
			}
			var sub []string
			for _, c := range a.Args {
				sub = append(sub, synopsis([]Arg{c}))
			}
			s = strings.Join(sub, sep)
			if a.Token != "" {
				s = a.Token + " " + s
			}
		default:
			s = a.Name
			if a.Token != "" {
				s = a.Token + " " + s
			}
		}
		if a.Multiple {
			s += " ..."
		}
		if a.Optional {
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestGrammar(t *testing.T) {
	for name, want := range map[string]string{
		"get":   "key",
		"set":   "key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]",
		"xtrim": "key MAXLEN|MINID [=|~] threshold [LIMIT count]",
		"mset":  "key value ...",
	} {
		g, ok := Grammar(name)
		if !ok {
			t.Fatalf("no grammar for %s", name)
		}
		if got := synopsis(g); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if _, ok := Grammar("nosuch"); ok {
		t.Error("a grammar for nosuch")
	}

}
