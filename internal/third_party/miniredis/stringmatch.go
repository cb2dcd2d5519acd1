// scriptgen: glob matching as Redis's stringmatchlen (util.c, 7.0.15)
// does it, for KEYS and the MATCH of SCAN, HSCAN, SSCAN and ZSCAN.
//
// Upstream compiled the glob to a regexp: linear, but a pattern of
// 100,000 characters against a 50,000-byte key took minutes, and it
// matched where Redis gives up: Redis stops at 1,000 nested '*' ("Protection
// against abusive patterns") and skips longer matches once the rest of the
// pattern has failed from every position, so that `KEYS` of "*?" 50,000
// times answers nothing, at once (Redis's suite, keyspace, "Regression for
// pattern matching very long nested loops"). Its other rules ('[' without
// ']' matches as if closed, '[]' nothing, a trailing '\' itself, ranges
// either way round) come with the port.

package miniredis

// stringMatch reports whether str matches the glob pattern, as Redis's
// stringmatchlen without nocase.
func stringMatch(pattern, str string) bool {
	skipLonger := false
	return stringMatchFrom(pattern, str, &skipLonger, 0)
}

func stringMatchFrom(pat, str string, skipLonger *bool, nesting int) bool {
	if nesting > 1000 {
		return false
	}
	// at reads the pattern as C reads a NUL-terminated one.
	at := func(i int) byte {
		if i < len(pat) {
			return pat[i]
		}
		return 0
	}
	p, s := 0, 0
	for p < len(pat) && s < len(str) {
		switch pat[p] {
		case '*':
			for at(p+1) == '*' {
				p++
			}
			if p == len(pat)-1 {
				return true
			}
			for ; s < len(str); s++ {
				if stringMatchFrom(pat[p+1:], str[s:], skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
			}
			*skipLonger = true
			return false
		case '?':
			s++
		case '[':
			p++
			not := at(p) == '^'
			if not {
				p++
			}
			match := false
			for {
				if at(p) == '\\' && len(pat)-p >= 2 {
					p++
					match = match || pat[p] == str[s]
				} else if at(p) == ']' {
					break
				} else if p >= len(pat) {
					p-- // an unclosed class ends with the pattern
					break
				} else if len(pat)-p >= 3 && pat[p+1] == '-' {
					lo, hi := min(pat[p], pat[p+2]), max(pat[p], pat[p+2])
					p += 2
					match = match || lo <= str[s] && str[s] <= hi
				} else {
					match = match || pat[p] == str[s]
				}
				p++
			}
			if match == not {
				return false
			}
			s++
		case '\\':
			if len(pat)-p >= 2 {
				p++
			}
			fallthrough
		default:
			if pat[p] != str[s] {
				return false
			}
			s++
		}
		p++
		if s == len(str) {
			for at(p) == '*' {
				p++
			}
			break
		}
	}
	return p == len(pat) && s == len(str)
}
