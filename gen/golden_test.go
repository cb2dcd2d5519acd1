package gen

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/gen/bundle"
	"github.com/scriptgen/scriptgen/internal/script"
)

var update = flag.Bool("update", false, "rewrite testdata/*/want and stderr.txt from a fresh render")

// TestGolden renders each testdata/<case>/*.lua as one library and Go
// package named <case>, and compares the whole of want/go and want/bundle, or
// stderr.txt for a case that must fail. Hand-written *_test.go files in
// want/go are kept out of the comparison: TestGoldenCompiles runs them.
func TestGolden(t *testing.T) {
	for _, name := range cases(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			got, stderr := renderCase(t, dir, name)
			wantErr, err := os.ReadFile(filepath.Join(dir, "stderr.txt"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if *update {
				writeCase(t, dir, got, stderr)
				return
			}
			if string(wantErr) != stderr {
				t.Fatalf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
			}
			if stderr != "" {
				return
			}
			want := readTree(t, filepath.Join(dir, "want"))
			for _, p := range sortedKeys(got) {
				if w, ok := want[p]; !ok {
					t.Errorf("want/%s: missing (go test ./gen -update writes it)", p)
				} else if !bytes.Equal(w, got[p]) {
					t.Errorf("want/%s: differs from a fresh render:\n%s", p, firstDiff(w, got[p]))
				}
			}
			for _, p := range sortedKeys(want) {
				if _, ok := got[p]; !ok {
					t.Errorf("want/%s: not rendered any more", p)
				}
			}
		})
	}
}

// TestGoldenDeterministic renders every case twice, once from scripts
// given in reverse order: same bytes.
func TestGoldenDeterministic(t *testing.T) {
	for _, name := range cases(t) {
		dir := filepath.Join("testdata", name)
		a, errA := renderCase(t, dir, name)
		b, errB := renderCaseReversed(t, dir, name)
		if errA != errB {
			t.Errorf("%s: errors differ:\n%s\n%s", name, errA, errB)
		}
		for p := range a {
			if !bytes.Equal(a[p], b[p]) {
				t.Errorf("%s: %s differs between two renders", name, p)
			}
		}
	}
}

// TestGoldenCompiles vets the golden packages and runs their hand-written
// tests (against a real redis-server), so a golden that does not build or
// does not work cannot be checked in.
func TestGoldenCompiles(t *testing.T) {
	if *update {
		t.Skip("goldens are being rewritten")
	}
	var pkgs []string
	for _, name := range cases(t) {
		if _, err := os.Stat(filepath.Join("testdata", name, "want", "go")); err == nil {
			pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join("testdata", name, "want", "go")))
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("no golden Go packages")
	}
	for _, args := range [][]string{{"vet"}, {"test", "-count=1"}} {
		cmd := exec.Command("go", append(args, pkgs...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s:\n%s", strings.Join(args, " "), out)
	}
}

func cases(t *testing.T) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func loadCase(t *testing.T, dir string) ([]*script.Script, string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, errs, err := script.Load(files...)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		return nil, errs.Error() + "\n"
	}
	return scripts, ""
}

// renderCase returns want/-relative paths → contents, or the error text.
func renderCase(t *testing.T, dir, name string) (map[string][]byte, string) {
	scripts, stderr := loadCase(t, dir)
	if stderr != "" {
		return nil, stderr
	}
	return render2(scripts, name)
}

func renderCaseReversed(t *testing.T, dir, name string) (map[string][]byte, string) {
	scripts, stderr := loadCase(t, dir)
	if stderr != "" {
		return nil, stderr
	}
	for i, j := 0, len(scripts)-1; i < j; i, j = i+1, j-1 {
		scripts[i], scripts[j] = scripts[j], scripts[i]
	}
	return render2(scripts, name)
}

func render2(scripts []*script.Script, name string) (map[string][]byte, string) {
	out := map[string][]byte{}
	files, err := bundle.Render(scripts)
	if err != nil {
		return nil, err.Error() + "\n"
	}
	for p, b := range files {
		out["bundle/"+p] = b
	}
	goFiles, err := Go(scripts, name)
	if err != nil {
		return nil, err.Error() + "\n"
	}
	for p, b := range goFiles {
		out["go/"+p] = b
	}
	return out, ""
}

// readTree reads the generated files under want/, leaving out hand-written tests.
func readTree(t *testing.T, root string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func writeCase(t *testing.T, dir string, files map[string][]byte, stderr string) {
	want := filepath.Join(dir, "want")
	for p := range readTree(t, want) {
		if err := os.Remove(filepath.Join(want, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	errFile := filepath.Join(dir, "stderr.txt")
	if stderr != "" {
		if err := os.WriteFile(errFile, []byte(stderr), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.Remove(errFile); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for p, b := range files {
		path := filepath.Join(want, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// firstDiff shows the first differing line, enough to find the change.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n-" + a + "\n+" + b
		}
	}
	return "(only line endings differ)"
}
