package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
	"unsafe"
)

// scriptgen: the request reader, rewritten after Redis 7.0's
// processMultibulkBuffer and processInlineBuffer (networking.c). Upstream's
// read only RESP arrays and trusted the lengths a client claimed: `*0`
// reached Dispatch with no command, `$99999999999` was allocated before a
// byte of it came. Here every length is checked against Redis's limits
// before it is used, and what is kept grows with what actually arrives.

// Redis's defaults for the settings of Limits.
const (
	DefaultMaxBulkLen       = 512 << 20 // proto-max-bulk-len
	DefaultQueryBufferLimit = 1 << 30   // client-query-buffer-limit
	DefaultMaxClients       = 10000     // maxclients
	// MaxMultibulkLen is the most arguments one request may have. Redis 6
	// had this limit; 7.0 allows up to INT_MAX because it grows argv as
	// arguments arrive, which the reader does too, but a million is plenty
	// for any script call and keeps a lying client's cost small.
	MaxMultibulkLen = 1 << 20
	// maxInline is PROTO_INLINE_MAX_SIZE: the longest inline request, and
	// the longest `*` or `$` line.
	maxInline = 64 << 10
	// bulkChunk is how much of a large bulk is allocated before any of it
	// has arrived; the buffer doubles as data comes.
	bulkChunk = 64 << 10
	// smallBulk is the longest argument read into the shared arena of
	// arenaSize bytes. A command that keeps one (SET's value) keeps its
	// arena alive: small, so that this costs little.
	smallBulk = 64
	arenaSize = 512
)

// Limits bound what one client may send and how many may connect, as the
// Redis settings of the same names do. A zero field takes Redis's default.
type Limits struct {
	MaxBulkLen       int64 // proto-max-bulk-len: the longest argument
	QueryBufferLimit int64 // client-query-buffer-limit: the most one request may hold
	MaxClients       int   // maxclients
	// IdleTimeout closes a client that sent nothing for this long
	// (Redis's timeout); 0 never does. Clients waiting for a command to
	// finish and Pub/Sub subscribers are not idle, as in Redis.
	IdleTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxBulkLen <= 0 {
		l.MaxBulkLen = DefaultMaxBulkLen
	}
	if l.QueryBufferLimit <= 0 {
		l.QueryBufferLimit = DefaultQueryBufferLimit
	}
	if l.MaxClients <= 0 {
		l.MaxClients = DefaultMaxClients
	}
	return l
}

// A ProtocolError is a request Redis refuses with "ERR Protocol error: …"
// before closing the connection.
type ProtocolError string

func (e ProtocolError) Error() string { return "Protocol error: " + string(e) }

// errQueryBufferLimit closes the connection without a reply, as Redis does
// ("closing client that reached max query buffer length", in its log).
var errQueryBufferLimit = errors.New("client reached max query buffer length")

// reqReader reads client requests: RESP arrays of bulk strings, or inline
// commands.
type reqReader struct {
	rd  *bufio.Reader
	lim Limits
	n   int64  // bytes of the request being read
	buf []byte // a line longer than rd's buffer
	// arena holds small arguments; what is in it is never written again.
	arena []byte
	// unauthenticated, when set, says whether the client has yet to
	// AUTH: Redis 7.0.15 then takes no more than 10 arguments of 16 KiB.
	unauthenticated func() bool
}

func newReqReader(rd *bufio.Reader, lim Limits) *reqReader {
	return &reqReader{rd: rd, lim: lim.withDefaults()}
}

// read returns the next request's arguments, never none: empty inline
// lines and arrays of length 0 or less are skipped, as Redis skips them.
func (r *reqReader) read() ([]string, error) {
	for {
		b, err := r.rd.Peek(1)
		if err != nil {
			return nil, err
		}
		r.n = 0
		var args []string
		if b[0] == '*' {
			if args, ok := r.whole(); ok {
				return args, nil
			}
			args, err = r.multibulk()
		} else {
			args, err = r.inline()
		}
		if err != nil || len(args) > 0 {
			return args, err
		}
	}
}

// line reads up to delim, which it drops; a line longer than maxInline is
// ProtocolError(tooBig), as soon as that much has come without delim, as
// Redis checks after each read (whatever the size of rd's buffer). The
// result is valid until the next read.
func (r *reqReader) line(delim byte, tooBig string) ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		if _, err := r.rd.Peek(1); err != nil {
			return nil, err
		}
		b, _ := r.rd.Peek(r.rd.Buffered())
		if i := bytes.IndexByte(b, delim); i >= 0 {
			r.n += int64(i + 1)
			r.rd.Discard(i + 1)
			if len(r.buf) == 0 {
				return b[:i], nil
			}
			r.buf = append(r.buf, b[:i]...)
			return r.buf, nil
		}
		r.n += int64(len(b))
		r.buf = append(r.buf, b...)
		r.rd.Discard(len(b))
		if len(r.buf) > maxInline {
			return nil, ProtocolError(tooBig)
		}
	}
}

// countLine reads a `*` or `$` line's number. Redis looks for the '\r' and
// skips the byte after it, whatever it is.
func (r *reqReader) countLine(tooBig string) (int64, byte, error) {
	b, err := r.line('\r', tooBig)
	if err != nil {
		return 0, 0, err
	}
	kind, n, ok := byte('\r'), int64(0), false
	if len(b) > 0 {
		kind = b[0]
		n, ok = string2ll(b[1:])
	}
	if _, err := r.rd.Discard(1); err != nil {
		return 0, 0, err
	}
	r.n++
	if !ok {
		n = -1 << 63
	}
	return n, kind, nil
}

func (r *reqReader) multibulk() ([]string, error) {
	n, _, err := r.countLine("too big mbulk count string")
	if err != nil {
		return nil, err
	}
	if n == -1<<63 || n > MaxMultibulkLen {
		return nil, ProtocolError("invalid multibulk length")
	}
	if n > 10 && r.unauthenticated != nil && r.unauthenticated() {
		return nil, ProtocolError("unauthenticated multibulk length")
	}
	if n <= 0 {
		return nil, nil
	}
	args := make([]string, 0, min(n, 1024))
	for ; n > 0; n-- {
		if _, err := r.rd.Peek(1); err != nil {
			return nil, err
		}
		l, kind, err := r.countLine("too big bulk count string")
		if err != nil {
			return nil, err
		}
		if kind != '$' {
			return nil, ProtocolError(fmt.Sprintf("expected '$', got '%c'", kind))
		}
		if l < 0 || l > r.lim.MaxBulkLen {
			return nil, ProtocolError("invalid bulk length")
		}
		if l > 16384 && r.unauthenticated != nil && r.unauthenticated() {
			return nil, ProtocolError("unauthenticated bulk length")
		}
		s, err := r.bulk(l)
		if err != nil {
			return nil, err
		}
		args = append(args, s)
	}
	return args, nil
}

// whole reads a request that has come whole and is as nearly all are, an
// array of bulk strings within the limits, from the bytes rd holds, in one
// pass (scriptgen): multibulk's line by line reads cost serve more than a
// microsecond of an EVALSHA's. It returns false, having read nothing, for
// anything else, which multibulk then reads, or refuses, as Redis does.
func (r *reqReader) whole() ([]string, bool) {
	b, _ := r.rd.Peek(r.rd.Buffered())
	n, at, ok := plainCount(b, 0, '*')
	// Each argument takes 6 bytes at least ("$0\r\n\r\n").
	if !ok || n == 0 || n > int64(len(b)-at)/6 ||
		n > 10 && r.unauthenticated != nil && r.unauthenticated() {
		return nil, false
	}
	arena := r.arena
	args := make([]string, 0, n)
	for ; n > 0; n-- {
		l, next, ok := plainCount(b, at, '$')
		end := int64(next) + l + 2
		if !ok || l > r.lim.MaxBulkLen || end > int64(len(b)) || end > r.lim.QueryBufferLimit ||
			l > 16384 && r.unauthenticated != nil && r.unauthenticated() {
			r.arena = arena // what it copied is no one's
			return nil, false
		}
		args = append(args, r.copyArg(b[next:next+int(l)]))
		at = int(end)
	}
	r.rd.Discard(at)
	return args, true
}

// plainCount reads the `*` or `$` line (kind) at b[at:] if it is a count
// as nearly all are, up to 18 digits without a sign or a leading zero: n,
// and where the line ends (past the '\r' and the byte after it, which
// Redis skips whatever it is). False for any other line, or one that has
// not all come.
func plainCount(b []byte, at int, kind byte) (n int64, next int, ok bool) {
	if at >= len(b) || b[at] != kind {
		return 0, 0, false
	}
	i := at + 1
	for ; i < len(b) && b[i] != '\r'; i++ {
		c := b[i]
		if c < '0' || c > '9' || i-at > 18 {
			return 0, 0, false
		}
		n = n*10 + int64(c-'0')
	}
	digits := i - at - 1
	if i+1 >= len(b) || digits == 0 || digits > 1 && b[at+1] == '0' {
		return 0, 0, false
	}
	return n, i + 2, true
}

// copyArg copies an argument out of rd's buffer.
func (r *reqReader) copyArg(b []byte) string {
	if len(b) > smallBulk {
		return string(b)
	}
	buf := r.arenaBytes(len(b))
	copy(buf, b)
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// arenaBytes hands out l bytes of the arena for a small argument (l at
// most smallBulk). Small arguments share an arena, one allocation for
// most requests where each had its own. An arena is never written again
// once handed out, so the strings may point into it.
func (r *reqReader) arenaBytes(l int) []byte {
	if cap(r.arena)-len(r.arena) < l {
		r.arena = make([]byte, 0, arenaSize)
	}
	start := len(r.arena)
	r.arena = r.arena[:start+l]
	return r.arena[start:]
}

// bulk reads l bytes and the two after them, which Redis skips unread.
func (r *reqReader) bulk(l int64) (string, error) {
	if r.n += l + 2; r.n > r.lim.QueryBufferLimit {
		return "", errQueryBufferLimit
	}
	var s string
	switch {
	case l <= smallBulk:
		buf := r.arenaBytes(int(l))
		if _, err := io.ReadFull(r.rd, buf); err != nil {
			return "", err
		}
		s = unsafe.String(unsafe.SliceData(buf), len(buf))
	case l <= bulkChunk:
		buf := make([]byte, l)
		if _, err := io.ReadFull(r.rd, buf); err != nil {
			return "", err
		}
		s = unsafe.String(unsafe.SliceData(buf), len(buf))
	default:
		buf := make([]byte, 0, bulkChunk)
		for int64(len(buf)) < l {
			if len(buf) == cap(buf) {
				buf = append(make([]byte, 0, min(2*int64(cap(buf)), l)), buf...)
			}
			n, err := r.rd.Read(buf[len(buf):min(int64(cap(buf)), l)])
			buf = buf[:len(buf)+n]
			if err != nil {
				return "", err
			}
		}
		// buf is never used again: the string may share it.
		s = unsafe.String(unsafe.SliceData(buf), len(buf))
	}
	if _, err := r.rd.Discard(2); err != nil {
		return "", err
	}
	return s, nil
}

func (r *reqReader) inline() ([]string, error) {
	b, err := r.line('\n', "too big inline request")
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(b, 0) >= 0 {
		// Redis looks for the newline with strchr, which stops at the
		// NUL: it waits for more until the request is too big.
		for {
			if _, err := r.line('\n', "too big inline request"); err != nil {
				return nil, err
			}
			if r.n > maxInline {
				return nil, ProtocolError("too big inline request")
			}
		}
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	args, ok := splitArgs(b)
	if !ok {
		return nil, ProtocolError("unbalanced quotes in request")
	}
	return args, nil
}

// string2ll is Redis's: an optional '-', then digits without a leading
// zero (but "0" itself), no '+', no spaces, within int64.
func string2ll(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d := uint64(c - '0')
		if c < '0' || c > '9' || v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
