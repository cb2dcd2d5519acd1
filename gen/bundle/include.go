package bundle

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/scriptgen/scriptgen/internal/script"
)

// BullMQ's include form, `--- @include "path"`, is read by package script
// (script.Includes), as lint reads it, so that the bundle pastes
// exactly the files whose functions the linter saw. The path is relative
// to the file that holds the line, ".lua" implied.
//
// The file's text goes where the line is, after it (the line is a comment
// and stays, to show where the text came from), as BullMQ's loader does:
// an included helper may use locals the includer declared before the line
// (BullMQ's helpers call rcall). Included files are expanded in turn, and
// each file goes into one script at most once: a later line naming a file
// already pasted, and any cycle, pastes nothing. In a Functions library the
// text is pasted into each function's body, since it may refer to that
// body's locals; `--! include:` helpers, which may not, are shared once.

// includer pastes the files that @include lines name, read through the
// run's Loader.
type includer struct {
	ld *script.Loader
}

// atIncludes lists the @include lines of src, read from file.
func atIncludes(file, src string) []script.Include {
	var out []script.Include
	for _, inc := range script.Includes(file, src) {
		if inc.At {
			out = append(out, inc)
		}
	}
	return out
}

// read returns the text of an included file, checked to be Lua a helper
// can be: no #! line, and gopher-lua parses it.
func (in *includer) read(file string, at script.Include) (string, error) {
	errAt := func(msg string) error {
		return &script.Error{Path: file, Pos: script.Pos{Line: at.Line, Col: at.Col}, Msg: "@include \"" + at.Text + "\": " + msg}
	}
	if filepath.IsAbs(at.Text) {
		return "", errAt("must be a path relative to this file, not an absolute one")
	}
	h, err := in.ld.Lua(at.File)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errAt("no such file (" + filepath.ToSlash(at.File) + ")")
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", errAt(err.Error())
	}
	if strings.HasPrefix(h.Text, "#!") {
		return "", errAt("a helper cannot carry a #! line")
	}
	if h.Syntax != nil {
		return "", h.Syntax
	}
	return withNewline(h.Text), nil
}

// expand pastes the files src's @include lines name, recursively; file is
// the path src was read from, seen the files this script already holds.
func (in *includer) expand(file, src string, seen map[string]bool) (string, error) {
	ats := atIncludes(file, src)
	if len(ats) == 0 {
		return src, nil
	}
	lines := strings.SplitAfter(src, "\n")
	var b strings.Builder
	next := 0
	for _, at := range ats {
		for ; next < at.Line; next++ {
			b.WriteString(lines[next])
		}
		if seen[at.File] {
			continue
		}
		seen[at.File] = true
		text, err := in.read(file, at)
		if err != nil {
			return "", err
		}
		text, err = in.expand(at.File, text, seen)
		if err != nil {
			return "", err
		}
		if !strings.HasSuffix(lines[at.Line-1], "\n") {
			b.WriteByte('\n') // the line was the file's last, without a newline
		}
		b.WriteString(text)
	}
	for ; next < len(lines); next++ {
		b.WriteString(lines[next])
	}
	return b.String(), nil
}

// closure lists every file that src includes, directly or not.
func (in *includer) closure(file, src string) (map[string]bool, error) {
	seen := map[string]bool{filepath.Clean(file): true}
	if _, err := in.expand(file, src, seen); err != nil {
		return nil, err
	}
	delete(seen, filepath.Clean(file))
	return seen, nil
}
