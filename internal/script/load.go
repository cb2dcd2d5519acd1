package script

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/parse"
)

// IsTest reports whether path names a Lua test file (`*_test.lua`).
func IsTest(path string) bool { return strings.HasSuffix(path, "_test.lua") }

// Files expands paths (files or directories, walked recursively) into the
// sorted list of Lua sources they hold. Test files are included only when
// tests is set; then only test files are returned.
func Files(paths []string, tests bool) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if !strings.HasSuffix(root, ".lua") {
				return nil, &fs.PathError{Op: "read", Path: root, Err: errors.New("not a .lua file")}
			}
			if IsTest(root) == tests {
				add(filepath.Clean(root))
			}
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".lua") && IsTest(p) == tests {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// Load parses every script under paths. Header and syntax errors of all files
// come back together in errs; err is for input that could not be read.
// Scripts with errors are left out of the result. The scripts share one
// Loader (LoaderOf) for the files they include.
func Load(paths ...string) (scripts []*Script, errs ErrorList, err error) {
	return NewLoader(nil).Load(paths...)
}

// Load is the package's Load, reading through ld.
func (ld *Loader) Load(paths ...string) (scripts []*Script, errs ErrorList, err error) {
	files, err := Files(paths, false)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]*Script{}
	for _, f := range files {
		s, perr, err := ld.Parse(f)
		if err != nil {
			return nil, nil, err
		}
		bad := collect(&errs, perr)
		if _, serr := s.Chunk(); collect(&errs, serr) {
			bad = true
		}
		// Two scripts of one directory become one Go package and one
		// Functions library, so their names must differ.
		dirName := filepath.Dir(f) + "\x00" + s.Name
		if prev, dup := byName[dirName]; dup && s.Name != "" {
			errs = append(errs, &Error{Path: f, Pos: Pos{1, 1}, Msg: "script name " + s.Name + " already used by " + prev.Path})
			bad = true
		}
		if !bad {
			byName[dirName] = s
			scripts = append(scripts, s)
		}
	}
	errs.Sort()
	return scripts, errs, nil
}

func collect(errs *ErrorList, err error) bool {
	if err == nil {
		return false
	}
	var l ErrorList
	if errors.As(err, &l) {
		*errs = append(*errs, l...)
		return true
	}
	var e *Error
	if errors.As(err, &e) {
		*errs = append(*errs, e)
		return true
	}
	*errs = append(*errs, &Error{Msg: err.Error()})
	return true
}

// Chunk parses the body with gopher-lua's parser, the one the runner and the
// linter use, turning its error into a positioned *Error.
func (s *Script) Chunk() ([]ast.Stmt, error) {
	if s.Lua != nil {
		if s.Lua.Syntax != nil {
			return nil, s.Lua.Syntax
		}
		if s.Lua.AST != nil {
			return s.Lua.AST, nil
		}
		// lint releases the trees of the scripts it has read
	}
	return ParseLua(s.Path, s.body())
}

// body is the script's Lua: Body, or Source for a Script made by hand.
func (s *Script) body() string {
	if s.Body == "" && len(s.Source) > 0 {
		return string(s.Source)
	}
	return s.Body
}

// Tokens lexes Lua source text with gopher-lua's scanner, the reading
// ParseLua parses, up to the end or the first error: for what needs the
// columns gopher-lua's AST lacks.
func Tokens(src string) []ast.Token {
	sc := parse.NewScanner(strings.NewReader(src), "")
	lx := &parse.Lexer{}
	var toks []ast.Token
	// A source that parsed lexes cleanly; the bound only guards the loop.
	for range len(src) + 1 {
		tok, err := sc.Scan(lx)
		if err != nil || tok.Type == parse.EOF || tok.Type <= 0 {
			break
		}
		lx.PrevTokenType = tok.Type
		toks = append(toks, tok)
	}
	return toks
}

// ParseLua parses Lua source text (without a shebang) into gopher-lua's AST.
func ParseLua(path, src string) ([]ast.Stmt, error) {
	chunk, err := parse.Parse(strings.NewReader(src), path)
	if e := lua51(path, src, err == nil); e != nil {
		return nil, e
	}
	if err == nil {
		return chunk, nil
	}
	var pe *parse.Error
	if errors.As(err, &pe) {
		line := pe.Pos.Line
		if line == parse.EOF {
			line = strings.Count(src, "\n") + 1
		}
		msg := pe.Message
		if pe.Token != "" {
			msg += " near '" + pe.Token + "'"
		}
		return nil, &Error{Path: path, Pos: Pos{line, pe.Pos.Column}, Msg: "lua: " + msg}
	}
	return nil, &Error{Path: path, Msg: "lua: " + err.Error()}
}
