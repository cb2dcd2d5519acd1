package peers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The harness's own logic, on recorded go test -json output and made-up
// rows: these run in -short mode, where TestPeers does not.

func TestParseGoTest(t *testing.T) {
	const events = `{"Action":"run","Test":"TestA"}
{"Action":"output","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Test":"TestA"}
{"Action":"run","Test":"TestB"}
{"Action":"run","Test":"TestB/sub"}
{"Action":"output","Test":"TestB/sub","Output":"=== RUN   TestB/sub\n"}
{"Action":"output","Test":"TestB/sub","Output":"    b_test.go:12: got 1, want 2\n"}
{"Action":"fail","Test":"TestB/sub"}
{"Action":"fail","Test":"TestB"}
{"Action":"run","Test":"TestC"}
{"Action":"skip","Test":"TestC"}
{"Action":"run","Test":"TestD/At(Fri_Nov_27_20:29:23_UTC_2026)"}
{"Action":"pass","Test":"TestD/At(Fri_Nov_27_20:29:23_UTC_2026)"}
{"Action":"run","Test":"TestE"}
{"Action":"output","Test":"TestE","Output":"    e_test.go:3: waiting\n"}
{"Action":"output","Output":"panic: test timed out after 8m0s\n"}
{"Action":"fail"}
`
	res := parseGoTest(strings.NewReader(events))
	want := result{
		"TestA":          {pass: true},
		"TestB":          {first: "(no output)"},
		"TestB/sub":      {first: "b_test.go:12: got 1, want 2"},
		"TestD/At(TIME)": {pass: true},
		"TestE":          {first: "did not finish: e_test.go:3: waiting"},
	}
	if len(res) != len(want) {
		t.Errorf("parsed %d tests %v, want %d %v", len(res), res.names(), len(want), want.names())
	}
	for name, o := range want {
		if res[name] != o {
			t.Errorf("%s: %+v, want %+v", name, res[name], o)
		}
	}
}

func TestParseGoTestPackageFailure(t *testing.T) {
	res := parseGoTest(strings.NewReader(`{"Action":"output","Output":"FAIL\tx [setup failed]\n"}
{"Action":"fail"}
`))
	if o, ok := res["(package)"]; !ok || o.pass || !strings.Contains(o.first, "setup failed") {
		t.Errorf("a package that fails with no test to blame: %+v", res)
	}
}

func TestParseNode(t *testing.T) {
	res := parseNode(strings.NewReader("warning\n"+`{"test":"q/jobs","pass":true,"detail":"ok"}`+"\n"+
		`{"test":"q/flow","pass":false,"detail":"hang: completed 0/6"}`+"\n"), "")
	if !res["q/jobs"].pass || res["q/flow"].pass || res["q/flow"].first != "hang: completed 0/6" || len(res) != 2 {
		t.Errorf("parsed %+v", res)
	}
	res = parseNode(strings.NewReader(""), "Error: connect ECONNREFUSED\n    at x\n")
	if o, ok := res["(scenario)"]; !ok || o.pass || !strings.Contains(o.first, "ECONNREFUSED") {
		t.Errorf("a scenario that printed nothing: %+v", res)
	}
}

func TestCheck(t *testing.T) {
	const s = "suite"
	redis := row{s, targetRedis, result{"A": {pass: true}, "B": {pass: true}, "C": {pass: true}, "D": {first: "x"}}}
	serve := row{s, targetServe, result{"A": {pass: true}, "B": {first: "b"}, "D": {first: "x"}}}
	mini := row{s, targetMiniredis, result{}}
	for _, tt := range []struct {
		name  string
		known map[string]string
		want  []string // substrings, one a problem
	}{
		{"unlisted regressions fail, a missing test too", nil,
			[]string{"B passes on Redis but fails on serve: b", "C passes on Redis but fails on serve"}},
		{"listed regressions pass", map[string]string{"B": "why", "C": "why"}, nil},
		{"a listed test that passes must go", map[string]string{"A": "fixed", "B": "why", "C": "why"},
			[]string{"A is listed in known (fixed) but no longer fails"}},
		{"a listed test that fails on Redis too must go", map[string]string{"B": "why", "C": "why", "D": "both"},
			[]string{"D is listed in known (both)"}},
	} {
		got := check([]row{redis, serve, mini}, map[string]map[string]string{s: tt.known})
		if len(got) != len(tt.want) {
			t.Errorf("%s: %q, want %d problems", tt.name, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q lacks %q", tt.name, got[i], w)
			}
		}
	}
	dead := row{s, targetRedis, result{"A": {first: "x"}}}
	if got := check([]row{dead}, nil); !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "no test passes on Redis") }) {
		t.Errorf("a suite that passes nothing on Redis: %q", got)
	}
}

// TestRetry runs a real go test twice over a module made here: a test that
// fails once passes on the second run, one that always fails stays failed.
func TestRetry(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.invalid/flaky\n\ngo 1.22\n",
		"flaky_test.go": `package flaky

import (
	"os"
	"testing"
)

func TestOnce(t *testing.T) {
	marker := os.Getenv("MARKER")
	if _, err := os.Stat(marker); err != nil {
		os.WriteFile(marker, nil, 0o644)
		t.Fatal("first run")
	}
}

func TestAlways(t *testing.T) { t.Fatal("every run") }

func TestFine(t *testing.T) {}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := goSuite{pkg: ".", env: func(addr string) []string { return []string{"MARKER=" + addr} }}
	marker := filepath.Join(dir, "marker")
	ref := result{"TestOnce": {pass: true}, "TestAlways": {pass: true}, "TestFine": {pass: true}}
	res := s.run(dir, marker)
	if res["TestOnce"].pass || res["TestAlways"].pass || !res["TestFine"].pass {
		t.Fatalf("first run: %+v", res)
	}
	if again := s.retry(dir, marker, ref, res); !slices.Equal(again, []string{"TestOnce"}) {
		t.Errorf("passed on the second run: %q, want [TestOnce]", again)
	}
	if !res["TestOnce"].pass || res["TestAlways"].pass || res["TestAlways"].first != "flaky_test.go:16: every run" {
		t.Errorf("after the retry: %+v", res)
	}
}
