package peers

import (
	"bufio"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strings"
)

// outcome is one test's (or scenario part's) result on one target.
type outcome struct {
	pass  bool
	first string // the first line it printed about its failure
}

// result is one suite on one target: its tests by name (subtests named
// Parent/Sub, as go test names them). Skipped tests are not counted.
type result map[string]outcome

func (r result) passed() (n int) {
	for _, o := range r {
		if o.pass {
			n++
		}
	}
	return n
}

func (r result) names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// testEvent is the part of go test -json's events (cmd/test2json) read here.
type testEvent struct {
	Action string
	Test   string
	Output string
}

// parseGoTest reads go test -json output: every test and subtest that ran
// to a verdict, and those that started and never ended (the binary died or
// timed out under them), which fail. A package that failed with no test to
// blame (a build error, a panic in TestMain) becomes the test "(package)".
func parseGoTest(r io.Reader) result {
	res := result{}
	output := map[string][]string{}
	started := map[string]bool{}
	var pkgFailed bool
	dec := json.NewDecoder(r)
	for {
		var e testEvent
		if err := dec.Decode(&e); err != nil {
			break
		}
		e.Test = stableName(e.Test)
		switch {
		case e.Action == "output" || e.Action == "build-output":
			output[e.Test] = append(output[e.Test], e.Output)
		case e.Test == "" && e.Action == "fail":
			pkgFailed = true
		case e.Test == "":
		case e.Action == "run":
			started[e.Test] = true
		case e.Action == "pass":
			res[e.Test] = outcome{pass: true}
		case e.Action == "fail":
			res[e.Test] = outcome{first: firstFailure(output[e.Test])}
		case e.Action == "skip":
			delete(started, e.Test)
		}
	}
	for name := range started {
		if _, ok := res[name]; !ok {
			res[name] = outcome{first: "did not finish: " + firstFailure(output[name])}
		}
	}
	if pkgFailed && len(res) == res.passed() {
		res["(package)"] = outcome{first: lastLines(output[""], 3)}
	}
	return res
}

// clockTime is a time.Time printed into a subtest's name (go test writes
// its spaces as underscores), as asynq's TestParseOption does: the name
// differs from run to run, and so from target to target.
var clockTime = regexp.MustCompile(`[A-Z][a-z]{2}_[A-Z][a-z]{2}_+\d{1,2}_\d{2}:\d{2}:\d{2}_[A-Z]+_\d{4}`)

// stableName names a test the same on every target.
func stableName(name string) string {
	return clockTime.ReplaceAllString(name, "TIME")
}

// firstFailure is the first line a failing test printed that is not go
// test's own framing: usually file:line: and the assertion.
func firstFailure(lines []string) string {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		return clip(l)
	}
	return "(no output)"
}

func lastLines(lines []string, n int) string {
	var keep []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	keep = keep[max(0, len(keep)-n):]
	return clip(strings.Join(keep, " | "))
}

// clip keeps the table's lines readable.
func clip(s string) string {
	const most = 240
	if len(s) > most {
		return s[:most] + "…"
	}
	return s
}

// nodeLine is what each part of a Node scenario prints (testdata/node/common.js).
type nodeLine struct {
	Test   string
	Pass   bool
	Detail string
}

// parseNode reads a scenario's stdout: one JSON line a part. Anything else
// it printed is ignored; a scenario that printed no part at all becomes the
// test "(scenario)", failed with the end of its stderr.
func parseNode(stdout io.Reader, stderr string) result {
	res := result{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l nodeLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Test == "" {
			continue
		}
		o := outcome{pass: l.Pass}
		if !l.Pass {
			o.first = clip(l.Detail)
		}
		res[l.Test] = o
	}
	if len(res) == 0 {
		res["(scenario)"] = outcome{first: lastLines(strings.Split(stderr, "\n"), 3)}
	}
	return res
}
