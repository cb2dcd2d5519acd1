package lua

// scriptgen: Lua 5.1.5's lstrlib.c, the functions that index strings and
// match patterns (byte, char, sub, find, match, gmatch, gsub), ported line
// for line. Upstream's versions differed from Lua 5.1 where scripts meet
// them: string.match returned nothing for no match (Lua: nil), gsub ignored
// a count below 1 and kept a match whose replacement function returned
// false as counted, string.byte returned every byte by default, a plain
// find from past the end panicked, malformed patterns went unreported,
// "%9" in a replacement failed before any match, and a "\0" did not end a
// pattern as it does for C.
//
// Strings are Go strings of bytes; the C code's NUL terminators are
// emulated: at(s, i) is 0 at and past the end, as *p and *s are there.

import (
	"strings"
)

const (
	luaMaxCaptures = 32
	capUnfinished  = -1
	capPosition    = -2
	lEsc           = '%'
	specials       = "^$*+?.([%-"
)

// at is s[i], or 0 past the end (a C string's terminator).
func at(s string, i int) byte {
	if i >= 0 && i < len(s) {
		return s[i]
	}
	return 0
}

// posrelat is a relative string position: negative means back from end.
func posrelat(pos int64, n int) int64 {
	if pos < 0 {
		pos += int64(n) + 1
	}
	if pos >= 0 {
		return pos
	}
	return 0
}

func strSub(L *LState) int {
	s := L.CheckString(1)
	l := len(s)
	start := posrelat(L.CheckInt64(2), l)
	end := posrelat(L.OptInt64(3, -1), l)
	if start < 1 {
		start = 1
	}
	if end > int64(l) {
		end = int64(l)
	}
	if start <= end {
		L.Push(LString(s[start-1 : end]))
	} else {
		L.Push(emptyLString)
	}
	return 1
}

func strByte(L *LState) int {
	s := L.CheckString(1)
	l := len(s)
	posi := posrelat(L.OptInt64(2, 1), l)
	pose := posrelat(L.OptInt64(3, posi), l)
	if posi <= 0 {
		posi = 1
	}
	if pose > int64(l) {
		pose = int64(l)
	}
	if posi > pose {
		return 0 // empty interval; return no values
	}
	n := int(pose - posi + 1)
	for i := 0; i < n; i++ {
		L.PushNumber(LNumber(s[int(posi)+i-1]))
	}
	return n
}

func strChar(L *LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := L.CheckCInt(i)
		if c < 0 || c > 255 {
			L.ArgError(i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(LString(b))
	return 1
}

type matchState struct {
	src     string // the subject; its end is len(src)
	L       *LState
	level   int // total number of captures (finished or unfinished)
	capture [luaMaxCaptures]struct{ init, len int }
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.L.RaiseError("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	level := ms.level
	for level--; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.L.RaiseError("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p string, i int) int {
	c := at(p, i)
	i++
	switch c {
	case lEsc:
		if at(p, i) == 0 {
			ms.L.RaiseError("%s", "malformed pattern (ends with '%')")
		}
		return i + 1
	case '[':
		if at(p, i) == '^' {
			i++
		}
		for { // look for a ']'
			if at(p, i) == 0 {
				ms.L.RaiseError("malformed pattern (missing ']')")
			}
			c := at(p, i)
			i++
			if c == lEsc && at(p, i) != 0 {
				i++ // skip escapes (e.g. '%]')
			}
			if at(p, i) == ']' {
				break
			}
		}
		return i + 1
	}
	return i
}

// C's ctype in the "C" locale, which Redis runs Lua in.
func isalpha(c byte) bool  { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isdigit(c byte) bool  { return c >= '0' && c <= '9' }
func islower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isupper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isspace(c byte) bool  { return c == ' ' || c >= '\t' && c <= '\r' }
func iscntrl(c byte) bool  { return c < 32 || c == 127 }
func isalnum(c byte) bool  { return isalpha(c) || isdigit(c) }
func ispunct(c byte) bool  { return c > 32 && c < 127 && !isalnum(c) }
func isxdigit(c byte) bool { return isdigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func tolower(c byte) byte {
	if isupper(c) {
		return c + 'a' - 'A'
	}
	return c
}

func matchClass(c, cl byte) bool {
	var res bool
	switch tolower(cl) {
	case 'a':
		res = isalpha(c)
	case 'c':
		res = iscntrl(c)
	case 'd':
		res = isdigit(c)
	case 'l':
		res = islower(c)
	case 'p':
		res = ispunct(c)
	case 's':
		res = isspace(c)
	case 'u':
		res = isupper(c)
	case 'w':
		res = isalnum(c)
	case 'x':
		res = isxdigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if islower(cl) {
		return res
	}
	return !res
}

// matchBracketClass: p[i] is the '[' of a class whose ']' is at ec.
func matchBracketClass(c byte, p string, i, ec int) bool {
	sig := true
	if at(p, i+1) == '^' {
		sig = false
		i++ // skip the '^'
	}
	for i++; i < ec; i++ {
		if at(p, i) == lEsc {
			i++
			if matchClass(c, at(p, i)) {
				return sig
			}
		} else if at(p, i+1) == '-' && i+2 < ec {
			i += 2
			if at(p, i-2) <= c && c <= at(p, i) {
				return sig
			}
		} else if at(p, i) == c {
			return sig
		}
	}
	return !sig
}

func singleMatch(c byte, p string, i, ep int) bool {
	switch at(p, i) {
	case '.':
		return true // matches any char
	case lEsc:
		return matchClass(c, at(p, i+1))
	case '[':
		return matchBracketClass(c, p, i, ep-1)
	}
	return at(p, i) == c
}

func (ms *matchState) matchBalance(s int, p string, i int) int {
	if at(p, i) == 0 || at(p, i+1) == 0 {
		ms.L.RaiseError("unbalanced pattern")
	}
	if at(ms.src, s) != at(p, i) {
		return -1
	}
	b, e := at(p, i), at(p, i+1)
	cont := 1
	for s++; s < len(ms.src); s++ {
		if ms.src[s] == e {
			if cont--; cont == 0 {
				return s + 1
			}
		} else if ms.src[s] == b {
			cont++
		}
	}
	return -1 // string ends out of balance
}

func (ms *matchState) maxExpand(s int, p string, i, ep int) int {
	n := 0 // counts maximum expand for item
	for s+n < len(ms.src) && singleMatch(ms.src[s+n], p, i, ep) {
		n++
	}
	// keeps trying to match with the maximum repetitions
	for ; n >= 0; n-- {
		if res := ms.match(s+n, p, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s int, p string, i, ep int) int {
	for {
		if res := ms.match(s, p, ep+1); res >= 0 {
			return res
		} else if s < len(ms.src) && singleMatch(ms.src[s], p, i, ep) {
			s++ // try with one more repetition
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s int, p string, i, what int) int {
	level := ms.level
	if level >= luaMaxCaptures {
		ms.L.RaiseError("too many captures")
	}
	ms.capture[level].init = s
	ms.capture[level].len = what
	ms.level = level + 1
	res := ms.match(s, p, i)
	if res < 0 {
		ms.level-- // undo capture
	}
	return res
}

func (ms *matchState) endCapture(s int, p string, i int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init // close capture
	res := ms.match(s, p, i)
	if res < 0 {
		ms.capture[l].len = capUnfinished // undo capture
	}
	return res
}

func (ms *matchState) matchCapture(s, l int) int {
	l = ms.checkCapture(l)
	n := ms.capture[l].len
	if len(ms.src)-s >= n && ms.src[ms.capture[l].init:ms.capture[l].init+n] == ms.src[s:s+n] {
		return s + n
	}
	return -1
}

// match is Lua's match: the end of the match of p from i against the
// subject from s, or -1.
func (ms *matchState) match(s int, p string, i int) int {
	// Backtracking can take exponential time: a kill must reach it
	// (scriptgen).
	ms.L.Step()
	for {
		switch at(p, i) {
		case '(': // start capture
			if at(p, i+1) == ')' { // position capture?
				return ms.startCapture(s, p, i+2, capPosition)
			}
			return ms.startCapture(s, p, i+1, capUnfinished)
		case ')': // end capture
			return ms.endCapture(s, p, i+1)
		case 0: // end of pattern
			return s // match succeeded
		case lEsc:
			switch at(p, i+1) {
			case 'b': // balanced string?
				if s = ms.matchBalance(s, p, i+2); s < 0 {
					return -1
				}
				i += 4
				continue
			case 'f': // frontier?
				i += 2
				if at(p, i) != '[' {
					ms.L.RaiseError("%s", "missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p, i) // points to what is next
				var previous byte
				if s > 0 {
					previous = ms.src[s-1]
				}
				if matchBracketClass(previous, p, i, ep-1) || !matchBracketClass(at(ms.src, s), p, i, ep-1) {
					return -1
				}
				i = ep
				continue
			}
			if isdigit(at(p, i+1)) { // capture results (%0-%9)?
				if s = ms.matchCapture(s, int(at(p, i+1))); s < 0 {
					return -1
				}
				i += 2
				continue
			}
		case '$':
			if at(p, i+1) == 0 { // is the '$' the last char in pattern?
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		}
		// default: a pattern item
		ep := ms.classEnd(p, i) // points to what is next
		m := s < len(ms.src) && singleMatch(ms.src[s], p, i, ep)
		switch at(p, ep) {
		case '?': // optional
			if m {
				if res := ms.match(s+1, p, ep+1); res >= 0 {
					return res
				}
			}
			i = ep + 1
		case '*': // 0 or more repetitions
			return ms.maxExpand(s, p, i, ep)
		case '+': // 1 or more repetitions
			if m {
				return ms.maxExpand(s+1, p, i, ep)
			}
			return -1
		case '-': // 0 or more repetitions (minimum)
			return ms.minExpand(s, p, i, ep)
		default:
			if !m {
				return -1
			}
			s++
			i = ep
		}
	}
}

// oneCapture is capture i of a match from s to e.
func (ms *matchState) oneCapture(i, s, e int) LValue {
	if i >= ms.level {
		if i == 0 { // ms.level == 0, too
			return LString(ms.src[s:e]) // whole match
		}
		ms.L.RaiseError("invalid capture index")
	}
	l := ms.capture[i].len
	if l == capUnfinished {
		ms.L.RaiseError("unfinished capture")
	}
	if l == capPosition {
		return LNumber(ms.capture[i].init + 1)
	}
	return LString(ms.src[ms.capture[i].init : ms.capture[i].init+l])
}

// pushCaptures pushes the captures of a match from s to e (whole: the
// match itself when there are none) and says how many.
func (ms *matchState) pushCaptures(whole bool, s, e int) int {
	n := ms.level
	if n == 0 && whole {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.oneCapture(i, s, e))
	}
	return n
}

func strFindAux(L *LState, find bool) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	l1 := len(s)
	init := posrelat(L.OptInt64(3, 1), l1) - 1
	if init < 0 {
		init = 0
	} else if init > int64(l1) {
		init = int64(l1)
	}
	// strpbrk stops at a "\0", and so does the matcher.
	cp := p
	if z := strings.IndexByte(cp, 0); z >= 0 {
		cp = cp[:z]
	}
	if find && (LVAsBool(L.Get(4)) || !strings.ContainsAny(cp, specials)) {
		// do a plain search
		if j := strings.Index(s[init:], p); j >= 0 {
			L.PushNumber(LNumber(int(init) + j + 1))
			L.PushNumber(LNumber(int(init) + j + len(p)))
			return 2
		}
	} else {
		ms := &matchState{src: s, L: L}
		i := 0
		anchor := at(p, 0) == '^'
		if anchor {
			i = 1
		}
		for s1 := int(init); ; s1++ {
			ms.level = 0
			if res := ms.match(s1, p, i); res >= 0 {
				if find {
					L.PushNumber(LNumber(s1 + 1)) // start
					L.PushNumber(LNumber(res))    // end
					return ms.pushCaptures(false, 0, 0) + 2
				}
				return ms.pushCaptures(true, s1, res)
			}
			if s1 >= l1 || anchor {
				break
			}
		}
	}
	L.Push(LNil) // not found
	return 1
}

func strFind(L *LState) int  { return strFindAux(L, true) }
func strMatch(L *LState) int { return strFindAux(L, false) }

// gmatchState is what Lua's gmatch_aux keeps in its upvalues.
type gmatchState struct {
	src, pat string
	pos      int
}

func strGmatchIter(L *LState) int {
	st := L.Get(UpvalueIndex(1)).(*LUserData).Value.(*gmatchState)
	ms := &matchState{src: st.src, L: L}
	for src := st.pos; src <= len(st.src); src++ {
		ms.level = 0
		if e := ms.match(src, st.pat, 0); e >= 0 {
			st.pos = e
			if e == src { // empty match? go at least one position
				st.pos++
			}
			return ms.pushCaptures(true, src, e)
		}
	}
	st.pos = len(st.src) + 1
	return 0 // not found
}

func strGmatch(L *LState) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	ud := L.NewUserData()
	ud.Value = &gmatchState{src: s, pat: p}
	L.Push(L.NewClosure(strGmatchIter, ud))
	return 1
}

// addValue adds the replacement of a match from s to e to b.
func (ms *matchState) addValue(b *strings.Builder, s, e int, repl LValue) {
	L := ms.L
	var v LValue
	switch r := repl.(type) {
	case LString, LNumber:
		news := LVAsString(r)
		for i := 0; i < len(news); i++ {
			if news[i] != lEsc {
				b.WriteByte(news[i])
				continue
			}
			i++ // skip ESC
			c := at(news, i)
			switch {
			case !isdigit(c):
				b.WriteByte(c)
			case c == '0':
				b.WriteString(ms.src[s:e])
			default:
				cap := ms.oneCapture(int(c-'1'), s, e)
				b.WriteString(LVAsString(cap))
			}
		}
		return
	case *LFunction:
		L.Push(r)
		n := ms.pushCaptures(true, s, e)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	case *LTable:
		v = L.GetTable(r, ms.oneCapture(0, s, e))
	}
	if !LVAsBool(v) { // nil or false?
		b.WriteString(ms.src[s:e]) // keep original text
		return
	}
	switch v.(type) {
	case LString, LNumber:
		b.WriteString(LVAsString(v))
	default:
		L.RaiseError("invalid replacement value (a %s)", v.Type().String())
	}
}

func strGsub(L *LState) int {
	src := L.CheckString(1)
	p := L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case LTNumber, LTString, LTFunction, LTTable:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxS := L.OptCInt(4, len(src)+1)
	i := 0
	anchor := at(p, 0) == '^'
	if anchor {
		i = 1
	}
	n := 0
	ms := &matchState{src: src, L: L}
	var b strings.Builder
	s := 0
	for n < maxS {
		L.Step() // scriptgen: a kill reaches a long substitution
		ms.level = 0
		e := ms.match(s, p, i)
		if e >= 0 {
			n++
			ms.addValue(&b, s, e, repl)
		}
		if e >= 0 && e > s { // non empty match?
			s = e // skip it
		} else if s < len(src) {
			b.WriteByte(src[s])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	b.WriteString(src[s:])
	L.Push(LString(b.String()))
	L.PushNumber(LNumber(n))
	return 2
}
