package transactional

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

var update = flag.Bool("update", false, "rewrite commands_table.go from COMMAND of the real redis-server")

// TestCommandTable checks commands_table.go against COMMAND of the real
// redis-server: the sandbox's arity, noscript and write checks are only as
// faithful as this table.
func TestCommandTable(t *testing.T) {
	srv := redistest.Start(t)
	res, err := srv.Client(t).Do(context.Background(), "COMMAND").Slice()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]cmdFlag{
		"write": flagWrite, "readonly": flagReadonly, "noscript": flagNoScript, "denyoom": flagDenyOOM,
		"stale": flagStale, "blocking": flagBlocking, "pubsub": flagPubsub, "admin": flagAdmin, "fast": flagFast,
		"no_mandatory_keys": flagNoMandatoryKeys, "movablekeys": flagMovableKeys, "allow_busy": flagAllowBusy,
	}
	got := map[string]cmdInfo{}
	var walk func(c []any)
	walk = func(c []any) {
		info := cmdInfo{arity: int(c[1].(int64)), firstKey: int(c[3].(int64)), lastKey: int(c[4].(int64)), step: int(c[5].(int64))}
		for _, f := range c[2].([]any) {
			info.flags |= names[f.(string)]
		}
		got[strings.ToLower(c[0].(string))] = info
		if len(c) > 9 {
			for _, sub := range c[9].([]any) {
				walk(sub.([]any))
			}
		}
	}
	for _, c := range res {
		walk(c.([]any))
	}
	if *update {
		writeCommandTable(t, got, names)
		return
	}
	var diffs []string
	for name, info := range got {
		if commandTable[name] != info {
			diffs = append(diffs, name)
		}
	}
	for name := range commandTable {
		if _, ok := got[name]; !ok {
			diffs = append(diffs, name+" (gone)")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("commands_table.go differs from COMMAND for %d commands, e.g. %q; regenerate it", len(diffs), diffs[:min(len(diffs), 10)])
	}
}

func writeCommandTable(t *testing.T, got map[string]cmdInfo, names map[string]cmdFlag) {
	flagNames := map[cmdFlag]string{
		flagWrite: "flagWrite", flagReadonly: "flagReadonly", flagNoScript: "flagNoScript", flagDenyOOM: "flagDenyOOM",
		flagStale: "flagStale", flagBlocking: "flagBlocking", flagPubsub: "flagPubsub", flagAdmin: "flagAdmin",
		flagFast: "flagFast", flagNoMandatoryKeys: "flagNoMandatoryKeys", flagMovableKeys: "flagMovableKeys",
		flagAllowBusy: "flagAllowBusy",
	}
	var b bytes.Buffer
	b.WriteString("// Code generated from COMMAND of redis-server 7.0.15; TestCommandTable checks it. DO NOT EDIT.\n\npackage transactional\n\n")
	b.WriteString("// commandTable holds what Redis 7.0.15 reports in COMMAND for every command\n// and subcommand (\"parent|sub\"): arity, the flags the sandbox consults, and\n// the first/last/step key positions.\nvar commandTable = map[string]cmdInfo{\n")
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		info := got[k]
		var fl []string
		for _, f := range sortedFlags(names) {
			if info.flags&f != 0 {
				fl = append(fl, flagNames[f])
			}
		}
		flags := "0"
		if len(fl) > 0 {
			flags = strings.Join(fl, " | ")
		}
		fmt.Fprintf(&b, "\t%q: {%d, %s, %d, %d, %d},\n", k, info.arity, flags, info.firstKey, info.lastKey, info.step)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("commands_table.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedFlags(names map[string]cmdFlag) []cmdFlag {
	var fs []cmdFlag
	for _, f := range names {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i] < fs[j] })
	return fs
}
