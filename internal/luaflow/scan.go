package luaflow

import "strings"

// Literals returns the contents of the string literals of Lua source src,
// skipping comments. Literals with escapes are returned raw: command names
// never need one, and a wrong guess only adds a harmless table entry.
func Literals(src string) []string {
	var out []string
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			i += 2
			if lvl, ok := longOpen(src[i:]); ok {
				i = longEnd(src, i+lvl+2, lvl)
				continue
			}
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j > len(src) {
				j = len(src)
			}
			out = append(out, src[i+1:j])
			i = j + 1
		case c == '[':
			if lvl, ok := longOpen(src[i:]); ok {
				start := i + lvl + 2
				end := longEnd(src, start, lvl)
				body := src[start:max(start, end-lvl-2)]
				out = append(out, body)
				i = end
				continue
			}
			i++
		default:
			i++
		}
	}
	return out
}

// longOpen recognizes "[[" or "[==[" at the start of s and returns the
// number of "=".
func longOpen(s string) (int, bool) {
	if len(s) < 2 || s[0] != '[' {
		return 0, false
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1, true
	}
	return 0, false
}

// longEnd returns the index just past the "]==]" closing a long bracket of
// level lvl whose contents start at i, or len(src) if it is unclosed.
func longEnd(src string, i, lvl int) int {
	closer := "]" + strings.Repeat("=", lvl) + "]"
	if j := strings.Index(src[i:], closer); j >= 0 {
		return i + j + len(closer)
	}
	return len(src)
}
