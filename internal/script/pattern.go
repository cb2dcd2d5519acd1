package script

import (
	"fmt"
	"strings"
)

// Pattern is the shape of a key's name, from `--! key: name = pattern`:
// literal text, one hash-tag placeholder {name} and any number of plain
// placeholders <name>.
type Pattern struct {
	Text  string // as written
	Parts []Part // in order; adjacent literals are one part
	Pos   Pos
}

// Part is a piece of a Pattern: literal text, or a placeholder when Name is
// set.
type Part struct {
	Lit  string
	Name string
	// Tag marks the {name} placeholder: its value is written inside braces,
	// so that it alone decides the key's cluster slot.
	Tag bool
}

// Tag is the name of the pattern's hash-tag placeholder.
func (p *Pattern) Tag() string {
	for _, part := range p.Parts {
		if part.Tag {
			return part.Name
		}
	}
	return ""
}

// Plain lists the names of the plain (<name>) placeholders, in order.
func (p *Pattern) Plain() []string {
	var out []string
	for _, part := range p.Parts {
		if part.Name != "" && !part.Tag {
			out = append(out, part.Name)
		}
	}
	return out
}

// Expand fills the placeholders from values by name. It is the reference
// the generated helpers are tested against.
func (p *Pattern) Expand(values map[string]string) string {
	var b strings.Builder
	for _, part := range p.Parts {
		switch {
		case part.Name == "":
			b.WriteString(part.Lit)
		case part.Tag:
			b.WriteString("{" + values[part.Name] + "}")
		default:
			b.WriteString(values[part.Name])
		}
	}
	return b.String()
}

// KeyParam is one parameter of the function that builds all of a script's
// keys from their patterns.
type KeyParam struct {
	Name string
	// Variadic marks the plain placeholder of a variadic key's pattern: one
	// value per element of the tail.
	Variadic bool
}

// KeyParams are the parameters that build every key of s from its pattern:
// each placeholder once, in order of first appearance, the variadic key's
// element last. It is nil when the keys have no patterns.
func (s *Script) KeyParams() []KeyParam {
	var out []KeyParam
	var elem *KeyParam
	seen := map[string]bool{}
	for _, k := range s.Keys {
		if k.Pattern == nil {
			return nil
		}
		for _, part := range k.Pattern.Parts {
			if part.Name == "" || seen[part.Name] {
				continue
			}
			seen[part.Name] = true
			if k.Variadic && !part.Tag {
				elem = &KeyParam{Name: part.Name, Variadic: true}
				continue
			}
			out = append(out, KeyParam{Name: part.Name})
		}
	}
	if elem != nil {
		// Go's variadic parameter comes last, wherever the pattern has it.
		out = append(out, *elem)
	}
	return out
}

// patternSyntax is the end of every message about a malformed pattern.
const patternSyntax = "a pattern is literal text with one hash tag {name} and any plain parts <name>, names in lower snake_case, e.g. rl:{user}:<resource>"

// pattern parses the token after `key: name =`; col is its column.
func (p *parser) pattern(n, col int, key string, variadic bool, text string) (*Pattern, bool) {
	pat := &Pattern{Text: text, Pos: Pos{n, col}}
	bad := func(at int, format string, args ...any) (*Pattern, bool) {
		p.errorf(n, col+at, "key %s: %s", key, fmt.Sprintf(format, args...))
		return nil, false
	}
	seen := map[string]bool{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			pat.Parts = append(pat.Parts, Part{Lit: lit.String()})
			lit.Reset()
		}
	}
	tagAt := -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '{', '<':
			closer := byte('}')
			if c == '<' {
				closer = '>'
			}
			j := strings.IndexByte(text[i+1:], closer)
			if j < 0 {
				return bad(i, "%q is not closed; %s", c, patternSyntax)
			}
			name := text[i+1 : i+1+j]
			if !identRE.MatchString(name) {
				return bad(i+1, "bad placeholder name %q; %s", name, patternSyntax)
			}
			if seen[name] {
				return bad(i+1, "placeholder %s used twice in one pattern", name)
			}
			seen[name] = true
			if c == '{' {
				if tagAt >= 0 {
					return bad(i, "second hash tag {%s}: Redis hashes only the first {…} of a key; write it as a plain part <%s>", name, name)
				}
				tagAt = i
			}
			flush()
			pat.Parts = append(pat.Parts, Part{Name: name, Tag: c == '{'})
			i += j + 1
		case '}', '>':
			return bad(i, "stray %q; %s", c, patternSyntax)
		case ' ', '\t', '"':
			// Only a quoted token can hold these; a key pattern is one word.
			return bad(i, "%q in a pattern; %s", c, patternSyntax)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	if tagAt < 0 {
		return bad(0, "pattern %s has no hash tag: write the part that decides the cluster slot as {name}, e.g. rl:{user}:%s", text, key)
	}
	if variadic && len(pat.Plain()) != 1 {
		return bad(0, "pattern %s of a variadic key needs exactly one plain part <name>, filled from each element, e.g. rl:{%s}:<id>", text, pat.Tag())
	}
	return pat, true
}

// checkPatterns applies the rules between keys, once all lines are read:
// patterns on every key or none, one shared hash tag, and the variadic
// element used by no other key.
func (p *parser) checkPatterns() {
	var first *Key
	for i := range p.s.Keys {
		if p.s.Keys[i].Pattern != nil {
			first = &p.s.Keys[i]
			break
		}
	}
	if first == nil {
		return
	}
	crossSlot := p.s.Has(AllowCrossSlotKeys)
	for i := range p.s.Keys {
		k := &p.s.Keys[i]
		if k.Pattern == nil {
			p.errorf(k.Pos.Line, k.Pos.Col, "key %s: no pattern, but key %s has one (line %d): give every key a pattern, or none", k.Name, first.Name, first.Pos.Line)
			continue
		}
		if tag := k.Pattern.Tag(); !crossSlot && tag != first.Pattern.Tag() {
			p.errorf(k.Pattern.Pos.Line, k.Pattern.Pos.Col, "key %s: hash tag {%s} differs from key %s's {%s}; a script's keys must share one slot: use {%s}, or flag the script allow-cross-slot-keys",
				k.Name, tag, first.Name, first.Pattern.Tag(), first.Pattern.Tag())
		}
	}
	if !p.s.VariadicKeys() {
		return
	}
	tail := p.s.Keys[len(p.s.Keys)-1]
	if tail.Pattern == nil {
		return
	}
	elem := tail.Pattern.Plain()[0]
	for _, k := range p.s.Keys[:len(p.s.Keys)-1] {
		if k.Pattern == nil {
			continue
		}
		for _, part := range k.Pattern.Parts {
			if part.Name == elem {
				p.errorf(tail.Pattern.Pos.Line, tail.Pattern.Pos.Col, "key %s: <%s> is filled from each element of the tail, so key %s cannot use it too", tail.Name, elem, k.Name)
				return
			}
		}
	}
}
