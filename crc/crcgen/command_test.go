package crcgen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Command(args, &o, &e)
	return code, o.String(), e.String()
}

func TestCommandGenerate(t *testing.T) {
	code, out, errOut := run("-width", "16", "-poly", "0x1021", "-name", "xmodem", "-pkg", "crc")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, _ := Generate(Params{Name: "xmodem", Pkg: "crc", Width: 16, Poly: 0x1021})
	if out != string(want) {
		t.Error("stdout differs from Generate's output")
	}
	file := filepath.Join(t.TempDir(), "x.go")
	code, _, errOut = run("-width", "64", "-poly", "0xad93d23594c935a9", "-reflect", "-name", "redis", "-pkg", "crc", "-o", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(file)
	want, _ = Generate(redisParams)
	if !bytes.Equal(got, want) {
		t.Error("-o file differs from Generate's output")
	}
}

func TestCommandUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "usage: scriptgen crc"},
		{[]string{"-width", "16"}, "missing -poly, -name, -pkg"},
		{[]string{"-width", "16", "-poly", "zz", "-name", "a", "-pkg", "a"}, `-poly "zz": not a number`},
		{[]string{"-width", "16", "-poly", "0x1020", "-name", "a", "-pkg", "a"}, "x^0 coefficient"},
		{[]string{"-width", "99", "-poly", "1", "-name", "a", "-pkg", "a"}, "out of range"},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"-width", "16", "-poly", "0x1021", "-slices", "4", "-name", "a", "-pkg", "a"}, "must be 8 or 16"},
		{[]string{"-verify-rdb", "x", "-width", "3"}, "takes no other flags"},
		{[]string{"-verify-rdb", filepath.Join(os.TempDir(), "does-not-exist.rdb")}, "no such file"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	} {
		code, _, errOut := run(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
