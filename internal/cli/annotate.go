package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/scriptgen/scriptgen/internal/annotate"
)

func init() {
	register(&command{name: "annotate", summary: "write the header a script's body implies", usage: `usage: scriptgen annotate [-diff] PATH...

Annotate writes into each script under PATH (files, or directories walked
recursively; files other scripts include are left alone) the --! header its
body implies: a key: line per KEYS element it reads (or its file name's
name-N promises), an arg: line per ARGV element with a type from its use
(tonumber: int, or float; cjson.decode: json; cmsgpack.unpack: bytes;
compared with '': optional), returns: when every way out returns a literal
of one type, and flags: no-writes when no call can write. Names come from the
locals the elements are assigned to, or the script's leading comment.

A hand-written header is never changed, only completed with the kinds of
line it lacks; annotating twice changes nothing. Read what it wrote, rename
and document, then lint. All files are written or none is. With -diff
nothing is written: annotate prints a unified diff and exits 1 when some
file would change.

Exit status: 0 every file written or already annotated; 1 a file would
change (-diff), could not be written, or has header errors; 2 bad usage,
unreadable input or a Lua syntax error. On any error nothing is written.
`, run: runAnnotate})
}

func runAnnotate(e *env, args []string) int {
	fs := e.flags(lookup("annotate"))
	check := fs.Bool("diff", false, "print a unified diff and exit 1 when a file would change; write nothing")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "scriptgen annotate: no paths given")
		return ExitUsage
	}
	files, errs, err := annotate.Paths(fs.Args()...)
	if err != nil {
		fmt.Fprintln(e.stderr, "scriptgen annotate:", err)
		return ExitUsage
	}
	if len(errs) > 0 {
		fmt.Fprintln(e.stderr, errs.Error())
		fmt.Fprintln(e.stderr, "scriptgen annotate: fix the errors above; nothing written")
		for _, err := range errs {
			if err.Syntax {
				return ExitUsage
			}
		}
		return ExitFindings
	}
	writes := map[string][]byte{}
	var dirs []string
	for _, f := range files {
		if !f.Changed {
			continue
		}
		if *check {
			e.stdout.Write(diff.Diff(f.Path+" (on disk)", f.Old, f.Path+" (annotated)", f.New))
		}
		writes[f.Path] = f.New
		dirs = append(dirs, filepath.Dir(f.Path))
	}
	if len(writes) == 0 {
		return ExitOK
	}
	if *check {
		return ExitFindings
	}
	// commit stages beside the directory it is given: inside the deepest
	// directory holding every file, where the files themselves are.
	if err := commit(filepath.Join(commonDir(dirs), ".annotate"), writes, nil); err != nil {
		fmt.Fprintf(e.stderr, "scriptgen annotate: %v; nothing written\n", err)
		return ExitFindings
	}
	return ExitOK
}

// commonDir is the deepest directory holding all of dirs.
func commonDir(dirs []string) string {
	common := filepath.Clean(dirs[0])
	for _, d := range dirs[1:] {
		d = filepath.Clean(d)
		for common != "." && common != string(filepath.Separator) && d != common && !strings.HasPrefix(d, common+string(filepath.Separator)) {
			common = filepath.Dir(common)
		}
	}
	return common
}
