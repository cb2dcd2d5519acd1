package annotate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/scriptgen/scriptgen/internal/script"
)

// File is one script's new source.
type File struct {
	Path    string
	Old     []byte
	New     []byte
	Changed bool
}

// Paths annotates the scripts under paths (files, or directories walked
// recursively; files other scripts include are left alone). Scripts with
// header or syntax errors are not annotated: their errors come back in
// errs. err is for input that cannot be read.
func Paths(paths ...string) (files []File, errs script.ErrorList, err error) {
	ld := script.NewLoader(nil)
	names, err := script.Files(paths, false)
	if err != nil {
		return nil, nil, err
	}
	var all []*script.Script
	for _, p := range names {
		s, perr, err := ld.Parse(p)
		if err != nil {
			return nil, nil, err
		}
		if perr != nil {
			if l, ok := perr.(script.ErrorList); ok {
				errs = append(errs, l...)
			} else {
				errs = append(errs, &script.Error{Path: p, Msg: perr.Error()})
			}
			continue
		}
		all = append(all, s)
	}
	helpers := ld.Helpers(all)
	for _, s := range all {
		if helpers[filepath.Clean(s.Path)] {
			continue
		}
		if s.Lua.Syntax != nil {
			errs = append(errs, s.Lua.Syntax)
			continue
		}
		out := Source(s)
		files = append(files, File{Path: s.Path, Old: s.Source, New: out, Changed: string(out) != string(s.Source)})
	}
	errs.Sort()
	return files, errs, nil
}

// Source is s's source with its header written or completed.
func Source(s *script.Script) []byte {
	lines := header(s)
	if len(lines) == 0 {
		return s.Source
	}
	block := strings.Join(lines, "\n") + "\n"
	src := string(s.Source)
	// After the shebang and after a header's last line; at the top without.
	at := 0
	if s.HeaderEnd > 0 || s.Shebang != nil {
		at = lineOffset(src, max(s.HeaderEnd, 1))
	}
	if at > 0 && !strings.HasSuffix(src[:at], "\n") {
		block = "\n" + block
	}
	return []byte(src[:at] + block + src[at:])
}

// lineOffset is the byte offset just past line n (1-based).
func lineOffset(src string, n int) int {
	off := 0
	for range n {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return off
}

// header is the `--!` lines s lacks; none for a Functions library, whose
// contract is each registered function's.
func header(s *script.Script) []string {
	if s.Shebang != nil && s.Shebang.Has("name") {
		return nil
	}
	inf := script.Infer(s)
	fresh := s.Inferred || s.HeaderEnd == 0
	var out []string
	base := strings.TrimSuffix(filepath.Base(s.Path), ".lua")
	if fresh && inf.Name != base {
		out = append(out, "--! name: "+inf.Name)
	}
	var haveKeys []script.Key
	var haveArgs []script.Arg
	if !fresh {
		haveKeys, haveArgs = s.Keys, s.Args
	}
	unread := false
	keyNames := map[string]bool{}
	for _, k := range haveKeys {
		keyNames[k.Name] = true
	}
	if len(haveKeys) == 0 || !haveKeys[len(haveKeys)-1].Variadic {
		for i, k := range inf.Keys {
			if i < len(haveKeys) || (k.Variadic && len(haveKeys) > len(inf.Keys)) {
				continue
			}
			k.Name = unique(keyNames, k.Name)
			out = append(out, keyLine(k))
			unread = unread || strings.HasPrefix(k.Doc, script.Unread)
		}
	}
	argNames := map[string]bool{}
	for _, a := range haveArgs {
		argNames[a.Name] = true
	}
	gap := false
	if len(haveArgs) == 0 || !haveArgs[len(haveArgs)-1].Variadic {
		for i, a := range inf.Args {
			if i < len(haveArgs) {
				continue
			}
			a.Name = unique(argNames, a.Name)
			out = append(out, argLine(a))
			gap = gap || strings.HasPrefix(a.Doc, script.Unread)
		}
	}
	if s.Returns.Type == "" && len(s.Returns.Fields) == 0 {
		if t := returns(s); t != "" {
			out = append(out, "--! returns: "+string(t))
		}
	}
	if len(s.Flags) == 0 && !writes(s) {
		out = append(out, "--! flags: no-writes")
	}
	// Keys the file name promises and args before the last one read are
	// passed by callers the body never reads: the lines annotate writes for
	// them must not turn into lint errors, whether the header was written
	// here or only completed.
	if unread && !lowered(s, "keys-declared") {
		out = append(out, "--! lint: warning keys-declared")
	}
	if gap && !lowered(s, "args") {
		out = append(out, "--! lint: warning args")
	}
	return out
}

// lowered reports whether a `--! lint:` line of s already names rule (or
// all rules) with an action other than error.
func lowered(s *script.Script, rule string) bool {
	for _, d := range s.Lint {
		if d.Action.Text == "error" {
			continue
		}
		for _, r := range d.Rules {
			if r.Text == rule {
				return true
			}
		}
	}
	return false
}

func unique(taken map[string]bool, name string) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	taken[n] = true
	return n
}

func keyLine(k script.Key) string {
	return line("key", k.Spec(), k.Doc)
}

func argLine(a script.Arg) string {
	return line("arg", a.Spec(), a.Doc)
}

func line(key, spec, doc string) string {
	l := "--! " + key + ": " + spec
	if doc != "" {
		l += "  " + doc
	}
	return l
}
