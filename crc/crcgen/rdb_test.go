package crcgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// writeRDB makes a real redis-server save an RDB of roughly size bytes of
// incompressible values and returns its contents.
func writeRDB(t *testing.T, size int, extra ...string) []byte {
	t.Helper()
	srv := redistest.Start(t, extra...)
	rdb := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := rand.New(rand.NewPCG(uint64(size), 1))
	val := make([]byte, 64<<10)
	for i := 0; i*len(val) < size; i++ {
		for j := range val {
			val[j] = byte(r.Uint32())
		}
		if err := rdb.Set(ctx, fmt.Sprint("k", i), val, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rdb.HSet(ctx, "h", "a", "1", "b", "2")
	rdb.RPush(ctx, "l", "x", "y", "z")
	if err := rdb.Save(ctx).Err(); err != nil {
		t.Fatalf("SAVE: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(srv.Dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func verifyBytes(t *testing.T, b []byte) (int, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump.rdb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return verifyFile(path)
}

// verifyFile reports as `scriptgen crc -verify-rdb` does: the report's
// lines or VerifyRDB's error, and 0 for a file that passes, 1 for a damaged
// one, 2 for one that cannot be read.
func verifyFile(path string) (int, string) {
	r, err := VerifyRDB(path)
	if err != nil {
		return 2, err.Error()
	}
	out := strings.Join(r.Lines(), "\n")
	if !r.OK() {
		return 1, out
	}
	return 0, out
}

func TestVerifyRDB(t *testing.T) {
	// Ten MiB splits across cores (parts of at least chunkMin).
	intact := writeRDB(t, 10<<20)
	code, out := verifyBytes(t, intact)
	if code != 0 || !strings.Contains(out, "OK: RDB version") {
		t.Fatalf("intact file: exit %d\n%s", code, out)
	}
	n := int64(len(intact))

	damage := func(f func(b []byte) []byte) (int, string) {
		b := f(append([]byte(nil), intact...))
		return verifyBytes(t, b)
	}
	for _, off := range []int64{0, 5, 1000, n / 2, n - 10} {
		code, out := damage(func(b []byte) []byte { b[off] ^= 0x40; return b })
		want := fmt.Sprintf("damaged at offset %d (%#x), 1 byte(s), xor 40", off, off)
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("byte flip at %d: exit %d, want %q in\n%s", off, code, want, out)
		}
	}
	// A three-byte burst in the middle.
	off := n / 3
	code, out = damage(func(b []byte) []byte { b[off] ^= 1; b[off+1] ^= 0xff; b[off+2] ^= 0x80; return b })
	if want := fmt.Sprintf("damaged at offset %d (%#x), 3 byte(s), xor 01 ff 80", off, off); code != 1 || !strings.Contains(out, want) {
		t.Errorf("burst: exit %d, want %q in\n%s", code, want, out)
	}
	// Damage in two distant places is not one burst: a mismatch, no place.
	code, out = damage(func(b []byte) []byte { b[100] ^= 1; b[n/2] ^= 1; return b })
	if code != 1 || !strings.Contains(out, "CHECKSUM MISMATCH") || !strings.Contains(out, "cannot say where") {
		t.Errorf("scattered damage: exit %d\n%s", code, out)
	}
	// The trailer itself.
	code, out = damage(func(b []byte) []byte { b[n-3] ^= 0x11; return b })
	if want := fmt.Sprintf("damaged at offset %d", n-3); code != 1 || !strings.Contains(out, want) {
		t.Errorf("trailer damage: exit %d, want %q in\n%s", code, want, out)
	}
	// Truncation loses the EOF opcode. The cut is where the byte that
	// would stand for it is not 0xff by chance (the values are random and
	// Redis writes the keys in its hash order, seeded per process: one
	// run in 256 found 0xff 1,000 bytes before the end, and the report
	// was a checksum mismatch, rightly).
	cut := n - 1000
	for intact[cut-9] == 0xff {
		cut--
	}
	code, out = damage(func(b []byte) []byte { return b[:cut] })
	if code != 1 || !strings.Contains(out, "truncated") {
		t.Errorf("truncated: exit %d\n%s", code, out)
	}
}

func TestVerifyRDBChecksumDisabled(t *testing.T) {
	b := writeRDB(t, 1000, "rdbchecksum no")
	code, out := verifyBytes(t, b)
	if code != 0 || !strings.Contains(out, "no checksum") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestVerifyRDBSmallAndNotRDB(t *testing.T) {
	b := writeRDB(t, 1)
	if code, out := verifyBytes(t, b); code != 0 {
		t.Fatalf("small intact file: exit %d\n%s", code, out)
	}
	junk := []byte(strings.Repeat("not an rdb file ", 10))
	if code, out := verifyBytes(t, junk); code != 1 || !strings.Contains(out, "not an RDB file") {
		t.Fatalf("junk: exit %d\n%s", code, out)
	}
	if code, out := verifyBytes(t, []byte("REDIS")); code != 2 || !strings.Contains(out, "too short") {
		t.Fatalf("short: exit %d\n%s", code, out)
	}
}
