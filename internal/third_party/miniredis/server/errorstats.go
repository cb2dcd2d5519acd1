package server

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// scriptgen: INFO errorstats and total_error_replies. Redis counts every
// error reply a client gets by its code, the first word of the error
// (afterErrorReply in networking.c). The counts sit beside the reply
// writer, which runs outside miniredis's lock (BUSY, unknown commands),
// so they take no lock: an atomic total and a sync.Map whose look-up of
// a code already seen is lock-free.

// ErrorStats counts error replies, in all and by code.
type ErrorStats struct {
	total atomic.Int64
	codes sync.Map // code → *atomic.Int64
}

// ErrorCount is one errorstat_<Code>:count=<N> line.
type ErrorCount struct {
	Code string
	N    int64
}

// errorCode is afterErrorReply's code of the error e (without its '-'):
// the text before a space among its first 31 bytes (Redis looks for one
// in the first 32 of "-"+e), else ERR.
func errorCode(e string) string {
	if i := strings.IndexByte(e[:min(len(e), 31)], ' '); i >= 0 {
		return e[:i]
	}
	return "ERR"
}

// Count counts one error reply e, as written without its '-'.
func (s *ErrorStats) Count(e string) {
	if s == nil {
		return
	}
	s.total.Add(1)
	code := errorCode(e)
	n, ok := s.codes.Load(code)
	if !ok {
		n, _ = s.codes.LoadOrStore(strings.Clone(code), new(atomic.Int64))
	}
	n.(*atomic.Int64).Add(1)
}

// Total is total_error_replies.
func (s *ErrorStats) Total() int64 { return s.total.Load() }

// ByCode is the counts by code, in byte order of the code, as Redis's rax
// lists them.
func (s *ErrorStats) ByCode() []ErrorCount {
	var out []ErrorCount
	s.codes.Range(func(k, v any) bool {
		out = append(out, ErrorCount{k.(string), v.(*atomic.Int64).Load()})
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Reset forgets all counts (CONFIG RESETSTAT).
func (s *ErrorStats) Reset() {
	s.total.Store(0)
	s.codes.Clear()
}

// ErrorStats is the counts of the error replies the server's clients got.
func (s *Server) ErrorStats() *ErrorStats { return &s.errs }

// CountErrorsIn makes the peer count the errors it writes in st; a peer
// of a connection counts in its server's.
func (c *Peer) CountErrorsIn(st *ErrorStats) { c.errs = st }

// CountError counts an error reply e the caller wrote raw (WriteRaw), as
// WriteError counts the ones it writes.
func (c *Peer) CountError(e string) {
	if c != nil {
		c.nerr++
		c.errs.Count(e)
	}
}
