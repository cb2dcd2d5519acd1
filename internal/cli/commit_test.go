package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCommitUndo fails the swap at every rename in turn: each time, every
// old file is back byte for byte, the new ones are gone and so is the
// temporary directory.
func TestCommitUndo(t *testing.T) {
	for fail := 1; ; fail++ {
		dir := filepath.Join(t.TempDir(), "out")
		old := map[string]string{"a.go": "old a", "c.go": "old c", "gone.go": "old gone"}
		for n, b := range old {
			write(t, filepath.Join(dir, n), b)
		}
		writes := map[string][]byte{
			filepath.Join(dir, "a.go"):     []byte("new a"),
			filepath.Join(dir, "b/b.go"):   []byte("new b"),
			filepath.Join(dir, "c.go"):     []byte("new c"),
			filepath.Join(dir, "d/e/f.go"): []byte("new f"),
		}
		calls := 0
		rename = func(from, to string) error {
			if calls++; calls == fail {
				return errors.New("injected")
			}
			return os.Rename(from, to)
		}
		err := commit(dir, writes, []string{filepath.Join(dir, "gone.go")})
		rename = os.Rename
		if err == nil {
			if fail == 1 {
				t.Fatal("no rename to fail")
			}
			for p, b := range writes {
				if got, _ := os.ReadFile(p); string(got) != string(b) {
					t.Errorf("after commit %s holds %q, want %q", p, got, b)
				}
			}
			return
		}
		var got []string
		filepath.WalkDir(filepath.Dir(dir), func(p string, d os.DirEntry, err error) error {
			got = append(got, p)
			return err
		})
		if len(got) != 2+len(old) {
			t.Errorf("rename %d failed: left %q", fail, got)
		}
		for n, b := range old {
			if got, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(got) != b {
				t.Errorf("rename %d failed: %s holds %q (%v), want %q", fail, n, got, err, b)
			}
		}
	}
}

func TestCommitRefuses(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.go"), "old a")
	write(t, filepath.Join(dir, "ro.go"), "old ro")
	if err := os.Chmod(filepath.Join(dir, "ro.go"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"ro.go", "d.go"} {
		err := commit(dir, map[string][]byte{
			filepath.Join(dir, "a.go"): []byte("new a"),
			filepath.Join(dir, target): []byte("new"),
		}, nil)
		if err == nil {
			t.Errorf("commit over %s: no error", target)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(got) != "old a" {
			t.Errorf("commit over %s: a.go holds %q", target, got)
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
