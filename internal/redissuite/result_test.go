package redissuite

import (
	"reflect"
	"strings"
	"testing"
)

// A piece of runtest's output against a server lacking CONFIG, as runtest
// prints it: colours, an assertion, an error raised in a test and one
// raised at block level, then the summary that repeats them.
const sample = "Testing unit/scripting\n" +
	"[\x1b[0;32;49mok\x1b[0m]: EVAL - Return _G (0 ms)\n" +
	"[\x1b[0;31;49merr\x1b[0m]: Binary code loading failed in tests/unit/scripting.tcl\n" +
	"Expected 'ERR x' to match 'ERR *attempt to call a nil value*' (context: type source line 87)\n" +
	"[\x1b[0;31;49merr\x1b[0m]: Timedout script link is still usable in tests/unit/scripting.tcl\n" +
	"n command `config`, with args beginning with: `set`,\n" +
	"ERR unknown command `config`, with args beginning with: `set`,\n" +
	"    while executing\n" +
	"\"r config set lua-time-limit 10\"\n" +
	"[\x1b[0;36;49mignore\x1b[0m]: Not supported on external server\n" +
	"[\x1b[0;31;49merr\x1b[0m]: n command `debug`, with args beginning with: `set-disable-deny-scripts`, `1`,\n" +
	"ERR unknown command `debug`, with args beginning with: `set-disable-deny-scripts`, `1`,\n" +
	"    while executing\n" +
	"[\x1b[0;32;49mok\x1b[0m]: EVAL - Return _G (1 ms)\n" +
	"!!! WARNING The following tests failed:\n" +
	"*** [err]: Binary code loading failed in tests/unit/scripting.tcl\n"

func TestParse(t *testing.T) {
	want := []Result{
		{Name: "EVAL - Return _G", Status: OK},
		{Name: "Binary code loading failed", Status: Fail, Detail: "Expected 'ERR x' to match 'ERR *attempt to call a nil value*' (context: type source line 87)"},
		{Name: "Timedout script link is still usable", Status: Error, Detail: "ERR unknown command `config`, with args beginning with: `set`,"},
		{Status: Block, Detail: "ERR unknown command `debug`, with args beginning with: `set-disable-deny-scripts`, `1`,"},
		{Name: "EVAL - Return _G", Status: OK},
	}
	if got := Parse(sample); !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestCompare(t *testing.T) {
	redis := Run{Results: []Result{{Name: "a", Status: OK}, {Name: "a", Status: OK}, {Name: "b", Status: OK}, {Name: "c", Status: OK}, {Name: "d", Status: Fail}}}
	serve := Run{Results: []Result{{Name: "a", Status: OK}, {Name: "a", Status: Fail, Detail: "x"}, {Name: "b", Status: OK}}}
	gaps := Compare(redis, &serve)
	want := []Gap{{"a", Fail, "x"}, {"c", NeverReached, ""}}
	if !reflect.DeepEqual(gaps, want) {
		t.Errorf("gaps %+v, want %+v", gaps, want)
	}
	if c := serve.Counts(); c[OK] != 2 || c[Fail] != 1 || c[NeverReached] != 1 {
		t.Errorf("serve's counts %v, want ok 2, fail 1, never reached 1", c)
	}
}

func TestKnown(t *testing.T) {
	k, err := ParseKnown("# comment\nscripting\ta\twhy a\nscripting\tz\twhy z\nscripting\tf\tflaky: timing\n")
	if err != nil {
		t.Fatal(err)
	}
	reg, fixed := k.Check("scripting", []Gap{{"a", Fail, ""}, {"b", Error, "boom"}})
	if len(reg) != 1 || reg[0].Name != "b" || !reflect.DeepEqual(fixed, []string{"z"}) {
		t.Errorf("Check: regressions %v, fixed %v; want [b], [z] (f is flaky)", reg, fixed)
	}
	up := k.Update(map[string][]Gap{"scripting": {{"a", Fail, ""}, {"b", Error, "boom"}}})
	if !strings.HasSuffix(up, "scripting\ta\twhy a\nscripting\tb\terror: boom\nscripting\tf\tflaky: timing\n") {
		t.Errorf("Update:\n%s", up)
	}
	for _, bad := range []string{"scripting\tname only\n", "u\tn\tr\nu\tn\tr\n"} {
		if _, err := ParseKnown(bad); err == nil {
			t.Errorf("ParseKnown(%q): no error", bad)
		}
	}
}
