package script

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// HeaderKeys are the keys a `--!` line may use, in the order the docs list them.
var HeaderKeys = []string{"name", "doc", "key", "arg", "returns", "flags", "include", "lint"}

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Parse reads the header of one source. It returns the Script even when the
// header has errors, so that callers can report every problem of every file
// in one run; the error is then an ErrorList.
func Parse(path string, src []byte) (*Script, error) {
	p := &parser{s: &Script{Path: path, Source: src}}
	p.run()
	return p.s, p.errs.Err()
}

type parser struct {
	s    *Script
	errs ErrorList

	seen     map[string]Pos // header keys allowed once
	names    map[string]Pos // keys and args, each its own namespace
	argNames map[string]Pos
	header   bool // a `--!` line was seen
}

func (p *parser) errorf(line, col int, format string, args ...any) {
	p.errs = append(p.errs, &Error{Path: p.s.Path, Pos: Pos{line, col}, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) run() {
	p.seen = map[string]Pos{}
	p.names = map[string]Pos{}
	p.argNames = map[string]Pos{}

	src := string(p.s.Source)
	lines := strings.SplitAfter(src, "\n")
	var body strings.Builder
	body.Grow(len(src))

	inHeader := true
	longClose := "" // the closing bracket of a --[[ comment that is still open
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(raw, "\r\n")
		if n == 1 && strings.HasPrefix(line, "#!") {
			body.WriteString(raw[len(line):]) // keep the newline: line numbers must not move
			p.shebang(line)
			continue
		}
		body.WriteString(raw)

		if longClose != "" {
			if strings.Contains(line, longClose) {
				longClose = ""
			}
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		if strings.HasPrefix(trimmed, "--!") {
			if !inHeader {
				p.errorf(n, indent+1, "header line after code: move it into the header at the top of the file")
				continue
			}
			p.headerLine(n, indent, trimmed)
			p.s.HeaderEnd = n
			p.header = true
			continue
		}
		if !inHeader {
			continue
		}
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "--"):
			if c, ok := longBracket(trimmed[2:]); ok && !strings.Contains(trimmed[2+len(c):], strings.ReplaceAll(c, "[", "]")) {
				longClose = strings.ReplaceAll(c, "[", "]")
			}
		default:
			inHeader = false
		}
	}
	p.s.Body = body.String()
	if !strings.HasPrefix(src, "#!") {
		p.s.Body = src // the same text: one copy less per script kept in memory
	}
	p.s.Lua = ReadLua(p.s.Path, p.s.Body)
	p.finish()
}

// longBracket reports whether s opens a Lua long bracket ([[ or [==[) and returns it.
func longBracket(s string) (string, bool) {
	if !strings.HasPrefix(s, "[") {
		return "", false
	}
	j := 1
	for j < len(s) && s[j] == '=' {
		j++
	}
	if j < len(s) && s[j] == '[' {
		return s[:j+1], true
	}
	return "", false
}

// shebang takes the flags of a `#!lua flags=a,b name=lib` line, which Redis
// itself honours, so that the model agrees with what the server will do.
func (p *parser) shebang(line string) {
	sb := ParseShebang(line)
	p.s.Shebang = sb
	if sb.Engine.Text != "#!lua" {
		p.errorf(1, 1, "unexpected shebang %q: Redis accepts only #!lua", line)
		return
	}
	for _, o := range sb.Options {
		switch o.Key {
		case "flags":
			for _, f := range o.Items() {
				if f.Text != "" {
					p.flag(1, token{f.Text, f.Col})
				}
			}
		case "name":
			// A Functions library name: the bundler writes its own.
		default:
			p.errorf(1, o.Col, "unknown shebang option %q; valid options: flags=, name=", o.Text)
		}
	}
}

// splitField splits a `--! key: value` line, text, which starts with "--!"
// at byte offset indent of its line, into the key and the value (trimmed)
// and their columns; ok is false when text has no `key:`.
func splitField(indent int, text string) (key, value string, keyCol, valCol int, ok bool) {
	rest := text[3:]
	lead := len(rest) - len(strings.TrimLeft(rest, " \t"))
	rest = rest[lead:]
	keyCol = indent + 3 + lead + 1
	key, value, ok = strings.Cut(rest, ":")
	if !ok || strings.ContainsAny(key, " \t") {
		return "", "", keyCol, 0, false
	}
	valCol = keyCol + len(key) + 1
	trimmedVal := strings.TrimLeft(value, " \t")
	valCol += len(value) - len(trimmedVal)
	return key, strings.TrimRight(trimmedVal, " \t"), keyCol, valCol, true
}

// badText finds the first byte of s that header text may not hold: invalid
// UTF-8, NUL or another control character than tab. col is its 1-based
// byte column in s, 0 when there is none.
func badText(s string) (col int, what string) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return i + 1, fmt.Sprintf("invalid UTF-8 (byte %#02x)", s[i])
		case r == 0:
			return i + 1, "NUL byte"
		case r != '\t' && unicode.IsControl(r):
			return i + 1, fmt.Sprintf("control character %U", r)
		}
	}
	return 0, ""
}

// headerLine parses one `--! key: value` line; indent is the byte offset of
// "--!" in the line.
func (p *parser) headerLine(n, indent int, text string) {
	if col, what := badText(text); col > 0 {
		p.errorf(n, indent+col, "%s in a header line: header text is UTF-8 with no control characters but tab (it ends up in Go comments and docs)", what)
		return
	}
	key, value, keyCol, valCol, ok := splitField(indent, text)
	if !ok {
		p.errorf(n, keyCol, "expected `--! key: value`; valid keys: %s", strings.Join(HeaderKeys, ", "))
		return
	}

	switch key {
	case "name", "returns":
		if prev, dup := p.seen[key]; dup {
			p.errorf(n, keyCol, "%s: given twice (first at line %d)", key, prev.Line)
			return
		}
		p.seen[key] = Pos{n, keyCol}
	}
	switch key {
	case "name":
		if !identRE.MatchString(value) {
			p.errorf(n, valCol, "invalid name %q: use lower snake_case (a-z, 0-9, _), starting with a letter", value)
			return
		}
		p.s.Name = value
	case "doc":
		if p.s.Doc != "" {
			p.s.Doc += "\n"
		}
		p.s.Doc += value
	case "key":
		p.key(n, valCol, value)
	case "arg":
		p.arg(n, valCol, value)
	case "returns":
		p.returns(n, valCol, value)
	case "flags":
		for _, f := range splitList(value, valCol) {
			p.flag(n, f)
		}
	case "include":
		p.include(n, valCol, value)
	case "lint":
		// Severity directives belong to package lint, which validates them.
		p.lint(n, valCol, value)
	default:
		p.errorf(n, keyCol, "unknown header key %q; valid keys: %s", key, strings.Join(HeaderKeys, ", "))
	}
}

// lint splits a `--! lint:` value into its action, the first word, and
// the rules after it, separated by commas or spaces.
func (p *parser) lint(n, col int, value string) {
	d := Directive{Text: value, Pos: Pos{n, col}}
	end := strings.IndexFunc(value, unicode.IsSpace)
	if end < 0 {
		end = len(value)
	}
	d.Action = Word{value[:end], col}
	i := end
	for i < len(value) && unicode.IsSpace(rune(value[i])) {
		i++
	}
	for i < len(value) {
		if value[i] == ',' || value[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(value) && value[j] != ',' && value[j] != ' ' {
			j++
		}
		d.Rules = append(d.Rules, Word{value[i:j], col + i})
		i = j
	}
	if value != "" {
		p.s.Lint = append(p.s.Lint, d)
	}
}

func (p *parser) key(n, col int, value string) {
	toks := tokens(value, col)
	if len(toks) == 0 {
		p.errorf(n, col, "key: missing name, e.g. `--! key: bucket  the hash holding the tokens`")
		return
	}
	name, variadic := strings.CutSuffix(toks[0].text, "...")
	if !p.ident(n, toks[0].col, "key", name) {
		return
	}
	if prev, dup := p.names[name]; dup {
		p.errorf(n, toks[0].col, "key %s: declared twice (first at line %d)", name, prev.Line)
		return
	}
	if len(p.s.Keys) > 0 && p.s.Keys[len(p.s.Keys)-1].Variadic {
		p.errorf(n, toks[0].col, "key %s: follows variadic key %s, which takes all remaining KEYS", name, p.s.Keys[len(p.s.Keys)-1].Name)
		return
	}
	k := Key{Name: name, Variadic: variadic, Pos: Pos{n, toks[0].col}}
	docFrom := 1
	// `=` as the second word marks a pattern, as it marks an arg's default:
	// a doc text that happens to hold braces stays a doc text.
	if len(toks) > 1 && toks[1].text == "=" {
		if len(toks) < 3 {
			p.errorf(n, toks[1].col, "key %s: missing pattern after =, e.g. `--! key: %s = rl:{user}:%s  what it holds`", name, name, name)
			return
		}
		pat, ok := p.pattern(n, toks[2].col, name, variadic, toks[2].text)
		if !ok {
			return
		}
		k.Pattern = pat
		docFrom = 3
	}
	k.Doc = rest(value, toks, docFrom)
	p.names[name] = k.Pos
	p.s.Keys = append(p.s.Keys, k)
}

func (p *parser) arg(n, col int, value string) {
	toks := tokens(value, col)
	if len(toks) == 0 {
		p.errorf(n, col, "arg: missing name and type, e.g. `--! arg: limit int`")
		return
	}
	name := toks[0].text
	if !p.ident(n, toks[0].col, "arg", name) {
		return
	}
	if prev, dup := p.argNames[name]; dup {
		p.errorf(n, toks[0].col, "arg %s: declared twice (first at line %d)", name, prev.Line)
		return
	}
	if len(toks) < 2 {
		p.errorf(n, toks[0].col+len(name), "arg %s: missing type; valid types: %s", name, typeList(ArgTypes))
		return
	}
	a := Arg{Name: name, Pos: Pos{n, toks[0].col}}
	t := toks[1].text
	if s, ok := strings.CutSuffix(t, "..."); ok {
		t, a.Variadic = s, true
	} else if s, ok := strings.CutSuffix(t, "?"); ok {
		t, a.Optional = s, true
	}
	a.Type = Type(t)
	if !validType(a.Type, ArgTypes) {
		p.errorf(n, toks[1].col, "arg %s: unknown type %q; valid types: %s", name, t, typeList(ArgTypes))
		return
	}
	docFrom := 2
	if len(toks) > 2 && toks[2].text == "=" {
		if len(toks) < 4 {
			p.errorf(n, toks[2].col, "arg %s: missing default value after =", name)
			return
		}
		if a.Variadic {
			p.errorf(n, toks[2].col, "arg %s: a variadic arg cannot have a default", name)
			return
		}
		def, err := checkDefault(a.Type, toks[3].text)
		if err != nil {
			p.errorf(n, toks[3].col, "arg %s: bad default %s: %v", name, toks[3].text, err)
			return
		}
		a.HasDefault, a.Default = true, def
		docFrom = 4
	}
	a.Doc = rest(value, toks, docFrom)

	if len(p.s.Args) > 0 {
		if last := p.s.Args[len(p.s.Args)-1]; last.Variadic {
			p.errorf(n, a.Pos.Col, "arg %s: follows variadic arg %s, which takes all remaining ARGV", name, last.Name)
			return
		}
	}
	p.argNames[name] = a.Pos
	p.s.Args = append(p.s.Args, a)
}

func (p *parser) returns(n, col int, value string) {
	p.s.Returns.Pos = Pos{n, col}
	if value == "" {
		p.errorf(n, col, "returns: missing type; valid types: %s, or fields `name type, name type`", typeList(ReturnTypes))
		return
	}
	// One token is a single type; anything else is a list of fields.
	if toks := tokens(value, col); len(toks) == 1 && !strings.Contains(value, ",") {
		t := Type(toks[0].text)
		if !validReturn(t) {
			p.errorf(n, toks[0].col, "returns: unknown type %q; valid types: %s (each also as []T)", t, typeList(ReturnTypes))
			return
		}
		p.s.Returns.Type = t
		return
	}
	seen := map[string]bool{}
	partCol := col
	for _, part := range strings.Split(value, ",") {
		toks := tokens(part, partCol)
		partCol += len(part) + 1
		if len(toks) != 2 {
			p.errorf(n, partCol-len(part)-1+len(part)-len(strings.TrimLeft(part, " \t")), "returns: expected `name type` for each field, got %q", strings.TrimSpace(part))
			continue
		}
		name, t := toks[0].text, Type(toks[1].text)
		if !p.ident(n, toks[0].col, "returns field", name) {
			continue
		}
		if seen[name] {
			p.errorf(n, toks[0].col, "returns: field %s given twice", name)
			continue
		}
		seen[name] = true
		if !validReturn(t) {
			p.errorf(n, toks[1].col, "returns: field %s: unknown type %q; valid types: %s (each also as []T)", name, t, typeList(ReturnTypes))
			continue
		}
		p.s.Returns.Fields = append(p.s.Returns.Fields, Field{Name: name, Type: t, Pos: Pos{n, toks[0].col}})
	}
}

func (p *parser) flag(n int, tok token) {
	f := Flag(tok.text)
	valid := false
	for _, v := range ValidFlags {
		valid = valid || v == f
	}
	if !valid {
		names := make([]string, len(ValidFlags))
		for i, v := range ValidFlags {
			names[i] = string(v)
		}
		p.errorf(n, tok.col, "unknown flag %q; valid flags: %s", tok.text, strings.Join(names, ", "))
		return
	}
	if !p.s.Has(f) {
		p.s.Flags = append(p.s.Flags, f)
	}
}

func (p *parser) include(n, col int, value string) {
	switch {
	case value == "":
		p.errorf(n, col, "include: missing path of a .lua file relative to this script")
	case filepath.IsAbs(value) || strings.HasPrefix(filepath.ToSlash(filepath.Clean(value)), "../"):
		p.errorf(n, col, "include %s: must be a path inside the script's directory", value)
	case !strings.HasSuffix(value, ".lua"):
		p.errorf(n, col, "include %s: must name a .lua file", value)
	default:
		p.s.Include = append(p.s.Include, filepath.ToSlash(filepath.Clean(value)))
	}
}

func (p *parser) ident(n, col int, what, name string) bool {
	if identRE.MatchString(name) {
		return true
	}
	p.errorf(n, col, "%s %q: invalid name: use lower snake_case (a-z, 0-9, _), starting with a letter", what, name)
	return false
}

func (p *parser) finish() {
	p.checkPatterns()
	if p.s.Name == "" {
		// Any file name will do: scripts written for other loaders are
		// named addStandardJob-9.lua.
		p.s.Name, _ = NameOf(strings.TrimSuffix(filepath.Base(p.s.Path), ".lua"))
	}
	library := p.s.Shebang != nil && p.s.Shebang.Has("name")
	if !p.header && !library && len(p.errs) == 0 && p.s.Lua.Syntax == nil {
		p.s.infer(nil)
	}
}

func checkDefault(t Type, v string) (string, error) {
	if v == `""` {
		// Any type: the empty string the script reads as absent.
		return "", nil
	}
	if strings.HasPrefix(v, `"`) {
		u, err := strconv.Unquote(v)
		if err != nil {
			return "", fmt.Errorf("bad quoted string")
		}
		v = u
	}
	switch t {
	case Int:
		_, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("want an integer")
		}
	case Float:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("want a finite number")
		}
	case Bool:
		if v != "true" && v != "false" {
			return "", fmt.Errorf("want true or false")
		}
	case Duration:
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d%time.Millisecond != 0 {
			return "", fmt.Errorf("want a non-negative Go duration in whole milliseconds, e.g. 1500ms or 1m")
		}
	case JSON:
		if !json.Valid([]byte(v)) {
			return "", fmt.Errorf("want valid JSON")
		}
	}
	return v, nil
}

func validType(t Type, valid []Type) bool {
	for _, v := range valid {
		if v == t {
			return true
		}
	}
	return false
}

// validReturn accepts a scalar reply type or a list of one.
func validReturn(t Type) bool {
	if e, list := t.Elem(); list {
		return e != Status && validType(e, ReturnTypes)
	}
	return validType(t, ReturnTypes)
}

func typeList(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

type token struct {
	text string
	col  int
}

// tokens splits s on blanks; col is the column of s[0]. A token starting with
// a double quote runs to the closing quote, so defaults may hold spaces.
func tokens(s string, col int) []token {
	var out []token
	i := 0
	for i < len(s) {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		start := i
		if s[i] == '"' {
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i < len(s) {
				i++
			}
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' {
				i++
			}
		}
		out = append(out, token{s[start:min(i, len(s))], col + start})
	}
	return out
}

// splitList splits a comma- or blank-separated list.
func splitList(s string, col int) []token {
	return tokens(strings.ReplaceAll(s, ",", " "), col)
}

// rest returns the text of value from token i on: a free-form description.
// value starts with toks[0].
func rest(value string, toks []token, i int) string {
	if i >= len(toks) {
		return ""
	}
	return strings.TrimSpace(value[toks[i].col-toks[0].col:])
}
