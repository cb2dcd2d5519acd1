package cli

import (
	"fmt"
	"path/filepath"

	"github.com/scriptgen/scriptgen/internal/catalog"
	"github.com/scriptgen/scriptgen/internal/script"
)

func init() {
	register(&command{name: "doc", summary: "write the Markdown catalogue of a script directory", usage: `usage: scriptgen doc [-pkg NAME] [-o FILE] [-diff] DIR

Doc writes the catalogue of the scripts in DIR as Markdown: for each script
its doc, keys with hash-tag advice, arguments, reply, flags, the Go
signature of the wrapper scriptgen gen writes (as package NAME, default:
DIR's base name), the FCALL and EVALSHA forms, and the memory per
identifier where the script states it ("Memory per identifier: ..." in the
comments after its header).

The page goes to stdout, or to FILE with -o. With -diff nothing is written:
doc prints a unified diff and exits 1 when FILE is stale.

	scriptgen doc -pkg ratelimit -o generated/ratelimit/README.md lua/ratelimit
`, run: runDoc})
}

func runDoc(e *env, args []string) int {
	fs := e.flags(lookup("doc"))
	pkg := fs.String("pkg", "", "Go package `name` of the wrappers (default: DIR's base name)")
	out := fs.String("o", "", "write to `file` instead of stdout")
	check := fs.Bool("diff", false, "print a diff and exit 1 when -o's file is stale; write nothing")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "scriptgen doc: want one script directory")
		return ExitUsage
	}
	if *check && *out == "" {
		fmt.Fprintln(e.stderr, "scriptgen doc: -diff needs -o FILE to compare with")
		return ExitUsage
	}
	dir := fs.Arg(0)
	scripts, errs, err := script.Load(dir)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen doc:", err)
		return ExitUsage
	}
	if len(errs) > 0 {
		code := ExitFindings
		for _, x := range errs {
			fmt.Fprintln(e.stderr, x)
			if x.Syntax {
				code = ExitUsage
			}
		}
		return code
	}
	if len(scripts) == 0 {
		fmt.Fprintf(e.stderr, "scriptgen doc: no scripts in %s\n", dir)
		return ExitUsage
	}
	name, ok := pkgName(e, "doc", *pkg, dir)
	if !ok {
		return ExitUsage
	}
	page, err := catalog.Markdown(scripts, catalog.Options{Package: name, Source: filepath.ToSlash(filepath.Clean(dir))})
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen doc:", err)
		return ExitFindings
	}
	if *out == "" {
		e.stdout.Write(page)
		return ExitOK
	}
	stale, err := writeOrDiff(e, *out, page, *check)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen doc:", err)
		return ExitFindings
	}
	if stale {
		fmt.Fprintf(e.stderr, "scriptgen doc: %s is stale; run scriptgen doc without -diff\n", *out)
		return ExitFindings
	}
	return ExitOK
}
