package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/lint"
)

func init() {
	var b strings.Builder
	b.WriteString(`usage: scriptgen lint [-json] PATH...

Lint checks Lua scripts (files, or directories walked recursively; *_test.lua
files are skipped) statically against their --! header and Redis's script
environment, and prints one finding per line as path:line:col: message (rule).
It exits 1 when there are findings.

Rules:
`)
	for _, r := range lint.Rules {
		fmt.Fprintf(&b, "\n  %s\n      %s\n      e.g. %s\n", r.Name, r.Summary, r.Example)
	}
	register(&command{name: "lint", summary: "check scripts statically", usage: b.String(), run: runLint})
}

func runLint(e *env, args []string) int {
	fs := e.flags(lookup("lint"))
	asJSON := fs.Bool("json", false, "print findings as a JSON array")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "scriptgen lint: no paths given")
		return ExitUsage
	}
	findings, code := lintPaths(e, fs.Args())
	if code == ExitUsage {
		return code
	}
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
		for _, f := range findings {
			fmt.Fprintln(e.stdout, f)
		}
	}
	if len(findings) > 0 {
		return ExitFindings
	}
	return ExitOK
}

// lintPaths loads and lints; the scripts that parsed come back for callers
// (bundle, gen) that refuse to go on when there are findings.
func lintPaths(e *env, paths []string) ([]lint.Finding, int) {
	_, findings, code := loadAndLint(e, paths)
	return findings, code
}

func loadAndLint(e *env, paths []string) ([]*script.Script, []lint.Finding, int) {
	scripts, errs, err := script.Load(paths...)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen:", err)
		return nil, nil, ExitUsage
	}
	findings := lint.Header(errs)
	for _, s := range scripts {
		findings = append(findings, lint.Script(s)...)
	}
	return scripts, findings, ExitOK
}
