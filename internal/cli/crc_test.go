package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/crc/crcgen"
)

func runCRC(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = crcCommand(args, &o, &e)
	return code, o.String(), e.String()
}

func TestCRCGenerate(t *testing.T) {
	code, out, errOut := runCRC("-width", "16", "-poly", "0x1021", "-name", "xmodem", "-pkg", "crc")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, _ := crcgen.Generate(crcgen.Params{Name: "xmodem", Pkg: "crc", Width: 16, Poly: 0x1021})
	if out != string(want) {
		t.Error("stdout differs from Generate's output")
	}
	file := filepath.Join(t.TempDir(), "x.go")
	code, _, errOut = runCRC("-width", "64", "-poly", "0xad93d23594c935a9", "-reflect", "-name", "redis", "-pkg", "crc", "-o", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(file)
	want, _ = crcgen.Generate(crcgen.Params{Name: "redis", Pkg: "crc", Width: 64, Poly: 0xad93d23594c935a9, Reflect: true})
	if !bytes.Equal(got, want) {
		t.Error("-o file differs from Generate's output")
	}
}

func TestCRCUsageErrors(t *testing.T) {
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
		code, _, errOut := runCRC(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestCRCVerifyRDBExitCodes checks the exit codes of -verify-rdb on small
// files built here; crcgen's tests cover the reports on files a real
// redis-server wrote.
func TestCRCVerifyRDBExitCodes(t *testing.T) {
	body := append([]byte("REDIS0011"), "\xfa\x09redis-ver\x057.0.0\xff"...)
	intact := binary.LittleEndian.AppendUint64(append([]byte(nil), body...), crc.CRC64(0, body))
	damaged := append([]byte(nil), intact...)
	damaged[12] ^= 0x40
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
		code int
		want string
	}{
		{"intact", intact, 0, "OK: RDB version 0011"},
		{"damaged", damaged, 1, "damaged at offset 12 (0xc), 1 byte(s), xor 40"},
		{"junk", []byte(strings.Repeat("not an rdb file ", 10)), 1, "not an RDB file"},
		{"short", []byte("REDIS"), 2, "too short"},
	} {
		path := filepath.Join(dir, tc.name+".rdb")
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCRC("-verify-rdb", path)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%s: exit %d, want %d and %q in\n%s%s", tc.name, code, tc.code, tc.want, out, errOut)
		}
		if code == 1 && !strings.HasPrefix(out, path+": ") {
			t.Errorf("%s: report lines do not start with the path:\n%s", tc.name, out)
		}
	}
}
