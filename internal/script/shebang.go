package script

import "strings"

// Shebang is a source's `#!` first line, split into words as Redis splits
// it (blanks separate words, single or double quotes group them), so that
// the header, the linter and the engine read one line one way.
type Shebang struct {
	Line    string
	Engine  Word     // the first word: "#!lua" for Redis's Lua
	Options []Option // the words after it, in order
}

// Word is one word of a line and its 1-based column.
type Word struct {
	Text string
	Col  int
}

// Option is a shebang word, `key=value` or a bare word (Key "" then).
type Option struct {
	Word
	Key, Value string
}

// ParseShebang splits a `#!…` line. It does not judge the words: which
// engines and options are valid, and the errors, differ between a header
// (which lists the valid values) and the engine (which answers as Redis).
func ParseShebang(line string) *Shebang {
	sb := &Shebang{Line: line}
	words := splitArgs(line)
	if len(words) == 0 {
		return sb
	}
	sb.Engine = words[0]
	for _, w := range words[1:] {
		o := Option{Word: w}
		if k, v, ok := strings.Cut(w.Text, "="); ok {
			o.Key, o.Value = k, v
		}
		sb.Options = append(sb.Options, o)
	}
	return sb
}

// Name is the value of the last name= option, a Functions library's name;
// "" without one.
func (sb *Shebang) Name() string {
	name := ""
	for _, o := range sb.Options {
		if o.Key == "name" {
			name = o.Value
		}
	}
	return name
}

// Has reports whether the line carries a key= option.
func (sb *Shebang) Has(key string) bool {
	for _, o := range sb.Options {
		if o.Key == key {
			return true
		}
	}
	return false
}

// Items splits an option's value at commas, empty items kept (Redis refuses
// `flags=a,,b` for its empty flag), each with its column.
func (o Option) Items() []Word {
	col := o.Col + len(o.Key) + 1
	var out []Word
	for _, it := range strings.Split(o.Value, ",") {
		out = append(out, Word{it, col})
		col += len(it) + 1
	}
	return out
}

// splitArgs is a simplified sdssplitargs, as Redis splits a shebang:
// whitespace-separated words with double or single quotes grouping. A
// word's column is where its first byte (or opening quote) stands.
func splitArgs(s string) []Word {
	var out []Word
	var cur strings.Builder
	inWord, start := false, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '"' || ch == '\'':
			quote = ch
			if !inWord {
				inWord, start = true, i
			}
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n':
			if inWord {
				out = append(out, Word{cur.String(), start + 1})
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			if !inWord {
				inWord, start = true, i
			}
		}
	}
	if inWord {
		out = append(out, Word{cur.String(), start + 1})
	}
	return out
}
