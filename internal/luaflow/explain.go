package luaflow

import (
	"fmt"
	"sort"
	"strings"
)

// A Journaled write is one that a failed run of its script would have to
// undo: something after it in the run may fail.
type Journaled struct {
	Line, Col int    // where its redis call starts in the code (Col 0: not known)
	Command   string // upper case, when written out
	Why       string // what may fail after it, and where
	GaveUp    bool   // the proof gave up on the whole script at Line, for Why
}

// Explain lists the writes of code (as Needed reads it) that a failed run
// would have to undo, in source order, each with the first thing found
// after it that may fail: what a script author changes to have the script
// ship as it stands (Needed false), as concurrency reads everything before
// it writes. Nothing when Needed(code) is false. When the proof gives up on
// the whole script, one entry says where and why, with no Command.
func Explain(code string) []Journaled {
	an := Analyze(code)
	if !an.Needed {
		return nil
	}
	if an.gaveUp != nil || an.Sites == nil {
		j := Journaled{Why: "a syntax error", GaveUp: true}
		if an.gaveUp != nil {
			j.Line, j.Why = an.gaveUp.line, an.gaveUp.why
		}
		return []Journaled{j}
	}
	offs := an.Offsets(code)
	var out []Journaled
	for i, site := range an.Sites {
		w, refuted := an.why[site]
		if !refuted && !an.nested[site] {
			continue
		}
		j := Journaled{Line: site.Line()}
		if len(offs) == len(an.Sites) && offs[i].Line == site.Line() {
			j.Col = offs[i].At - strings.LastIndexByte(code[:offs[i].At], '\n')
		}
		j.Command = literalCommand(site)
		switch {
		case refuted:
			j.Why = fmt.Sprintf("line %d may fail after it: %s", w.line, w.why)
		default:
			j.Why = "it is in a function body, where no write is taken as the last thing that can fail"
		}
		out = append(out, j)
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Line < out[k].Line })
	return out
}
