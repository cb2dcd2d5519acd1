package generated

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/gen"
	"github.com/scriptgen/scriptgen/gen/bundle"
	"github.com/scriptgen/scriptgen/internal/script"
)

var update = flag.Bool("update", false, "rewrite the generated files from ../lua")

const luaRoot = "../lua"

// TestFresh renders ../lua with bundle.Render and gen.Go, as `make` does
// through the CLI, and compares whole directories: a stale file, a missing
// one and a left-over one of a removed script all fail.
func TestFresh(t *testing.T) {
	all, errs, err := script.Load(luaRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("scripts in %s do not load:\n%v", luaRoot, errs)
	}
	files, err := bundle.Render(all)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "bundle", files, func(string) bool { return true })

	byDir := map[string][]*script.Script{}
	for _, s := range all {
		byDir[filepath.Dir(s.Path)] = append(byDir[filepath.Dir(s.Path)], s)
	}
	for dir, scripts := range byDir {
		pkg := filepath.Base(dir)
		files, err := gen.Go(scripts, pkg)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		// Tests and hand-written files live next to the generated ones.
		check(t, pkg, files, func(path string) bool { return isGenerated(t, path) })
	}
}

// check compares want with the files under dir that owned selects.
func check(t *testing.T, dir string, want map[string][]byte, owned func(path string) bool) {
	t.Helper()
	have := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if owned(p) {
			have[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		got, err := os.ReadFile(p)
		if err == nil && bytes.Equal(got, want[name]) {
			continue
		}
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, want[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: missing (go test ./generated -update writes it): %v", p, err)
		} else {
			t.Errorf("%s: stale; run go test ./generated -update", p)
		}
	}
	for name := range have {
		if _, ok := want[name]; ok {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if *update {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: generated, but no script renders it any more; run go test ./generated -update", p)
	}
}

// isGenerated reports whether a Go file carries the generated header.
func isGenerated(t *testing.T, path string) bool {
	if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.HasPrefix(b, []byte(gen.GeneratedGo+"\n"))
}
