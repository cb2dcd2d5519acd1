// Command gentables renders package crc's table files; go generate runs it in
// the crc directory.
//
// It is a program of its own, not part of scriptgen's CLI, so it writes its
// output files itself: go generate needs a command that leaves the tables in
// place, and the list it renders (crc/internal/tablespec) is internal to crc.
package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/scriptgen/scriptgen/crc/crcgen"
	"github.com/scriptgen/scriptgen/crc/internal/tablespec"
)

func main() {
	names := make([]string, 0, len(tablespec.Files))
	for name := range tablespec.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src, err := crcgen.Generate(tablespec.Files[name])
		if err == nil {
			err = os.WriteFile(name, src, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "gentables: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}
