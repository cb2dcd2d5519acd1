package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// commit writes every file of writes (path → contents) and removes every
// path of removes, all or nothing: a failure leaves each path as it was,
// byte for byte. The new contents are written first into a temporary
// directory beside dir (so that the swap is a rename on one file system),
// then each old file is moved aside into it and the new one renamed into
// its place; a rename that fails puts back what was swapped already.
//
// A read-only file is a failure, as writing it in place was before: a
// rename would replace it although its owner made it read-only.
func commit(dir string, writes map[string][]byte, removes []string) (err error) {
	if len(writes) == 0 && len(removes) == 0 {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".scriptgen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	paths := make([]string, 0, len(writes))
	for p := range writes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	s := &swap{tmp: tmp}
	for i, p := range paths {
		if err := s.stage(i, p, writes[p]); err != nil {
			return err
		}
	}
	for _, p := range removes {
		if err := writable(p); err != nil {
			return err
		}
	}
	defer func() {
		if err != nil {
			s.undo()
		}
	}()
	for i, p := range paths {
		if err := s.replace(i, p); err != nil {
			return err
		}
	}
	for i, p := range removes {
		if err := s.aside(fmt.Sprintf("gone%d", i), p); err != nil {
			return err
		}
	}
	return nil
}

// rename is os.Rename, for a test to fail one mid-way.
var rename = os.Rename

// swap is one commit's progress, for undo.
type swap struct {
	tmp  string
	done []swapped
	dirs []string // created by replace, deepest last
}

type swapped struct {
	path, backup string // backup is "" where path did not exist
}

// stage writes the i-th new file into the temporary directory, with the
// old file's permissions where there is one.
func (s *swap) stage(i int, path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory")}
		}
		if err := writable(path); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.tmp, fmt.Sprintf("new%d", i)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// replace moves the old file at path aside and the i-th staged file in.
func (s *swap) replace(i int, path string) error {
	if err := s.mkdirs(filepath.Dir(path)); err != nil {
		return err
	}
	if err := s.aside(fmt.Sprintf("old%d", i), path); err != nil {
		return err
	}
	return rename(filepath.Join(s.tmp, fmt.Sprintf("new%d", i)), path)
}

// aside moves path, when it exists, into the temporary directory as name,
// and records it either way for undo.
func (s *swap) aside(name, path string) error {
	backup := filepath.Join(s.tmp, name)
	switch err := rename(path, backup); {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		backup = ""
	default:
		return err
	}
	s.done = append(s.done, swapped{path, backup})
	return nil
}

// mkdirs creates dir and its missing parents, recording each for undo.
func (s *swap) mkdirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return err
		}
		s.dirs = append(s.dirs, missing[i])
	}
	return nil
}

// undo puts back every file swapped so far and removes the directories
// made for new ones. It runs after a failed rename, so it does what it can
// and leaves the first error to the caller.
func (s *swap) undo() {
	for i := len(s.done) - 1; i >= 0; i-- {
		d := s.done[i]
		if d.backup == "" {
			os.Remove(d.path)
			continue
		}
		os.Rename(d.backup, d.path)
	}
	for i := len(s.dirs) - 1; i >= 0; i-- {
		os.Remove(s.dirs[i])
	}
}

// writable refuses a file its owner may not write.
func writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return &fs.PathError{Op: "write", Path: path, Err: fs.ErrPermission}
	}
	return nil
}
