package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/lint"
)

func init() {
	var b strings.Builder
	b.WriteString(`usage: scriptgen lint [-json] [-warn rules] [-ignore rules] PATH...

Lint checks Lua scripts (files, or directories walked recursively; *_test.lua
files are skipped) statically against their --! header, Redis's command table
and Redis's script environment, and prints one finding per line as

	path:line:col: rule: message

Files pulled in by another script (--! include: path, or --- @include "path")
are checked as part of the scripts that include them. A rule's severity is
changed for one script by a header line (--! lint: warning key-derived,
--! lint: ignore unused) and for one line by a comment on it, or alone on the
line before it (-- lint: ignore key-source).

Exit status: 0 clean (warnings and infos allowed), 1 errors, 2 unreadable
input or a syntax error.

Rules:
`)
	for _, r := range lint.Rules {
		fmt.Fprintf(&b, "\n  %s (%s)\n      %s\n      e.g. %s\n", r.Name, r.Severity, r.Summary, r.Example)
	}
	register(&command{name: "lint", summary: "check scripts statically", usage: b.String(), run: runLint})
}

// ruleList is a flag of comma-separated rule names.
type ruleList struct {
	sev  lint.Severity
	into map[string]lint.Severity
}

func (r ruleList) String() string { return "" }

func (r ruleList) Set(v string) error {
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		if _, ok := lint.RuleByName(n); !ok {
			return fmt.Errorf("unknown rule %q", n)
		}
		r.into[n] = r.sev
	}
	return nil
}

func runLint(e *env, args []string) int {
	fs := e.flags(lookup("lint"))
	asJSON := fs.Bool("json", false, "print findings as a JSON array")
	opt := lint.Options{Severity: map[string]lint.Severity{}}
	var _ flag.Value = ruleList{}
	fs.Var(ruleList{lint.Warning, opt.Severity}, "warn", "report these `rules` (comma-separated) as warnings")
	fs.Var(ruleList{lint.Off, opt.Severity}, "ignore", "do not report these `rules` (comma-separated)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "scriptgen lint: no paths given")
		return ExitUsage
	}
	res, err := lint.Paths(opt, fs.Args()...)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen lint:", err)
		return ExitUsage
	}
	findings := res.Findings
	if *asJSON {
		if findings == nil {
			findings = []lint.Finding{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(findings); err != nil {
			fmt.Fprintln(e.stderr, "scriptgen lint:", err)
			return ExitUsage
		}
	} else {
		var b strings.Builder
		for _, f := range findings {
			b.WriteString(f.String())
			b.WriteByte('\n')
		}
		fmt.Fprint(e.stdout, b.String())
	}
	switch {
	case res.Syntax():
		return ExitUsage
	case res.Count(lint.Error) > 0:
		return ExitFindings
	}
	return ExitOK
}

// loadAndLint loads and lints for the stages that refuse scripts with
// findings (gen, bundle): only error-severity findings come back, so that
// warnings do not stop generation. code is what the command exits with when
// there are findings: ExitUsage for a syntax error, as lint's.
func loadAndLint(e *env, paths []string) (scripts []*script.Script, findings []lint.Finding, code int) {
	res, err := lint.Paths(lint.Options{}, paths...)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen:", err)
		return nil, nil, ExitUsage
	}
	if res.Syntax() {
		return res.Scripts, res.Errors(), ExitUsage
	}
	return res.Scripts, res.Errors(), ExitFindings
}
