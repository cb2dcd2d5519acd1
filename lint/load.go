package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

	"github.com/scriptgen/scriptgen/internal/script"
)

// Options tune a run.
type Options struct {
	// Severity overrides rules' default severities by rule name; Off
	// silences a rule. A script's own `--! lint:` lines win over these.
	Severity map[string]Severity
}

// Result is what a run found.
type Result struct {
	// Scripts are the scripts whose header and body parsed, in path order,
	// for the stages after lint. Files other scripts include are not in it.
	Scripts  []*script.Script
	Findings []Finding // sorted
}

// Count returns the number of findings of severity s.
func (r *Result) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Syntax reports whether some input is not Lua at all.
func (r *Result) Syntax() bool {
	for _, f := range r.Findings {
		if f.Rule == RuleSyntax {
			return true
		}
	}
	return false
}

// Errors returns the findings of error severity: the ones that refuse a
// script.
func (r *Result) Errors() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == Error {
			out = append(out, f)
		}
	}
	return out
}

// chunk is one Lua file as the analysis reads it: the front end's reading
// of it, and whether it is a helper.
type chunk struct {
	path  string
	src   string
	stmts []ast.Stmt
	lib   bool // an include: its top-level functions are a library, not unused locals
	lua   *script.Lua
	incs  []script.Include
	err   *script.Error // syntax error
	// parsed: stmts holds the tree (see release).
	parsed bool
}

func newChunk(l *script.Lua, lib bool) *chunk {
	return &chunk{path: l.Path, src: l.Text, stmts: l.AST, lib: lib, lua: l, incs: l.Includes, err: l.Syntax, parsed: true}
}

func (c *chunk) ignored(line int, rule string) bool { return c.lua.Ignored(line, rule) }

// Memory: a script's syntax tree is about 300 bytes per line of Lua, ten
// times its text, so a run does not keep the trees of all its scripts:
// each is dropped once read for its header and includes, parsed again
// (script.ParseLua) for its own analysis and dropped after it; only the
// files scripts include keep theirs. Linting 9,000 scripts of 100 lines
// peaks at about 10% of what keeping every tree did (BenchmarkLint9000).

// release drops c's syntax tree, and its Lua's.
func (c *chunk) release() {
	c.stmts, c.parsed = nil, false
	if c.err == nil {
		c.lua.AST = nil
	}
}

// tree parses c again if its tree was released.
func (c *chunk) tree() {
	if c.parsed || c.err != nil {
		return
	}
	c.stmts, _ = script.ParseLua(c.path, c.src) // it parsed once: same text, same tree
	c.parsed = true
}

// linter holds one run's files, each read and parsed once.
type linter struct {
	opt    Options
	ld     *script.Loader
	mu     sync.Mutex
	chunks map[string]*chunk
	out    []Finding
}

func (l *linter) add(fs ...Finding) {
	l.mu.Lock()
	l.out = append(l.out, fs...)
	l.mu.Unlock()
}

// Paths lints the Lua files under paths (files, or directories walked
// recursively; *_test.lua files are skipped). err is for input that cannot
// be read at all; everything else is a finding.
func Paths(opt Options, paths ...string) (*Result, error) {
	files, err := script.Files(paths, false)
	if err != nil {
		return nil, err
	}
	srcs := make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		srcs[f] = b
	}
	return newLinter(opt, srcs).run(files), nil
}

// newLinter reads srcs from memory and every other file from disk.
func newLinter(opt Options, srcs map[string][]byte) *linter {
	ld := script.NewLoader(func(p string) ([]byte, error) {
		if b, ok := srcs[p]; ok {
			return b, nil
		}
		return os.ReadFile(p)
	})
	return &linter{opt: opt, ld: ld, chunks: map[string]*chunk{}}
}

// Source lints one script held in memory; includes are read from disk
// relative to path.
func Source(opt Options, path string, src []byte) []Finding {
	return newLinter(opt, map[string][]byte{path: src}).run([]string{path}).Findings
}

type parsed struct {
	path string
	s    *script.Script
	errs script.ErrorList
}

func (l *linter) run(files []string) *Result {
	// Headers, and which files are includes of others.
	ps := make([]parsed, len(files))
	cs := make([]*chunk, len(files))
	parallel(len(files), func(i int) {
		s, err, rerr := l.ld.Parse(files[i])
		if rerr != nil { // the caller read every file already
			s, err = &script.Script{Path: files[i], Lua: script.ReadLua(files[i], "")}, rerr
		}
		var errs script.ErrorList
		if err != nil && !errors.As(err, &errs) {
			errs = script.ErrorList{{Path: files[i], Msg: err.Error()}}
		}
		ps[i] = parsed{files[i], s, errs}
		cs[i] = newChunk(s.Lua, false)
		cs[i].release()
	})
	scripts := make([]*script.Script, len(ps))
	for i, c := range cs {
		l.chunks[files[i]] = c
		scripts[i] = ps[i].s
	}
	included := l.ld.Helpers(scripts)
	// Duplicate script names in one directory would collide in gen/bundle.
	byName := map[string]string{}
	var units []*unit
	res := &Result{}
	for _, p := range ps {
		if included[p.path] {
			continue
		}
		for _, e := range p.errs {
			l.add(Finding{Path: e.Path, Line: max(e.Line, 1), Col: max(e.Col, 1), Rule: RuleHeader, Severity: Error, Msg: e.Msg})
		}
		dirName := filepath.Dir(p.path) + "\x00" + p.s.Name
		if prev, dup := byName[dirName]; dup && p.s.Name != "" {
			l.add(Finding{Path: p.path, Line: 1, Col: 1, Rule: RuleHeader, Severity: Error, Msg: "script name " + p.s.Name + " already used by " + prev})
			continue
		}
		if len(p.errs) > 0 {
			if c := l.chunks[p.path]; c.err != nil {
				l.add(syntaxFinding(c.err))
			}
			continue
		}
		u, ok := l.unit(p)
		if !ok {
			continue
		}
		byName[dirName] = p.path
		l.inferred(p, u)
		units = append(units, u)
		res.Scripts = append(res.Scripts, p.s)
	}
	parallel(len(units), func(i int) { l.add(analyze(units[i])...) })
	res.Findings = merge(Sort(l.out))
	return res
}

// unit gathers a script's includes, depth first so that a helper's own
// includes come before it, each file once; findings about includes point
// at the directive.
func (l *linter) unit(p parsed) (*unit, bool) {
	main := l.chunks[p.path]
	u := &unit{s: p.s, library: p.s.Shebang != nil && p.s.Shebang.Has("name"), sev: l.severities(p), splices: map[*chunk][]splice{}}
	ok := true
	chunkOf := func(lua *script.Lua) *chunk {
		c, cached := l.chunks[lua.Path]
		if !cached {
			c = newChunk(lua, true)
			l.chunks[lua.Path] = c
		}
		return c
	}
	l.ld.Walk(main.lua, map[string]bool{p.path: true}, func(from *script.Lua, inc script.Include, to *script.Lua, err error) {
		c := chunkOf(from)
		if err != nil {
			msg := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				msg = "no such file"
			}
			l.add(Finding{Path: c.path, Line: inc.Line, Col: inc.Col, Rule: RuleInclude, Severity: u.sev[RuleInclude], Msg: fmt.Sprintf("include %s: %s", inc.Text, msg)})
			ok = false
			return
		}
		ic := chunkOf(to)
		ic.lib = true
		ic.tree() // kept: other scripts may include it too
		if ic.err != nil {
			if !l.reported(ic) {
				l.add(syntaxFinding(ic.err))
			}
			ok = false
			return
		}
		if inc.At {
			u.splices[c] = append(u.splices[c], splice{line: inc.Line, c: ic})
			return
		}
		u.chunks = append(u.chunks, ic)
	})
	if main.err != nil {
		l.add(syntaxFinding(main.err))
		return nil, false
	}
	u.chunks = append(u.chunks, main)
	return u, ok
}

func (l *linter) reported(c *chunk) bool {
	for _, f := range l.out {
		if f.Path == c.path && f.Rule == RuleSyntax {
			return true
		}
	}
	return false
}

func syntaxFinding(e *script.Error) Finding {
	return Finding{Path: e.Path, Line: max(e.Line, 1), Col: max(e.Col, 1), Rule: RuleSyntax, Severity: Error, Msg: e.Msg}
}

// severities are the rules' defaults, then the run's options, then the
// script's `--! lint: <severity> rule…` lines.
func (l *linter) severities(p parsed) map[string]Severity {
	sev := make(map[string]Severity, len(Rules))
	for _, r := range Rules {
		sev[r.Name] = r.Severity
	}
	for n, s := range l.opt.Severity {
		sev[n] = s
	}
	for _, d := range p.s.Lint {
		s, ok := ParseSeverity(d.Action.Text)
		if !ok {
			l.add(Finding{Path: p.path, Line: d.Pos.Line, Col: d.Action.Col, Rule: RuleHeader, Severity: Error,
				Msg: fmt.Sprintf("lint: unknown action %q; valid: ignore, info, warning, error", d.Action.Text)})
			continue
		}
		for _, r := range d.Rules {
			if _, known := RuleByName(r.Text); !known {
				l.add(Finding{Path: p.path, Line: d.Pos.Line, Col: r.Col, Rule: RuleHeader, Severity: Error,
					Msg: fmt.Sprintf("lint: unknown rule %q; valid rules: %s", r.Text, ruleNames())})
				continue
			}
			sev[r.Text] = s
		}
	}
	return sev
}

// parallel runs f(0..n-1) on every CPU: linting is CPU-bound per file.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
