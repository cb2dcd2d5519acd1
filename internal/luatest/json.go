package luatest

import (
	"encoding/json"
	"io"
	"time"
)

// event is one line of `go test -json`'s stream (cmd/test2json), so that
// editors and CI tools that read Go test results read script tests too.
type event struct {
	Time    time.Time `json:"Time"`
	Action  string    `json:"Action"`
	Package string    `json:"Package,omitempty"`
	Test    string    `json:"Test,omitempty"`
	Elapsed *float64  `json:"Elapsed,omitempty"`
	Output  string    `json:"Output,omitempty"`
}

// reporter prints a run as text, or as test2json events.
type reporter struct {
	w    io.Writer
	json bool
	pkg  string // the test file
}

func (r *reporter) emit(action, test, output string, elapsed time.Duration, timed bool) {
	e := event{Time: time.Now().UTC(), Action: action, Package: r.pkg, Test: test, Output: output}
	if timed {
		s := elapsed.Round(time.Millisecond).Seconds()
		e.Elapsed = &s
	}
	b, _ := json.Marshal(e)
	r.w.Write(append(b, '\n'))
}

// output writes text lines; in JSON mode each becomes an output event of test.
func (r *reporter) output(test, text string) {
	if !r.json {
		io.WriteString(r.w, text)
		return
	}
	for len(text) > 0 {
		i := 0
		for i < len(text) && text[i] != '\n' {
			i++
		}
		if i < len(text) {
			i++
		}
		r.emit("output", test, text[:i], 0, false)
		text = text[i:]
	}
}

func (r *reporter) action(action, test string, elapsed time.Duration) {
	if r.json {
		r.emit(action, test, "", elapsed, action != "run" && action != "start")
	}
}
