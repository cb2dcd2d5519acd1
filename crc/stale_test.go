package crc_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/scriptgen/scriptgen/crc/crcgen"
	"github.com/scriptgen/scriptgen/crc/internal/tablespec"
)

// TestTablesFresh fails when a checked-in table file differs from what the
// generator renders now; run go generate ./crc to refresh them.
func TestTablesFresh(t *testing.T) {
	for name, p := range tablespec.Files {
		want, err := crcgen.Generate(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./crc", name)
		}
	}
}
