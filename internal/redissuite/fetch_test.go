package redissuite

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// need returns the path of a tool the suite needs. Missing, it fails the
// test under CI=true (a CI run that skips the suite has checked nothing)
// and skips it elsewhere, naming the package to install.
func need(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := name + " not found: apt-get install " + pkg
	if ci := os.Getenv("CI"); ci == "true" || ci == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func output(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// fetchSuite returns the unpacked source of the Debian package the installed
// redis-server comes from (its tests/ and runtest are what we need), cached
// per version in the user's cache directory as Go caches modules: the suite
// is other people's code, downloaded at run time and never committed.
//
// apt-get reads a temporary configuration: the machine's own sources with
// "deb" turned into "deb-src", its own lists directory and cache, so that no
// system file changes. dpkg-source applies Debian's patches, so the tests
// are those of the very build installed.
func fetchSuite(t *testing.T) string {
	t.Helper()
	need(t, "dpkg-query", "dpkg")
	apt := need(t, "apt-get", "apt")
	need(t, "dpkg-source", "dpkg-dev")
	need(t, "tclsh8.6", "tcl")

	version := strings.TrimSpace(output(t, "", "dpkg-query", "-W", "-f=${Version}", "redis-server"))
	upstream := regexp.MustCompile(`^(?:\d+:)?([^-]+)`).FindStringSubmatch(version)
	banner := output(t, "", "redis-server", "--version")
	if upstream == nil || !strings.Contains(banner, "v="+upstream[1]+" ") {
		t.Fatalf("redis-server says %q, its Debian package %q: the suite must be the server's own", strings.TrimSpace(banner), version)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		// No HOME nor XDG_CACHE_HOME (some CI runners): the machine's
		// temporary directory still spares a second download.
		cache = os.TempDir()
	}
	dest := filepath.Join(cache, "scriptgen", "redis-suite", strings.NewReplacer(":", "_", "~", "_").Replace(version))
	if _, err := os.Stat(filepath.Join(dest, "runtest")); err == nil {
		return dest
	}

	tmp := t.TempDir()
	parts := filepath.Join(tmp, "sources.list.d")
	lists := filepath.Join(tmp, "lists")
	for _, d := range []string{parts, filepath.Join(lists, "partial"), filepath.Join(tmp, "cache", "archives", "partial"), filepath.Join(tmp, "dl")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	list := sourceEntries(t, filepath.Join(parts, "system.sources"))
	if err := os.WriteFile(filepath.Join(tmp, "sources.list"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := []string{
		"-o", "Dir::Etc::SourceList=" + filepath.Join(tmp, "sources.list"),
		"-o", "Dir::Etc::SourceParts=" + parts,
		"-o", "Dir::State::Lists=" + lists,
		"-o", "Dir::Cache=" + filepath.Join(tmp, "cache"),
		"-o", "Debug::NoLocking=1",
		"-qq",
	}
	output(t, tmp, apt, append(opts, "update")...)
	output(t, filepath.Join(tmp, "dl"), apt, append(opts, "source", "--download-only", "redis="+version)...)
	dsc, _ := filepath.Glob(filepath.Join(tmp, "dl", "*.dsc"))
	if len(dsc) != 1 {
		t.Fatalf("apt-get source redis=%s: want one .dsc, got %v", version, dsc)
	}
	unpacked := filepath.Join(tmp, "src")
	output(t, tmp, "dpkg-source", "-x", dsc[0], unpacked)
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	// A rename is atomic: a concurrent run finds the whole tree or none.
	if err := os.Rename(unpacked, dest); err != nil {
		if _, statErr := os.Stat(filepath.Join(dest, "runtest")); statErr != nil {
			t.Fatal(err)
		}
	}
	return dest
}

// sourceEntries turns the machine's apt sources into deb-src ones: the
// deb822 files of /etc/apt/sources.list.d are written, concatenated, to
// deb822Out; the one-line entries are returned.
func sourceEntries(t *testing.T, deb822Out string) string {
	t.Helper()
	var lines []string
	var deb822 []string
	one, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	for _, f := range append([]string{"/etc/apt/sources.list"}, one...) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "deb "); ok {
				lines = append(lines, "deb-src "+rest)
			}
		}
	}
	multi, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	for _, f := range multi {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := regexp.MustCompile(`(?m)^Types:.*$`).ReplaceAllString(string(b), "Types: deb-src")
		deb822 = append(deb822, strings.TrimSpace(s))
	}
	if len(lines) == 0 && len(deb822) == 0 {
		t.Fatal("no apt sources in /etc/apt: nowhere to fetch Redis's source package from")
	}
	if err := os.WriteFile(deb822Out, []byte(strings.Join(deb822, "\n\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n") + "\n"
}
