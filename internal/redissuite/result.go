package redissuite

import (
	"regexp"
	"strings"
)

// Status is what became of one test.
type Status string

const (
	OK    Status = "ok"
	Fail  Status = "fail"  // an assertion did not hold
	Error Status = "error" // the test raised: an error reply, a lost connection
	// Block is an error raised outside any test, in a start_server or tags
	// block: runtest skips the rest of that block, so its tests are never
	// reached.
	Block Status = "block error"
	// NeverReached is a test that ran on redis-server and not at all on
	// serve: its unit or block aborted first.
	NeverReached Status = "never reached"
)

// Result is one test of one run.
type Result struct {
	Name   string
	Status Status
	// Detail is the first line of what runtest printed for a failure.
	Detail string
}

var (
	ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")
	// "[ok]: name (12 ms)"
	okLine = regexp.MustCompile(`^\[ok\]: (.*) \(\d+ ms\)$`)
	// "[err]: name in tests/unit/x.tcl"; without " in tests/" it is a block
	// error and the text is the error's.
	errLine = regexp.MustCompile(`^\[err\]: (.*?)( in tests/\S+\.tcl)?$`)
	// A summary after the run repeats every failure; it starts here.
	summaryStart = "!!! WARNING The following tests failed:"
)

// Parse reads the output of one runtest run. Runtest prints an error and an
// assertion both as "[err]"; an error's detail carries a Tcl stack ("while
// executing"), an assertion's does not.
func Parse(out string) []Result {
	var res []Result
	lines := strings.Split(ansi.ReplaceAllString(out, ""), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		if line == summaryStart {
			break
		}
		if m := okLine.FindStringSubmatch(line); m != nil {
			res = append(res, Result{Name: m[1], Status: OK})
			continue
		}
		m := errLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var detail []string
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "[") {
			i++
			detail = append(detail, strings.TrimRight(lines[i], "\r"))
		}
		r := Result{Name: m[1], Status: Fail}
		if len(detail) > 0 {
			r.Detail = detail[0]
		}
		for _, d := range detail {
			if strings.Contains(d, "while executing") {
				r.Status = Error
				// Runtest strips the first 10 characters of an error,
				// meant for "assertion:"; the next line holds it whole.
				if len(detail) > 1 {
					r.Detail = detail[1]
				}
				break
			}
		}
		if m[2] == "" {
			r.Name, r.Status = "", Block
			r.Detail = m[1]
			if len(detail) > 0 && !strings.HasPrefix(detail[0], " ") {
				r.Detail = detail[0]
			}
		}
		r.Detail = clip(r.Detail)
		res = append(res, r)
	}
	return res
}

// clip keeps a detail to a line a table can hold: some assertions print a
// whole reply.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}
