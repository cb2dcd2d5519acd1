package peers

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/luaflow"
)

// This file is peers-txn's second table: one row a script the suites sent,
// with what it cost through the prelude and why.

// goScript is a Go raw string assigned to a name, alone or given to
// redis.NewScript: how asynq, redis_rate and ulule/limiter keep theirs.
var goScript = regexp.MustCompile("(\\w+)\\s*:?=\\s*(?:redis\\.NewScript\\(\\s*)?`([^`]*)`")

// jsScript is a BullMQ script module (dist/cjs/scripts/NAME-N.js): its text
// as a template literal.
var jsScript = regexp.MustCompile("(?s)const content = `(.*?[^\\\\])`;")

// scriptNames maps the SHA-1 of each script text found under roots to its
// name there: a Go variable (a module's .go files), a BullMQ script's
// module or a Bull script's file name (nodeScriptDirs). Texts the client
// changes before it sends them are not found; they are named from their
// text (scriptLabel).
func scriptNames(roots ...string) map[string]string {
	names := map[string]string{}
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			base := d.Name()
			if !strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, ".js") && !strings.HasSuffix(base, ".lua") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			switch {
			case strings.HasSuffix(base, ".go"):
				for _, m := range goScript.FindAllStringSubmatch(string(b), -1) {
					names[sha1Hex(m[2])] = m[1]
				}
			case strings.HasSuffix(base, ".js"):
				if m := jsScript.FindStringSubmatch(string(b)); m != nil {
					names[sha1Hex(jsUnescape(m[1]))] = fileScriptName(base)
				}
			default:
				names[sha1Hex(string(b))] = fileScriptName(base)
			}
			return nil
		})
	}
	return names
}

// nodeScriptDirs are the folders of a Node install that hold the
// scenarios' scripts: BullMQ's built modules and Bull's Lua files.
func nodeScriptDirs(dir string) []string {
	return []string{
		filepath.Join(dir, "node_modules", "bullmq", "dist", "cjs", "scripts"),
		filepath.Join(dir, "node_modules", "bull", "lib", "commands"),
	}
}

// fileScriptName is a script file's name without its key count and
// extension: addStandardJob-9.js → addStandardJob.
func fileScriptName(base string) string {
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".js"), ".lua")
	if i := strings.LastIndexByte(base, '-'); i > 0 && strings.Trim(base[i+1:], "0123456789") == "" {
		base = base[:i]
	}
	return base
}

// jsUnescape is a template literal's text as JavaScript reads it, for the
// escapes a generated one holds (\\, \`, \$).
func jsUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// literalCall is a literal call site's command and first argument when
// that is a KEYS element.
var literalCall = regexp.MustCompile(`\(\s*["'](\w+)["']\s*,\s*(KEYS\[\d+\])`)

// scriptLabel names a script: its name in the suite's source, else the
// first line of its leading comment, else its SHA-1's prefix and the
// first writes it makes to KEYS elements (by their literal call sites).
func scriptLabel(sha, src string, names map[string]string) string {
	if n := names[sha]; n != "" {
		return n
	}
	if first := strings.TrimSpace(src); strings.HasPrefix(first, "--") {
		if n := scriptName(src); n != "" {
			return n
		}
	}
	var writes []string
	for _, m := range literalCall.FindAllStringSubmatch(src, -1) {
		if c := commands.Lookup(m[1]); c != nil && c.Flags.Has(commands.Write) {
			if w := strings.ToUpper(m[1]) + " " + m[2]; !contains(writes, w) {
				writes = append(writes, w)
			}
		}
		if len(writes) == 2 {
			break
		}
	}
	if len(writes) == 0 {
		return short(sha) + " (no literal write)"
	}
	return short(sha) + " " + strings.Join(writes, ", ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// journaledWrites is what the proof says of src: the writes a failed run
// would have to undo, by command, in source order ("—" for none).
func journaledWrites(src string) string {
	js := luaflow.Explain(src)
	if len(js) == 0 {
		return "—"
	}
	if js[0].GaveUp {
		return "all (the proof gave up: " + js[0].Why + ")"
	}
	count := map[string]int{}
	var order []string
	for _, j := range js {
		c := j.Command
		if c == "" {
			c = "(named at run time)"
		}
		if count[c] == 0 {
			order = append(order, c)
		}
		count[c]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = c
		if count[c] > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", c, count[c])
		}
	}
	return strings.Join(parts, ", ")
}

// journalKinds groups commands (INFO commandstats names) by what the
// journal reads them for.
var journalKinds = []struct {
	kind string
	cmds []string
}{
	{"snapshot", []string{"dump"}},
	{"expiry", []string{"pexpiretime"}},
	{"fields", []string{"hmget", "hget", "hgetall", "zmscore", "zscore", "smismember", "sismember", "get", "zrangebyscore", "zrange", "lrange", "lpos", "exists", "type", "llen"}},
	{"stream", []string{"xinfo|stream", "xrange", "xlen"}},
	{"deferred trim", []string{"xtrim"}},
	{"lookup", []string{"command|info", "command|getkeys"}},
}

// journalReads renders extra, the commands a script's shipped runs made
// beyond its plain runs' (summed over calls), per call and by kind:
// "expiry 2.0 (PEXPIRETIME) · fields 3.0 (HMGET 2.0, ZMSCORE 1.0)". A
// write among them is an undo (of a run that failed plain too) unless
// its kind is known (the deferred trim).
func journalReads(extra map[string]int, calls int) string {
	if calls == 0 {
		return "n/a"
	}
	kindOf := map[string]string{}
	for _, k := range journalKinds {
		for _, c := range k.cmds {
			kindOf[c] = k.kind
		}
	}
	byKind := map[string][]string{}
	total := map[string]int{}
	for name := range extra {
		k := kindOf[name]
		if c := commands.Lookup(strings.ReplaceAll(name, "|", " ")); k == "" && c != nil && c.Flags.Has(commands.Write) {
			k = "undo"
		} else if k == "" {
			k = "other"
		}
		byKind[k] = append(byKind[k], name)
		total[k] += extra[name]
	}
	var parts []string
	for _, k := range append(journalKindNames(), "undo", "other") {
		names := byKind[k]
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		each := make([]string, len(names))
		for i, n := range names {
			each[i] = strings.ToUpper(n)
			if len(names) > 1 {
				each[i] += fmt.Sprintf(" %.1f", float64(extra[n])/float64(calls))
			}
		}
		parts = append(parts, fmt.Sprintf("%s %.1f (%s)", k, float64(total[k])/float64(calls), strings.Join(each, ", ")))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}

func journalKindNames() []string {
	out := make([]string, len(journalKinds))
	for i, k := range journalKinds {
		out[i] = k.kind
	}
	return out
}

// scriptTable renders one row a script the suites sent: its calls through
// the proxy, the calls replayed, its server-time ratio, how it was
// shipped, the writes the proof says need an undo, and the commands the
// journal added per replayed call.
func scriptTable(rows []txnRow) string {
	var b strings.Builder
	b.WriteString("| suite | script | calls | replayed | server-time ratio | shipped | writes journaled (proof) | journal commands per call |\n" +
		"|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ships := append([]shipment(nil), r.ships...)
		label := map[string]string{}
		for _, s := range ships {
			label[s.src.sha] = scriptLabel(s.src.sha, s.src.text, r.names)
		}
		sort.Slice(ships, func(i, j int) bool {
			if a, b := label[ships[i].src.sha], label[ships[j].src.sha]; a != b {
				return a < b
			}
			return ships[i].src.sha < ships[j].src.sha
		})
		for _, s := range ships {
			sha := s.src.sha
			kind := s.kind
			if kind == shipInline {
				kind = "inline journal"
			}
			writes := "—"
			if s.kind != shipUnwrapped {
				writes = journaledWrites(s.src.text)
			}
			n := r.replay.Replayed[sha]
			reads := "n/a"
			if n > 0 {
				reads = journalReads(r.replay.Extra[sha], n)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s |\n", r.suite, cell(label[sha]), s.calls, n,
				ratio(r.replay.Ratios[sha]), kind, cell(writes), cell(reads))
		}
	}
	return b.String()
}

// TestScriptTable holds the second table's naming and arithmetic on
// made-up scripts; it runs in -short mode, where TestPeersTxn does not.
func TestScriptTable(t *testing.T) {
	dir := t.TempDir()
	goSrc := "package rdb\n\nvar enqueueCmd = redis.NewScript(`\nreturn redis.call(\"HSET\", KEYS[1], \"a\", 1)\n`)\n\nconst luaIncr = `return 1`\n"
	js := "'use strict';\nconst content = `--[[ moves \\`a\\` \\${b} ]]\nreturn 1\n`;\nexports.moveToActive = { name: 'moveToActive', content, keys: 11 };\n"
	for name, text := range map[string]string{
		"rdb/rdb.go": goSrc, "node_modules/x.go": goSrc + "var hidden = `return 2`\n",
		"scripts/moveToActive-11.js": js, "commands/addJob-6.lua": "return 3\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := scriptNames(dir)
	for text, want := range map[string]string{
		"\nreturn redis.call(\"HSET\", KEYS[1], \"a\", 1)\n": "enqueueCmd",
		"return 1":                           "luaIncr",
		"--[[ moves `a` ${b} ]]\nreturn 1\n": "moveToActive",
		"return 3\n":                         "addJob",
		"return 2":                           "",
	} {
		if got := names[sha1Hex(text)]; got != want {
			t.Errorf("name of %q: %q, want %q", text, got, want)
		}
	}
	plain := "local v = redis.call('GET', KEYS[2])\nredis.call('LPUSH', KEYS[1], v)\nredis.call('HSET', KEYS[3], 'f', v)\nredis.call('LPUSH', KEYS[1], v)\nredis.call('ZADD', KEYS[4], 1, v)\n"
	for _, c := range []struct{ src, want string }{
		{"\nreturn redis.call(\"HSET\", KEYS[1], \"a\", 1)\n", "enqueueCmd"},
		{"-- Moves a job\nreturn 1", "Moves a job"},
		{plain, short(sha1Hex(plain)) + " LPUSH KEYS[1], HSET KEYS[3]"},
		{"return redis.call('GET', KEYS[1])", short(sha1Hex("return redis.call('GET', KEYS[1])")) + " (no literal write)"},
	} {
		if got := scriptLabel(sha1Hex(c.src), c.src, names); got != c.want {
			t.Errorf("label of %q: %q, want %q", c.src, got, c.want)
		}
	}
	if got, want := journaledWrites(plain), "LPUSH ×2, HSET"; got != want {
		t.Errorf("journaled writes %q, want %q", got, want)
	}
	if got := journaledWrites("return redis.call('SET', KEYS[1], 1)"); got != "—" {
		t.Errorf("journaled writes of a final write: %q", got)
	}
	extra := map[string]int{"pexpiretime": 4, "hmget": 4, "zmscore": 2, "xinfo|stream": 2, "xtrim": 2, "dump": 1, "ping": 2, "hset": 2, "rpop": 1}
	if got, want := journalReads(extra, 2), "snapshot 0.5 (DUMP) · expiry 2.0 (PEXPIRETIME) · fields 3.0 (HMGET 2.0, ZMSCORE 1.0) · "+
		"stream 1.0 (XINFO|STREAM) · deferred trim 1.0 (XTRIM) · undo 1.5 (HSET 1.0, RPOP 0.5) · other 1.0 (PING)"; got != want {
		t.Errorf("journal reads\n%q, want\n%q", got, want)
	}
	if got := journalReads(nil, 3); got != "none" {
		t.Errorf("journal reads of none: %q", got)
	}
	rows := []txnRow{{suite: "s", names: names,
		ships: []shipment{{src: newText(plain), kind: shipRuntime, calls: 7}, {src: newText("return 1"), kind: shipUnwrapped, calls: 3}},
		replay: replayResult{Ratios: map[string]float64{sha1Hex(plain): 2.5}, Replayed: map[string]int{sha1Hex(plain): 2},
			Extra: map[string]map[string]int{sha1Hex(plain): {"pexpiretime": 2}}}}}
	table := scriptTable(rows)
	for _, want := range []string{
		"| s | " + short(sha1Hex(plain)) + " LPUSH KEYS[1], HSET KEYS[3] | 7 | 2 | 2.50 | runtime | LPUSH ×2, HSET | expiry 1.0 (PEXPIRETIME) |",
		"| s | luaIncr | 3 | 0 | n/a | unwrapped | — | n/a |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}
