package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// scriptgen: Lua 5.1's lexer and parser (llex.c, lparser.c), moved here
// from the engine's lua51 package so that the front end and the engine
// report a script's syntax errors in the same words.

// Lua51Error is a syntax error as Lua 5.1 reports it.
type Lua51Error struct {
	Line   int    // the line Lua 5.1 names: its lexer's line
	Col    int    // the column of the token it names, from 1
	Offset int    // the byte offset of that token
	Msg    string // Lua 5.1's message, without "chunk:line: "
}

func (e *Lua51Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// CheckLua51 runs Lua 5.1's lexer and parser (llex.c, lparser.c) over
// src, only to report syntax errors with the exact text Redis's Lua gives:
// gopher-lua's parser is a yacc grammar that knows only "syntax error", and
// it accepts some Lua 5.2 syntax (goto, labels) that Redis rejects. It
// returns nil when src is valid Lua 5.1.
func CheckLua51(src string) (err *Lua51Error) {
	p := &luaParser{lx: luaLexer{src: src, line: 1}}
	defer func() {
		if v := recover(); v != nil {
			se, ok := v.(*Lua51Error)
			if !ok {
				panic(v)
			}
			err = se
		}
	}()
	p.lx.ahead.tok = tkEOS
	p.fs = &luaFuncState{vararg: true}
	p.next()
	p.chunk()
	p.check(tkEOS)
	return nil
}

// Token codes: single characters are themselves, the rest follow llex.h.
const (
	tkAnd = 257 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkNumber
	tkName
	tkString
	tkEOS
)

var luaTokenNames = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil",
	"not", "or", "repeat", "return", "then", "true", "until", "while", "..", "...", "==", ">=", "<=", "~=",
	"<number>", "<name>", "<string>", "<eof>",
}

var luaReserved = func() map[string]int {
	m := map[string]int{}
	for i, name := range luaTokenNames[:tkWhile-tkAnd+1] {
		m[name] = tkAnd + i
	}
	return m
}()

type luaToken struct {
	tok   int
	text  string // what txtToken shows for names, strings and numbers
	start int    // its first byte in src
}

type luaLexer struct {
	src      string
	pos      int
	line     int
	lastline int
	start    int // the first byte of the token being read
	t, ahead luaToken
	buf      []byte
	levels   int
}

const luaEOZ = -1

func (lx *luaLexer) cur() int {
	if lx.pos >= len(lx.src) {
		return luaEOZ
	}
	return int(lx.src[lx.pos])
}

func (lx *luaLexer) advance()     { lx.pos++ }
func (lx *luaLexer) save(c int)   { lx.buf = append(lx.buf, byte(c)) }
func (lx *luaLexer) saveAndNext() { lx.save(lx.cur()); lx.advance() }
func (lx *luaLexer) isNewline() bool {
	c := lx.cur()
	return c == '\n' || c == '\r'
}

func tokenString(tok int) string {
	if tok < tkAnd {
		if tok < 32 || tok == 127 {
			return fmt.Sprintf("char(%d)", tok)
		}
		return string([]byte{byte(tok)})
	}
	return luaTokenNames[tok-tkAnd]
}

func (lx *luaLexer) txtToken(t luaToken) string {
	switch t.tok {
	case tkName, tkString, tkNumber:
		return string(lx.buf)
	}
	return tokenString(t.tok)
}

// lexError is luaX_lexerror; tok 0 means no "near" part. start is where
// the token it names begins.
func (lx *luaLexer) lexError(msg string, tok, start int) {
	if tok != 0 {
		msg = fmt.Sprintf("%s near '%s'", msg, lx.txtToken(luaToken{tok: tok}))
	}
	start = min(start, len(lx.src))
	panic(&Lua51Error{Line: lx.line, Col: start - strings.LastIndexAny(lx.src[:start], "\n\r"), Offset: start, Msg: msg})
}

func (lx *luaLexer) incLine() {
	old := lx.cur()
	lx.advance()
	if lx.isNewline() && lx.cur() != old {
		lx.advance()
	}
	lx.line++
}

func isLuaDigit(c int) bool { return c >= '0' && c <= '9' }
func isLuaAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isLuaSpace(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (lx *luaLexer) skipSep() int {
	count := 0
	s := lx.cur()
	lx.saveAndNext()
	for lx.cur() == '=' {
		lx.saveAndNext()
		count++
	}
	if lx.cur() == s {
		return count
	}
	return -count - 1
}

// readLongString reads [[...]] and [==[...]==]. Redis builds Lua without
// LUA_COMPAT_LSTR, so "[[" inside a long string is just text.
func (lx *luaLexer) readLongString(isString bool, sep int) {
	lx.saveAndNext()
	if lx.isNewline() {
		lx.incLine()
	}
	for {
		switch lx.cur() {
		case luaEOZ:
			if isString {
				lx.lexError("unfinished long string", tkEOS, lx.start)
			}
			lx.lexError("unfinished long comment", tkEOS, lx.start)
		case ']':
			if lx.skipSep() == sep {
				lx.saveAndNext()
				return
			}
		case '\n', '\r':
			lx.save('\n')
			lx.incLine()
			if !isString {
				lx.buf = lx.buf[:0]
			}
		default:
			if isString {
				lx.saveAndNext()
			} else {
				lx.advance()
			}
		}
	}
}

func (lx *luaLexer) readString(del int) {
	lx.saveAndNext()
	for lx.cur() != del {
		switch lx.cur() {
		case luaEOZ:
			lx.lexError("unfinished string", tkEOS, lx.start)
		case '\n', '\r':
			lx.lexError("unfinished string", tkString, lx.start)
		case '\\':
			lx.advance()
			var c int
			switch lx.cur() {
			case 'a':
				c = '\a'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			case '\n', '\r':
				lx.save('\n')
				lx.incLine()
				continue
			case luaEOZ:
				continue
			default:
				if !isLuaDigit(lx.cur()) {
					lx.saveAndNext()
					continue
				}
				c = 0
				for i := 0; i < 3 && isLuaDigit(lx.cur()); i++ {
					c = 10*c + lx.cur() - '0'
					lx.advance()
				}
				if c > 255 {
					lx.lexError("escape sequence too large", tkString, lx.start)
				}
				lx.save(c)
				continue
			}
			lx.save(c)
			lx.advance()
		default:
			lx.saveAndNext()
		}
	}
	lx.saveAndNext()
}

func (lx *luaLexer) checkNext(set string) bool {
	c := lx.cur()
	if c == luaEOZ || !strings.ContainsRune(set, rune(c)) {
		return false
	}
	lx.saveAndNext()
	return true
}

func (lx *luaLexer) readNumeral() {
	for {
		lx.saveAndNext()
		if !(isLuaDigit(lx.cur()) || lx.cur() == '.') {
			break
		}
	}
	if lx.checkNext("Ee") {
		lx.checkNext("+-")
	}
	for c := lx.cur(); isLuaAlpha(c) || isLuaDigit(c) || c == '_'; c = lx.cur() {
		lx.saveAndNext()
	}
	if !luaStr2d(string(lx.buf)) {
		lx.lexError("malformed number", tkNumber, lx.start)
	}
}

// luaStr2d is luaO_str2d: strtod, or strtoul base 16 after a 0x.
func luaStr2d(s string) bool {
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		if h == "" {
			return false
		}
		_, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			_, err = strconv.ParseFloat(s, 64)
		}
		return err == nil || strings.Contains(err.Error(), "range")
	}
	if strings.ContainsAny(s, "_xXpP") || strings.HasSuffix(strings.ToLower(s), "e") {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || strings.Contains(err.Error(), "range")
}

// llex returns the next token; its text is left in lx.buf.
func (lx *luaLexer) llex() int {
	lx.buf = lx.buf[:0]
	for {
		lx.start = lx.pos
		c := lx.cur()
		switch c {
		case '\n', '\r':
			lx.incLine()
			continue
		case '-':
			lx.advance()
			if lx.cur() != '-' {
				return '-'
			}
			lx.advance()
			if lx.cur() == '[' {
				sep := lx.skipSep()
				lx.buf = lx.buf[:0]
				if sep >= 0 {
					lx.readLongString(false, sep)
					lx.buf = lx.buf[:0]
					continue
				}
			}
			for !lx.isNewline() && lx.cur() != luaEOZ {
				lx.advance()
			}
			continue
		case '[':
			sep := lx.skipSep()
			if sep >= 0 {
				lx.readLongString(true, sep)
				return tkString
			}
			if sep == -1 {
				return '['
			}
			lx.lexError("invalid long string delimiter", tkString, lx.start)
		case '=':
			lx.advance()
			if lx.cur() != '=' {
				return '='
			}
			lx.advance()
			return tkEq
		case '<':
			lx.advance()
			if lx.cur() != '=' {
				return '<'
			}
			lx.advance()
			return tkLe
		case '>':
			lx.advance()
			if lx.cur() != '=' {
				return '>'
			}
			lx.advance()
			return tkGe
		case '~':
			lx.advance()
			if lx.cur() != '=' {
				return '~'
			}
			lx.advance()
			return tkNe
		case '"', '\'':
			lx.readString(c)
			return tkString
		case '.':
			lx.saveAndNext()
			if lx.checkNext(".") {
				if lx.checkNext(".") {
					return tkDots
				}
				return tkConcat
			}
			if !isLuaDigit(lx.cur()) {
				return '.'
			}
			lx.readNumeral()
			return tkNumber
		case luaEOZ:
			return tkEOS
		}
		switch {
		case isLuaSpace(c):
			lx.advance()
		case isLuaDigit(c):
			lx.readNumeral()
			return tkNumber
		case isLuaAlpha(c) || c == '_':
			for c := lx.cur(); isLuaAlpha(c) || isLuaDigit(c) || c == '_'; c = lx.cur() {
				lx.saveAndNext()
			}
			if tok, ok := luaReserved[string(lx.buf)]; ok {
				return tok
			}
			return tkName
		default:
			lx.advance()
			return c
		}
	}
}

type luaFuncState struct {
	prev   *luaFuncState
	vararg bool
	loops  int // enclosing breakable blocks
}

type luaParser struct {
	lx luaLexer
	fs *luaFuncState
}

// expression kinds, as far as the parser's checks need them.
const (
	expOther = iota
	expVar   // local, upvalue, global or indexed: assignable
	expCall
)

const luaMaxCalls = 200

func (p *luaParser) next() {
	p.lx.lastline = p.lx.line
	if p.lx.ahead.tok != tkEOS {
		p.lx.t = p.lx.ahead
		p.lx.ahead.tok = tkEOS
		return
	}
	p.lx.t = luaToken{tok: p.lx.llex(), start: p.lx.start}
}

func (p *luaParser) lookahead() {
	p.lx.ahead = luaToken{tok: p.lx.llex(), start: p.lx.start}
}

func (p *luaParser) tok() int { return p.lx.t.tok }

func (p *luaParser) syntaxError(msg string) { p.lx.lexError(msg, p.tok(), p.lx.t.start) }

func (p *luaParser) errorExpected(tok int) {
	p.syntaxError(fmt.Sprintf("'%s' expected", tokenString(tok)))
}

func (p *luaParser) testNext(tok int) bool {
	if p.tok() == tok {
		p.next()
		return true
	}
	return false
}

func (p *luaParser) check(tok int) {
	if p.tok() != tok {
		p.errorExpected(tok)
	}
}

func (p *luaParser) checkNext(tok int) {
	p.check(tok)
	p.next()
}

func (p *luaParser) checkMatch(what, who, where int) {
	if p.testNext(what) {
		return
	}
	if where == p.lx.line {
		p.errorExpected(what)
	}
	p.syntaxError(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", tokenString(what), tokenString(who), where))
}

func (p *luaParser) checkName() {
	p.check(tkName)
	p.next()
}

func (p *luaParser) enterLevel() {
	p.lx.levels++
	if p.lx.levels > luaMaxCalls {
		p.lx.lexError("chunk has too many syntax levels", 0, p.lx.t.start)
	}
}

func (p *luaParser) leaveLevel() { p.lx.levels-- }

func blockFollow(tok int) bool {
	switch tok {
	case tkElse, tkElseif, tkEnd, tkUntil, tkEOS:
		return true
	}
	return false
}

func (p *luaParser) chunk() {
	p.enterLevel()
	last := false
	for !last && !blockFollow(p.tok()) {
		last = p.statement()
		p.testNext(';')
	}
	p.leaveLevel()
}

func (p *luaParser) block() { p.chunk() }

func (p *luaParser) loopBlock() {
	p.fs.loops++
	p.block()
	p.fs.loops--
}

func (p *luaParser) statement() bool {
	line := p.lx.line
	switch p.tok() {
	case tkIf:
		p.testThenBlock()
		for p.tok() == tkElseif {
			p.testThenBlock()
		}
		if p.testNext(tkElse) {
			p.block()
		}
		p.checkMatch(tkEnd, tkIf, line)
	case tkWhile:
		p.next()
		p.expr()
		p.checkNext(tkDo)
		p.loopBlock()
		p.checkMatch(tkEnd, tkWhile, line)
	case tkDo:
		p.next()
		p.block()
		p.checkMatch(tkEnd, tkDo, line)
	case tkFor:
		p.next()
		p.checkName()
		switch p.tok() {
		case '=':
			p.next()
			p.expr()
			p.checkNext(',')
			p.expr()
			if p.testNext(',') {
				p.expr()
			}
		case ',', tkIn:
			for p.testNext(',') {
				p.checkName()
			}
			p.checkNext(tkIn)
			p.exprList()
		default:
			p.syntaxError("'=' or 'in' expected")
		}
		p.checkNext(tkDo)
		p.loopBlock()
		p.checkMatch(tkEnd, tkFor, line)
	case tkRepeat:
		p.next()
		p.fs.loops++
		p.chunk()
		p.checkMatch(tkUntil, tkRepeat, line)
		p.expr()
		p.fs.loops--
	case tkFunction:
		p.next()
		p.checkName()
		for p.tok() == '.' {
			p.next()
			p.checkName()
		}
		if p.tok() == ':' {
			p.next()
			p.checkName()
		}
		p.body(line)
	case tkLocal:
		p.next()
		if p.testNext(tkFunction) {
			p.checkName()
			p.body(line)
			return false
		}
		for {
			p.checkName()
			if !p.testNext(',') {
				break
			}
		}
		if p.testNext('=') {
			p.exprList()
		}
	case tkReturn:
		p.next()
		if !blockFollow(p.tok()) && p.tok() != ';' {
			p.exprList()
		}
		return true
	case tkBreak:
		p.next()
		if p.fs.loops == 0 {
			p.syntaxError("no loop to break")
		}
		return true
	default:
		kind := p.primaryExp()
		if kind != expCall {
			p.assignment(kind)
		}
	}
	return false
}

func (p *luaParser) testThenBlock() {
	p.next()
	p.expr()
	p.checkNext(tkThen)
	p.block()
}

func (p *luaParser) assignment(kind int) {
	if kind != expVar {
		p.syntaxError("syntax error")
	}
	if p.testNext(',') {
		p.assignment(p.primaryExp())
		return
	}
	p.checkNext('=')
	p.exprList()
}

func (p *luaParser) body(line int) {
	p.fs = &luaFuncState{prev: p.fs}
	p.checkNext('(')
	if p.tok() != ')' {
		for {
			switch p.tok() {
			case tkName:
				p.next()
			case tkDots:
				p.next()
				p.fs.vararg = true
			default:
				p.syntaxError("<name> or '...' expected")
			}
			if p.fs.vararg || !p.testNext(',') {
				break
			}
		}
	}
	p.checkNext(')')
	p.chunk()
	p.checkMatch(tkEnd, tkFunction, line)
	p.fs = p.fs.prev
}

func (p *luaParser) exprList() {
	p.expr()
	for p.testNext(',') {
		p.expr()
	}
}

func (p *luaParser) expr() { p.subExpr(0) }

var luaBinaryPriority = map[int][2]int{
	'+': {6, 6}, '-': {6, 6}, '*': {7, 7}, '/': {7, 7}, '%': {7, 7}, '^': {10, 9},
	tkConcat: {5, 4}, tkEq: {3, 3}, tkNe: {3, 3}, '<': {3, 3}, tkLe: {3, 3}, '>': {3, 3}, tkGe: {3, 3},
	tkAnd: {2, 2}, tkOr: {1, 1},
}

const luaUnaryPriority = 8

func (p *luaParser) subExpr(limit int) int {
	p.enterLevel()
	switch p.tok() {
	case tkNot, '-', '#':
		p.next()
		p.subExpr(luaUnaryPriority)
	default:
		p.simpleExp()
	}
	op := p.tok()
	for {
		prio, ok := luaBinaryPriority[op]
		if !ok || prio[0] <= limit {
			break
		}
		p.next()
		op = p.subExpr(prio[1])
	}
	p.leaveLevel()
	return op
}

func (p *luaParser) simpleExp() {
	switch p.tok() {
	case tkNumber, tkString, tkNil, tkTrue, tkFalse:
		p.next()
	case tkDots:
		if !p.fs.vararg {
			p.syntaxError("cannot use '...' outside a vararg function")
		}
		p.next()
	case '{':
		p.constructor()
	case tkFunction:
		line := p.lx.line
		p.next()
		p.body(line)
	default:
		p.primaryExp()
	}
}

func (p *luaParser) primaryExp() int {
	kind := expOther
	switch p.tok() {
	case tkName:
		p.next()
		kind = expVar
	case '(':
		line := p.lx.line
		p.next()
		p.expr()
		p.checkMatch(')', '(', line)
	default:
		p.syntaxError("unexpected symbol")
	}
	for {
		switch p.tok() {
		case '.':
			p.next()
			p.checkName()
			kind = expVar
		case '[':
			p.next()
			p.expr()
			p.checkNext(']')
			kind = expVar
		case ':':
			p.next()
			p.checkName()
			p.funcArgs()
			kind = expCall
		case '(', tkString, '{':
			p.funcArgs()
			kind = expCall
		default:
			return kind
		}
	}
}

func (p *luaParser) funcArgs() {
	line := p.lx.line
	switch p.tok() {
	case '(':
		if line != p.lx.lastline {
			p.syntaxError("ambiguous syntax (function call x new statement)")
		}
		p.next()
		if p.tok() != ')' {
			p.exprList()
		}
		p.checkMatch(')', '(', line)
	case '{':
		p.constructor()
	case tkString:
		p.next()
	default:
		p.syntaxError("function arguments expected")
	}
}

func (p *luaParser) constructor() {
	line := p.lx.line
	p.checkNext('{')
	for {
		if p.tok() == '}' {
			break
		}
		switch p.tok() {
		case tkName:
			p.lookahead()
			if p.lx.ahead.tok != '=' {
				p.expr()
			} else {
				p.next()
				p.checkNext('=')
				p.expr()
			}
		case '[':
			p.next()
			p.expr()
			p.checkNext(']')
			p.checkNext('=')
			p.expr()
		default:
			p.expr()
		}
		if !p.testNext(',') && !p.testNext(';') {
			break
		}
	}
	p.checkMatch('}', '{', line)
}
