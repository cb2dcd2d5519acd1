package script

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// Lua is one file's Lua as every stage reads it: a script's body or a
// helper's text, parsed once, with the comment lines that pull other files
// in or silence lint.
type Lua struct {
	Path string
	Text string     // a script's Body: the shebang line blanked
	AST  []ast.Stmt // nil when Syntax is set, or released (Script.Chunk parses again)
	// Syntax is the parser's error as path:line:col, nil when Text parsed.
	Syntax   *Error
	Includes []Include
	// Ignores maps a line to the rules a `-- lint: ignore rule,…` comment
	// silences there: the comment's own line, or the next line when the
	// comment stands alone.
	Ignores map[int][]string
}

// Include is one line that pulls another file in: `--! include: path`, or
// BullMQ's `--- @include "path"` (At), whose file is pasted where the line
// is, in the includer's scope; `--! include:` helpers are shared once,
// ahead of the script.
type Include struct {
	Text string // the path as written
	File string // the path resolved against the includer's directory (filepath.Join: cleaned)
	Line int
	// Col is the column of the path; of its opening quote for @include.
	Col int
	At  bool
}

var (
	atInclude  = regexp.MustCompile(`^(\s*---?\s*@include\s+)"([^"]+)"`)
	lineIgnore = regexp.MustCompile(`--\s*lint:\s*ignore\s+([A-Za-z0-9_, -]+)`)
)

// ReadLua parses text, the Lua of the file at path, and reads its include
// and ignore comments.
func ReadLua(path, text string) *Lua {
	l := &Lua{Path: path, Text: text, Includes: Includes(path, text), Ignores: map[int][]string{}}
	for i, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "lint") {
			continue // most lines: spare them the expression
		}
		m := lineIgnore.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		target := i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			target++ // a comment line of its own covers the next line
		}
		for _, r := range strings.FieldsFunc(line[m[2]:m[3]], func(r rune) bool { return r == ',' || r == ' ' }) {
			l.Ignores[target] = append(l.Ignores[target], r)
		}
	}
	stmts, err := ParseLua(path, text)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Path: path, Pos: Pos{Line: 1, Col: 1}, Msg: err.Error()}
		}
		e.Syntax = true
		l.Syntax = e
		return l
	}
	l.AST = stmts
	return l
}

// Includes lists the include lines of text, the Lua of the file at path,
// without parsing it: for the bundler, which pastes text it has already
// checked. An @include path without ".lua" gets it, as BullMQ's loader
// adds it.
func Includes(path, text string) []Include {
	var out []Include
	dir := filepath.Dir(path)
	for i, line := range strings.Split(text, "\n") {
		if trimmed := strings.TrimLeft(line, " \t"); strings.HasPrefix(trimmed, "--!") {
			// Read as the header parser reads the line, for helpers too.
			key, p, _, col, ok := splitField(len(line)-len(trimmed), strings.TrimRight(trimmed, "\r"))
			if ok && key == "include" && p != "" {
				out = append(out, Include{Text: p, File: filepath.Join(dir, filepath.FromSlash(p)), Line: i + 1, Col: col})
			}
		} else if !strings.Contains(line, "@include") {
			continue
		} else if m := atInclude.FindStringSubmatchIndex(line); m != nil {
			p := line[m[4]:m[5]]
			rel := p
			if !strings.HasSuffix(rel, ".lua") {
				rel += ".lua"
			}
			out = append(out, Include{Text: p, File: filepath.Join(dir, filepath.FromSlash(rel)), Line: i + 1, Col: m[4], At: true})
		}
	}
	return out
}

// Ignored reports whether a `-- lint: ignore` comment silences rule on line.
func (l *Lua) Ignored(line int, rule string) bool {
	for _, r := range l.Ignores[line] {
		if r == rule || r == "all" {
			return true
		}
	}
	return false
}
