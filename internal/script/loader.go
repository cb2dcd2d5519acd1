package script

import (
	"os"
	"path/filepath"
	"sync"
)

// Loader reads the files of one run, each once: scripts, and the helpers
// that include lines name, are read and parsed the first time a stage asks
// for them and kept, so that lint, the bundler, gen and the test runner see
// one reading of each.
type Loader struct {
	read    func(string) ([]byte, error)
	mu      sync.Mutex
	files   map[string]loaded // cleaned path → the file as a helper
	scripts map[string]loaded // path as given → the file as a script
}

type loaded struct {
	lua  *Lua
	s    *Script
	errs error // the script's header errors
	err  error // the read error
}

// NewLoader returns a Loader reading with read, os.ReadFile when nil.
func NewLoader(read func(string) ([]byte, error)) *Loader {
	if read == nil {
		read = os.ReadFile
	}
	return &Loader{read: read, files: map[string]loaded{}, scripts: map[string]loaded{}}
}

// LoaderOf is the Loader that parsed scripts, so that a later stage reads
// their helpers from the same cache; a new one for scripts made otherwise.
func LoaderOf(scripts []*Script) *Loader {
	for _, s := range scripts {
		if s.ld != nil {
			return s.ld
		}
	}
	return NewLoader(nil)
}

// Parse reads and parses the script at path the first time, as the
// package's Parse does, and gives it this Loader for its helpers; later
// calls return the same Script. err is the read error; header errors come
// back in errs.
func (ld *Loader) Parse(path string) (s *Script, errs error, err error) {
	ld.mu.Lock()
	f, ok := ld.scripts[path]
	ld.mu.Unlock()
	if !ok {
		var src []byte
		if src, f.err = ld.read(path); f.err == nil {
			f.s, f.errs = Parse(path, src)
			f.s.ld = ld
			if f.s.Inferred && len(f.s.Lua.Includes) > 0 {
				f.s.infer(ld.spliced(f.s.Lua))
			}
		}
		ld.mu.Lock()
		ld.scripts[path] = f
		ld.mu.Unlock()
	}
	return f.s, f.errs, f.err
}

// spliced are the files l includes, directly or through them: their code
// runs in the same EVAL and reads the script's KEYS and ARGV.
func (ld *Loader) spliced(l *Lua) []*Lua {
	var out []*Lua
	ld.Walk(l, map[string]bool{}, func(_ *Lua, inc Include, to *Lua, err error) {
		if err == nil {
			out = append(out, to)
		}
	})
	return out
}

// Lua returns the file at path, read and parsed the first time. err is the
// read error; a syntax error is in the Lua.
func (ld *Loader) Lua(path string) (*Lua, error) {
	path = filepath.Clean(path)
	ld.mu.Lock()
	f, ok := ld.files[path]
	ld.mu.Unlock()
	if ok {
		return f.lua, f.err
	}
	src, err := ld.read(path)
	if err == nil {
		f.lua = ReadLua(path, string(src))
	}
	f.err = err
	ld.mu.Lock()
	ld.files[path] = f
	ld.mu.Unlock()
	return f.lua, f.err
}

// Helpers are the files scripts include, directly or through other
// helpers, by either form of include line: they are pasted into their
// includers and are no entry points of their own. Files that cannot be
// read are left out; the stages report them at the line that names them.
func (ld *Loader) Helpers(scripts []*Script) map[string]bool {
	helpers := map[string]bool{}
	for _, s := range scripts {
		l := s.Lua
		if l == nil {
			l = ReadLua(s.Path, s.body())
		}
		ld.Walk(l, helpers, nil)
	}
	return helpers
}

// Walk follows l's include lines depth first, each file once: seen holds
// the cleaned paths already followed, and gets the new ones. visit, when
// not nil, gets each line followed, from the file that holds it, with the
// file it names (nil, with the read error, when that cannot be read) once
// that file's own includes have been walked.
func (ld *Loader) Walk(l *Lua, seen map[string]bool, visit func(from *Lua, inc Include, to *Lua, err error)) {
	for _, inc := range l.Includes {
		p := filepath.Clean(inc.File)
		if seen[p] {
			continue
		}
		seen[p] = true
		to, err := ld.Lua(p)
		if err == nil {
			ld.Walk(to, seen, visit)
		}
		if visit != nil {
			visit(l, inc, to, err)
		}
	}
}
