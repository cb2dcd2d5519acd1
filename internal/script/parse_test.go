package script

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	src := `#!lua flags=allow-stale
-- A comment before the header is fine.
--! name: token_bucket
--! doc: Token bucket: capacity tokens,
--! doc: refilled at rate per period.
--! key: bucket            the hash holding tokens
--! key: extra...
--! arg: capacity int
--! arg: rate float       tokens per period
--! arg: period duration
--! arg: label string = "a b"   a label
--! arg: cost int = 1
--! arg: now_ms int?        omitted: the server's TIME
--! returns: allowed bool, remaining int, tags []string
--! flags: transactional, no-writes
--! include: lib/common.lua

--[[ a long
--! not a header line: inside a long comment ]]
local x = 1
return x
`
	s, err := Parse("lua/tb.lua", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Script{
		Path: "lua/tb.lua",
		Name: "token_bucket",
		Doc:  "Token bucket: capacity tokens,\nrefilled at rate per period.",
		Keys: []Key{
			{Name: "bucket", Doc: "the hash holding tokens", Pos: Pos{6, 10}},
			{Name: "extra", Variadic: true, Pos: Pos{7, 10}},
		},
		Args: []Arg{
			{Name: "capacity", Type: Int, Pos: Pos{8, 10}},
			{Name: "rate", Type: Float, Doc: "tokens per period", Pos: Pos{9, 10}},
			{Name: "period", Type: Duration, Pos: Pos{10, 10}},
			{Name: "label", Type: String, HasDefault: true, Default: "a b", Doc: "a label", Pos: Pos{11, 10}},
			{Name: "cost", Type: Int, HasDefault: true, Default: "1", Pos: Pos{12, 10}},
			{Name: "now_ms", Type: Int, Optional: true, Doc: "omitted: the server's TIME", Pos: Pos{13, 10}},
		},
		Returns: Returns{Pos: Pos{14, 14}, Fields: []Field{
			{Name: "allowed", Type: Bool, Pos: Pos{14, 14}},
			{Name: "remaining", Type: Int, Pos: Pos{14, 28}},
			{Name: "tags", Type: "[]string", Pos: Pos{14, 43}},
		}},
		Flags:     []Flag{AllowStale, Transactional, NoWrites},
		Include:   []string{"lib/common.lua"},
		Shebang:   &Shebang{Line: "#!lua flags=allow-stale", Engine: Word{"#!lua", 1}, Options: []Option{{Word{"flags=allow-stale", 7}, "flags", "allow-stale"}}},
		HeaderEnd: 16,
	}
	got := *s
	got.Source, got.Body, got.Lua = nil, "", nil // Lua: TestReadLua
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("got\n%#v\nwant\n%#v", got, *want)
	}
	// The shebang line is blanked, not removed, so positions stay true.
	if !strings.HasPrefix(s.Body, "\n-- A comment") || strings.Count(s.Body, "\n") != strings.Count(src, "\n") {
		t.Errorf("body must keep line numbers, got prefix %q", s.Body[:20])
	}
	if got, want := s.RedisFlags(), []string{"allow-stale", "no-writes"}; !reflect.DeepEqual(got, want) {
		t.Errorf("RedisFlags = %v, want %v", got, want)
	}
	if !s.VariadicKeys() || s.MinKeys() != 1 {
		t.Errorf("VariadicKeys/MinKeys = %v/%d", s.VariadicKeys(), s.MinKeys())
	}
	if _, err := s.Chunk(); err != nil {
		t.Errorf("Chunk: %v", err)
	}
}

func TestParseSingleReturnAndDefaultName(t *testing.T) {
	s, err := Parse("dir/incr_by.lua", []byte("--! key: counter\n--! returns: []int\nreturn {1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "incr_by" || s.Returns.Type != "[]int" || len(s.Returns.Fields) != 0 {
		t.Errorf("got name %q returns %+v", s.Name, s.Returns)
	}
	if s.HeaderEnd != 2 {
		t.Errorf("HeaderEnd = %d, want 2", s.HeaderEnd)
	}
}

const headerText = "header text is UTF-8 with no control characters but tab (it ends up in Go comments and docs)"

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // each error, in order
	}{
		{"unknown key", "--! nam: x\n", []string{"p.lua:1:5: unknown header key \"nam\"; valid keys: name, doc, key, arg, returns, flags, include, lint"}},
		{"no colon", "--! name x\n", []string{"p.lua:1:5: expected `--! key: value`; valid keys: name, doc, key, arg, returns, flags, include, lint"}},
		{"bad name", "--! name: Token-Bucket\n", []string{`p.lua:1:11: invalid name "Token-Bucket": use lower snake_case (a-z, 0-9, _), starting with a letter`}},
		{"name twice", "--! name: a\n--! name: b\n", []string{"p.lua:2:5: name: given twice (first at line 1)"}},
		{"bad file name", "--! key: k\n", nil}, // p.lua gives name "p"
		{"key missing", "--! key:\n", []string{"p.lua:1:9: key: missing name, e.g. `--! key: bucket  the hash holding the tokens`"}},
		{"key bad", "--! key: Bucket\n", []string{`p.lua:1:10: key "Bucket": invalid name: use lower snake_case (a-z, 0-9, _), starting with a letter`}},
		{"key twice", "--! key: a\n--! key: a\n", []string{"p.lua:2:10: key a: declared twice (first at line 1)"}},
		{"key after variadic", "--! key: a...\n--! key: b\n", []string{"p.lua:2:10: key b: follows variadic key a, which takes all remaining KEYS"}},
		{"arg missing", "--! arg:\n", []string{"p.lua:1:9: arg: missing name and type, e.g. `--! arg: limit int`"}},
		{"arg no type", "--! arg: limit\n", []string{"p.lua:1:15: arg limit: missing type; valid types: bool, bytes, duration, float, int, json, string"}},
		{"arg bad type", "--! arg: limit integer\n", []string{`p.lua:1:16: arg limit: unknown type "integer"; valid types: bool, bytes, duration, float, int, json, string`}},
		{"arg twice", "--! arg: a int\n--! arg: a int\n", []string{"p.lua:2:10: arg a: declared twice (first at line 1)"}},
		{"arg bad name", "--! arg: 1a int\n", []string{`p.lua:1:10: arg "1a": invalid name: use lower snake_case (a-z, 0-9, _), starting with a letter`}},
		{"default missing", "--! arg: a int =\n", []string{"p.lua:1:16: arg a: missing default value after ="}},
		{"default int", "--! arg: a int = x\n", []string{"p.lua:1:18: arg a: bad default x: want an integer"}},
		{"default float", "--! arg: a float = NaN\n", []string{"p.lua:1:20: arg a: bad default NaN: want a finite number"}},
		{"default bool", "--! arg: a bool = yes\n", []string{"p.lua:1:19: arg a: bad default yes: want true or false"}},
		{"default duration", "--! arg: a duration = 1.5ms\n", []string{"p.lua:1:23: arg a: bad default 1.5ms: want a non-negative Go duration in whole milliseconds, e.g. 1500ms or 1m"}},
		{"default json", "--! arg: a json = {x\n", []string{"p.lua:1:19: arg a: bad default {x: want valid JSON"}},
		{"default quote", "--! arg: a string = \"x\n", []string{"p.lua:1:21: arg a: bad default \"x: bad quoted string"}},
		{"default variadic", "--! arg: a int... = 1\n", []string{"p.lua:1:19: arg a: a variadic arg cannot have a default"}},
		{"empty default any type", "--! arg: a int = \"\"\n--! arg: b duration = \"\"\n", nil},
		{"required after optional", "--! arg: a int?\n--! arg: b int\n", nil}, // a is sent as "" when absent
		{"arg after variadic", "--! arg: a int...\n--! arg: b int\n", []string{"p.lua:2:10: arg b: follows variadic arg a, which takes all remaining ARGV"}},
		{"returns empty", "--! returns:\n", []string{"p.lua:1:13: returns: missing type; valid types: any, bool, bytes, duration, float, int, json, status, string, or fields `name type, name type`"}},
		{"returns bad", "--! returns: number\n", []string{`p.lua:1:14: returns: unknown type "number"; valid types: any, bool, bytes, duration, float, int, json, status, string (each also as []T)`}},
		{"returns status list", "--! returns: []status\n", []string{`p.lua:1:14: returns: unknown type "[]status"; valid types: any, bool, bytes, duration, float, int, json, status, string (each also as []T)`}},
		{"returns field", "--! returns: a int, b\n", []string{"p.lua:1:21: returns: expected `name type` for each field, got \"b\""}},
		{"returns field type", "--! returns: a int, b num\n", []string{`p.lua:1:23: returns: field b: unknown type "num"; valid types: any, bool, bytes, duration, float, int, json, status, string (each also as []T)`}},
		{"returns field twice", "--! returns: a int, a int\n", []string{"p.lua:1:21: returns: field a given twice"}},
		{"returns twice", "--! returns: int\n--! returns: int\n", []string{"p.lua:2:5: returns: given twice (first at line 1)"}},
		{"flag", "--! flags: no-write\n", []string{`p.lua:1:12: unknown flag "no-write"; valid flags: allow-cross-slot-keys, allow-oom, allow-stale, no-cluster, no-writes, transactional`}},
		{"flag second", "--! flags: no-writes, nope\n", []string{`p.lua:1:23: unknown flag "nope"; valid flags: allow-cross-slot-keys, allow-oom, allow-stale, no-cluster, no-writes, transactional`}},
		{"include empty", "--! include:\n", []string{"p.lua:1:13: include: missing path of a .lua file relative to this script"}},
		{"include outside", "--! include: ../x.lua\n", []string{"p.lua:1:14: include ../x.lua: must be a path inside the script's directory"}},
		{"include not lua", "--! include: x.txt\n", []string{"p.lua:1:14: include x.txt: must name a .lua file"}},
		{"after code", "--! name: a\nlocal x = 1\n  --! key: k\n", []string{"p.lua:3:3: header line after code: move it into the header at the top of the file"}},
		{"shebang", "#!python\n", []string{`p.lua:1:1: unexpected shebang "#!python": Redis accepts only #!lua`}},
		{"shebang option", "#!lua flag=x\n", []string{`p.lua:1:7: unknown shebang option "flag=x"; valid options: flags=, name=`}},
		{"shebang flag", "#!lua flags=no-writes,bogus\n", []string{`p.lua:1:23: unknown flag "bogus"; valid flags: allow-cross-slot-keys, allow-oom, allow-stale, no-cluster, no-writes, transactional`}},
		{"doc nul", "--! doc: a\x00b\n", []string{"p.lua:1:11: NUL byte in a header line: " + headerText}},
		{"doc control", "--! doc: a\x1bb\n", []string{"p.lua:1:11: control character U+001B in a header line: " + headerText}},
		{"doc cr", "--! doc: a\rb\r\n", []string{"p.lua:1:11: control character U+000D in a header line: " + headerText}},
		{"doc del", "  --! doc: \x7f\n", []string{"p.lua:1:12: control character U+007F in a header line: " + headerText}},
		{"doc c1", "--! doc: \u0085\n", []string{"p.lua:1:10: control character U+0085 in a header line: " + headerText}},
		{"doc utf-8", "--! doc: caf\xe9\n", []string{"p.lua:1:13: invalid UTF-8 (byte 0xe9) in a header line: " + headerText}},
		{"key utf-8", "--! key: k  \xff\xfe\n", []string{"p.lua:1:13: invalid UTF-8 (byte 0xff) in a header line: " + headerText}},
		{"doc fine", "--! doc: tab\there, caf\u00e9, \uFFFD, emoji \U0001F600\n", nil},
		{"many", "--! name: a\n--! key: K\n--! arg: x y\n", []string{
			`p.lua:2:10: key "K": invalid name: use lower snake_case (a-z, 0-9, _), starting with a letter`,
			`p.lua:3:12: arg x: unknown type "y"; valid types: bool, bytes, duration, float, int, json, string`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.lua", []byte(tc.src))
			var got []string
			if err != nil {
				var l ErrorList
				if !errors.As(err, &l) {
					t.Fatalf("error %T is not an ErrorList", err)
				}
				for _, e := range l {
					got = append(got, e.Error())
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

func TestAnyFileName(t *testing.T) {
	for path, want := range map[string]string{
		"dir/Bad-Name.lua":         "bad_name",
		"addStandardJob-9.lua":     "add_standard_job",
		"getStateV2-8.lua":         "get_state_v2",
		"HTTPServer.lua":           "http_server",
		"9lives.lua":               "script_9lives",
		"--.lua":                   "script",
		"already_snake_case.lua":   "already_snake_case",
		"with.dots and spaces.lua": "with_dots_and_spaces",
	} {
		s, err := Parse(path, []byte("return 1\n"))
		if err != nil || s.Name != want {
			t.Errorf("%s: name %q, %v; want %q", path, s.Name, err, want)
		}
	}
}

func TestChunkSyntaxError(t *testing.T) {
	s, err := Parse("x.lua", []byte("#!lua\n--! name: x\nlocal a = = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Chunk()
	var e *Error
	if !errors.As(err, &e) || e.Path != "x.lua" || e.Line != 3 {
		t.Fatalf("got %v, want an error at x.lua:3", err)
	}
	if !strings.HasPrefix(e.Error(), "x.lua:3:") || !strings.Contains(e.Error(), "lua: ") {
		t.Errorf("message %q", e.Error())
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("--! name: a\n--! key: k...\n--! arg: x int = 1\n--! returns: a int, b []string\n--! flags: no-writes\nreturn 1\n"))
	f.Add([]byte("#!lua flags=no-writes name=x\n--! arg: s string = \"a \\\" b\"\n--[==[\n]==]\n"))
	f.Add([]byte("--! returns: ,,\n--! arg: a int? = 1\n"))
	f.Add([]byte("--! key: a = rl:{u}:<x>  doc {y}\n--! key: b... = {u}:<id>\n--! flags: allow-cross-slot-keys\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Parse("f.lua", src)
		if s == nil {
			t.Fatal("nil script")
		}
		if strings.Count(s.Body, "\n") != strings.Count(string(src), "\n") {
			t.Fatal("body changed the line count")
		}
		if err != nil {
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, e := range l {
				if e.Line < 1 || e.Col < 1 || !strings.HasPrefix(e.Error(), "f.lua:") {
					t.Fatalf("unpositioned error %q", e.Error())
				}
			}
		}
		_, _ = s.Chunk()
	})
}

func TestEvalSource(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return 1\n", "return 1\n"},
		{"--! flags: transactional\nreturn 1\n", "--! flags: transactional\nreturn 1\n"},
		{"--! flags: no-writes, allow-stale\nreturn 1\n", "#!lua flags=allow-stale,no-writes\n--! flags: no-writes, allow-stale\nreturn 1\n"},
		{"#!lua\nreturn 1\n", "#!lua\nreturn 1\n"},
		{"#!lua flags=no-writes\n--! flags: allow-oom\nreturn 1\n", "#!lua flags=allow-oom,no-writes\n--! flags: allow-oom\nreturn 1\n"},
	} {
		s, err := Parse("e.lua", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.EvalSource(); got != tc.want {
			t.Errorf("EvalSource(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
