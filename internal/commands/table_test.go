package commands

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

var update = flag.Bool("update", false, "rewrite table.go from the installed redis-server's COMMAND")

const tableFile = "table.go"

// TestTable is the table's generator: it renders COMMAND of a real server
// and compares the result with the checked-in table.go, or rewrites it with
// -update.
func TestTable(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	version := field(info, "redis_version")
	reply, err := c.Do(ctx, "COMMAND").Result()
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := parseCommandReply(reply)
	if err != nil {
		t.Fatal(err)
	}
	src, err := render(version, cmds)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(tableFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(tableFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatalf("%s is stale against redis-server %s: run `go test ./internal/commands -run TestTable -update`\n%s",
			tableFile, version, firstDiff(string(old), string(src)))
	}
	// The parse must keep everything the server said: the table agrees with
	// a second, independent reading of the same reply.
	if got, want := len(table), len(cmds); got != want {
		t.Errorf("table has %d commands; server %d", got, want)
	}
}

func field(info, name string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  checked in: %s\n  server:     %s", i+1, x, y)
		}
	}
	return ""
}

// parseCommandReply reads COMMAND's reply as go-redis returns it, in RESP2
// (key specs as flat arrays) or RESP3 (key specs as maps).
func parseCommandReply(reply any) ([]Command, error) {
	list, ok := reply.([]any)
	if !ok {
		return nil, fmt.Errorf("COMMAND: got %T, want an array", reply)
	}
	var out []Command
	var add func(v any, parent string) error
	add = func(v any, parent string) error {
		e, ok := v.([]any)
		if !ok || len(e) < 10 {
			return fmt.Errorf("COMMAND entry %v: want 10 fields", v)
		}
		c := Command{Name: strings.ToLower(str(e[0]))}
		c.Arity, c.FirstKey, c.LastKey, c.Step = num(e[1]), num(e[3]), num(e[4]), num(e[5])
		for _, f := range strs(e[2]) {
			i := indexOf(FlagNames, f)
			if i < 0 {
				return fmt.Errorf("%s: unknown flag %q: add it to FlagNames", c.Name, f)
			}
			c.Flags |= 1 << i
		}
		for _, ks := range arr(e[8]) {
			spec, err := parseKeySpec(ks)
			if err != nil {
				return fmt.Errorf("%s: %v", c.Name, err)
			}
			c.KeySpecs = append(c.KeySpecs, spec)
		}
		subs := arr(e[9])
		c.Container = len(subs) > 0
		out = append(out, c)
		for _, sub := range subs {
			if err := add(sub, c.Name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, v := range list {
		if err := add(v, ""); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func parseKeySpec(v any) (KeySpec, error) {
	m := dict(v)
	var s KeySpec
	for _, f := range strs(m["flags"]) {
		i := indexOf(KeyFlagNames, f)
		if i < 0 {
			return s, fmt.Errorf("unknown key spec flag %q: add it to KeyFlagNames", f)
		}
		s.Flags |= 1 << i
	}
	bs := dict(m["begin_search"])
	bspec := dict(bs["spec"])
	switch str(bs["type"]) {
	case "index":
		s.Begin, s.Index = BeginIndex, num(bspec["index"])
	case "keyword":
		s.Begin, s.Keyword, s.StartFrom = BeginKeyword, str(bspec["keyword"]), num(bspec["startfrom"])
	case "unknown":
	default:
		return s, fmt.Errorf("unknown begin_search type %v", bs["type"])
	}
	fk := dict(m["find_keys"])
	fspec := dict(fk["spec"])
	switch str(fk["type"]) {
	case "range":
		s.Find, s.LastKey, s.KeyStep, s.Limit = FindRange, num(fspec["lastkey"]), num(fspec["keystep"]), num(fspec["limit"])
	case "keynum":
		s.Find, s.KeynumIdx, s.FirstKey, s.KeyStep = FindKeynum, num(fspec["keynumidx"]), num(fspec["firstkey"]), num(fspec["keystep"])
	case "unknown":
	default:
		return s, fmt.Errorf("unknown find_keys type %v", fk["type"])
	}
	return s, nil
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

func num(v any) int {
	if n, ok := v.(int64); ok {
		return int(n)
	}
	return 0
}

func arr(v any) []any {
	a, _ := v.([]any)
	return a
}

func strs(v any) []string {
	var out []string
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			out = append(out, str(e))
		}
	case map[any]any: // a RESP3 set may arrive as a map of members
		for k := range v {
			out = append(out, str(k))
		}
		sort.Strings(out)
	}
	return out
}

// dict reads a RESP3 map or a RESP2 flat array of name, value pairs.
func dict(v any) map[string]any {
	m := map[string]any{}
	switch v := v.(type) {
	case map[any]any:
		for k, e := range v {
			m[str(k)] = e
		}
	case map[string]any:
		return v
	case []any:
		for i := 0; i+1 < len(v); i += 2 {
			m[str(v[i])] = v[i+1]
		}
	}
	return m
}

func indexOf(list []string, s string) int {
	for i, e := range list {
		if e == s {
			return i
		}
	}
	return -1
}

var flagIdents = []string{
	"Write", "Readonly", "DenyOOM", "Admin", "PubSub", "NoScript", "Blocking",
	"Loading", "Stale", "SkipMonitor", "SkipSlowlog", "Asking", "Fast",
	"NoAuth", "MayReplicate", "NoMandatoryKeys", "NoAsyncLoading",
	"NoMulti", "MovableKeys", "AllowBusy",
}

var keyFlagIdents = []string{
	"KeyRO", "KeyRW", "KeyOW", "KeyRM", "KeyAccess", "KeyUpdate", "KeyInsert",
	"KeyDelete", "KeyNotKey", "KeyIncomplete", "KeyVariableFlags",
}

func bits[F ~uint16 | ~uint32](f F, idents []string) string {
	var parts []string
	for i, n := range idents {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// render writes table.go: one line per command, so that a server upgrade
// shows up as a readable diff.
func render(version string, cmds []Command) ([]byte, error) {
	if len(flagIdents) != len(FlagNames) || len(keyFlagIdents) != len(KeyFlagNames) {
		return nil, fmt.Errorf("flag identifier lists out of step with FlagNames/KeyFlagNames")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by TestTable from COMMAND of redis-server %s. DO NOT EDIT.\n\n", version)
	b.WriteString("package commands\n\n")
	fmt.Fprintf(&b, "// ServerVersion is the redis-server whose COMMAND reply the table holds.\nconst ServerVersion = %q\n\n", version)
	b.WriteString("var table = []Command{\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "{Name: %q, Arity: %d, Flags: %s, FirstKey: %d, LastKey: %d, Step: %d",
			c.Name, c.Arity, bits(c.Flags, flagIdents), c.FirstKey, c.LastKey, c.Step)
		if c.Container {
			b.WriteString(", Container: true")
		}
		if len(c.KeySpecs) > 0 {
			b.WriteString(", KeySpecs: []KeySpec{")
			for i, s := range c.KeySpecs {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(renderSpec(s))
			}
			b.WriteString("}")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source([]byte(b.String()))
}

func renderSpec(s KeySpec) string {
	parts := []string{"Flags: " + bits(s.Flags, keyFlagIdents)}
	switch s.Begin {
	case BeginIndex:
		parts = append(parts, "Begin: BeginIndex", fmt.Sprintf("Index: %d", s.Index))
	case BeginKeyword:
		parts = append(parts, "Begin: BeginKeyword", fmt.Sprintf("Keyword: %q", s.Keyword), fmt.Sprintf("StartFrom: %d", s.StartFrom))
	}
	switch s.Find {
	case FindRange:
		parts = append(parts, "Find: FindRange", fmt.Sprintf("LastKey: %d", s.LastKey), fmt.Sprintf("KeyStep: %d", s.KeyStep))
		if s.Limit != 0 {
			parts = append(parts, fmt.Sprintf("Limit: %d", s.Limit))
		}
	case FindKeynum:
		parts = append(parts, "Find: FindKeynum", fmt.Sprintf("KeynumIdx: %d", s.KeynumIdx), fmt.Sprintf("FirstKey: %d", s.FirstKey), fmt.Sprintf("KeyStep: %d", s.KeyStep))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
