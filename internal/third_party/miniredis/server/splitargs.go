package server

// splitArgs splits an inline request into arguments as Redis's sdssplitargs
// does: runs of spaces separate them, "double quotes" take \n \r \t \b \a,
// \xHH and \<any>, 'single quotes' take \', and a closing quote must end
// the argument. ok is false for an unbalanced quote. The line has no NUL
// (the reader sees to it, as Redis's C strings do).
func splitArgs(line []byte) (args []string, ok bool) {
	p := 0
	at := func(i int) byte { // C's *(p+i), NUL at the end
		if p+i < len(line) {
			return line[p+i]
		}
		return 0
	}
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) {
			return args, true
		}
		var cur []byte
		inDQ, inSQ := false, false
		for done := false; !done; {
			c := at(0)
			switch {
			case inDQ:
				switch {
				case c == 0:
					return nil, false
				case c == '\\' && at(1) == 'x' && isHex(at(2)) && isHex(at(3)):
					cur = append(cur, unhex(at(2))<<4|unhex(at(3)))
					p += 3
				case c == '\\' && at(1) != 0:
					p++
					switch e := at(0); e {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, e)
					}
				case c == '"':
					if n := at(1); n != 0 && !isSpace(n) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			case inSQ:
				switch {
				case c == 0:
					return nil, false
				case c == '\\' && at(1) == '\'':
					p++
					cur = append(cur, '\'')
				case c == '\'':
					if n := at(1); n != 0 && !isSpace(n) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDQ = true
				case '\'':
					inSQ = true
				default:
					cur = append(cur, c)
				}
			}
			if p < len(line) {
				p++
			}
		}
		args = append(args, string(cur))
	}
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
