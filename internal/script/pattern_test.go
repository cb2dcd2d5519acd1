package script

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseKeyPatterns(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       Key
		params     []KeyParam
	}{
		{
			name: "tag and doc",
			line: "--! key: bucket = rl:{id}:tb   the hash holding tokens",
			want: Key{Name: "bucket", Doc: "the hash holding tokens", Pos: Pos{1, 10}, Pattern: &Pattern{
				Text: "rl:{id}:tb", Pos: Pos{1, 19},
				Parts: []Part{{Lit: "rl:"}, {Name: "id", Tag: true}, {Lit: ":tb"}},
			}},
			params: []KeyParam{{Name: "id"}},
		},
		{
			name: "tag alone, no doc",
			line: "--! key: k = {user_id}",
			want: Key{Name: "k", Pos: Pos{1, 10}, Pattern: &Pattern{
				Text: "{user_id}", Pos: Pos{1, 14}, Parts: []Part{{Name: "user_id", Tag: true}},
			}},
			params: []KeyParam{{Name: "user_id"}},
		},
		{
			name: "plain parts",
			line: "--! key: gate = gate:{caller}:<resource>:<day>  one per caller and resource",
			want: Key{Name: "gate", Doc: "one per caller and resource", Pos: Pos{1, 10}, Pattern: &Pattern{
				Text: "gate:{caller}:<resource>:<day>", Pos: Pos{1, 17},
				Parts: []Part{{Lit: "gate:"}, {Name: "caller", Tag: true}, {Lit: ":"}, {Name: "resource"}, {Lit: ":"}, {Name: "day"}},
			}},
			params: []KeyParam{{Name: "caller"}, {Name: "resource"}, {Name: "day"}},
		},
		{
			name: "variadic element goes last",
			line: "--! key: logs... = rl:<party>:{tag}",
			want: Key{Name: "logs", Variadic: true, Pos: Pos{1, 10}, Pattern: &Pattern{
				Text: "rl:<party>:{tag}", Pos: Pos{1, 20},
				Parts: []Part{{Lit: "rl:"}, {Name: "party"}, {Lit: ":"}, {Name: "tag", Tag: true}},
			}},
			params: []KeyParam{{Name: "tag"}, {Name: "party", Variadic: true}},
		},
		{
			// The marker is `=` as the second word: braces in a doc text
			// keep it a doc text, as before patterns existed.
			name: "braces in a doc",
			line: "--! key: bucket            hash {l = level, t = time}; absent when full",
			want: Key{Name: "bucket", Doc: "hash {l = level, t = time}; absent when full", Pos: Pos{1, 10}},
		},
		{
			name: "doc starting with a brace",
			line: "--! key: ids...   {tag}:<id> is how callers name them",
			want: Key{Name: "ids", Variadic: true, Doc: "{tag}:<id> is how callers name them", Pos: Pos{1, 10}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("p.lua", []byte(tc.line+"\nreturn 1\n"))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Keys) != 1 || !reflect.DeepEqual(s.Keys[0], tc.want) {
				t.Fatalf("got\n%#v\nwant\n%#v", s.Keys, tc.want)
			}
			if got := s.KeyParams(); !reflect.DeepEqual(got, tc.params) {
				t.Errorf("KeyParams = %v, want %v", got, tc.params)
			}
		})
	}
}

func TestKeyParamsShared(t *testing.T) {
	s, err := Parse("p.lua", []byte(`--! key: a = {user}:a
--! key: b = x:{user}:<shard>:b
--! key: rest... = {user}:<item>
return 1
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []KeyParam{{Name: "user"}, {Name: "shard"}, {Name: "item", Variadic: true}}
	if got := s.KeyParams(); !reflect.DeepEqual(got, want) {
		t.Errorf("KeyParams = %v, want %v", got, want)
	}
	vals := map[string]string{"user": "u1", "shard": "7", "item": "x"}
	for i, want := range []string{"{u1}:a", "x:{u1}:7:b", "{u1}:x"} {
		if got := s.Keys[i].Pattern.Expand(vals); got != want {
			t.Errorf("Expand(key %s) = %q, want %q", s.Keys[i].Name, got, want)
		}
	}
}

func TestParsePatternErrors(t *testing.T) {
	const syntax = "a pattern is literal text with one hash tag {name} and any plain parts <name>, names in lower snake_case, e.g. rl:{user}:<resource>"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"missing", "--! key: b =\n", []string{"p.lua:1:12: key b: missing pattern after =, e.g. `--! key: b = rl:{user}:b  what it holds`"}},
		{"no tag", "--! key: b = rl:b\n", []string{"p.lua:1:14: key b: pattern rl:b has no hash tag: write the part that decides the cluster slot as {name}, e.g. rl:{user}:b"}},
		{"only plain", "--! key: b = rl:<id>\n", []string{"p.lua:1:14: key b: pattern rl:<id> has no hash tag: write the part that decides the cluster slot as {name}, e.g. rl:{user}:b"}},
		{"two tags", "--! key: b = {a}:{c}\n", []string{"p.lua:1:18: key b: second hash tag {c}: Redis hashes only the first {…} of a key; write it as a plain part <c>"}},
		{"unclosed", "--! key: b = rl:{id\n", []string{`p.lua:1:17: key b: '{' is not closed; ` + syntax}},
		{"unclosed plain", "--! key: b = {id}:<x\n", []string{`p.lua:1:19: key b: '<' is not closed; ` + syntax}},
		{"stray close", "--! key: b = rl}:{id}\n", []string{`p.lua:1:16: key b: stray '}'; ` + syntax}},
		{"stray gt", "--! key: b = {id}>\n", []string{`p.lua:1:18: key b: stray '>'; ` + syntax}},
		{"empty tag", "--! key: b = rl:{}\n", []string{`p.lua:1:18: key b: bad placeholder name ""; ` + syntax}},
		{"bad name", "--! key: b = rl:{Id}\n", []string{`p.lua:1:18: key b: bad placeholder name "Id"; ` + syntax}},
		{"nested", "--! key: b = {a{b}}\n", []string{`p.lua:1:15: key b: bad placeholder name "a{b"; ` + syntax}},
		{"twice", "--! key: b = {id}:<id>\n", []string{"p.lua:1:20: key b: placeholder id used twice in one pattern"}},
		{"quoted", "--! key: b = \"{id} x\"\n", []string{`p.lua:1:14: key b: '"' in a pattern; ` + syntax}},
		{"variadic no element", "--! key: b... = {id}:b\n", []string{"p.lua:1:17: key b: pattern {id}:b of a variadic key needs exactly one plain part <name>, filled from each element, e.g. rl:{id}:<id>"}},
		{"variadic two elements", "--! key: b... = {id}:<x>:<y>\n", []string{"p.lua:1:17: key b: pattern {id}:<x>:<y> of a variadic key needs exactly one plain part <name>, filled from each element, e.g. rl:{id}:<id>"}},
		{"some without", "--! key: a\n--! key: b = {id}:b\n--! key: c\n", []string{
			"p.lua:1:10: key a: no pattern, but key b has one (line 2): give every key a pattern, or none",
			"p.lua:3:10: key c: no pattern, but key b has one (line 2): give every key a pattern, or none",
		}},
		{"tags differ", "--! key: a = {user}:a\n--! key: b = {acct}:b\n", []string{
			"p.lua:2:14: key b: hash tag {acct} differs from key a's {user}; a script's keys must share one slot: use {user}, or flag the script allow-cross-slot-keys",
		}},
		{"tags differ, cross-slot allowed", "--! key: a = {user}:a\n--! key: b = {acct}:b\n--! flags: allow-cross-slot-keys\n", nil},
		{"element used twice", "--! key: a = {u}:<id>\n--! key: b... = {u}:<id>\n", []string{
			"p.lua:2:17: key b: <id> is filled from each element of the tail, so key a cannot use it too",
		}},
		{"tag used as plain elsewhere", "--! key: a = {u}:a\n--! key: b = x:{u}:<v>\n--! key: c = {u}:<u2>:<v>\n", nil},
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
