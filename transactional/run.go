package transactional

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// killReason says why a running script was stopped.
type killReason int32

const (
	killNone killReason = iota
	killScript
	killFunction
	killTimeLimit
	killClose
)

// run is the state of one script execution (an EVAL or an FCALL).
type run struct {
	caller   *server.Peer
	name     string // the sha for EVAL, the function name for FCALL
	function bool
	loading  bool // a FUNCTION LOAD body
	readOnly bool // EVAL_RO/FCALL_RO, or the no-writes flag
	flags    scriptFlags
	resp3    bool // redis.setresp(3)
	// journal, while set, records each key's state before the first write
	// (a transactional run); refused is what such a run refuses to run.
	journal *journal
	refused map[string]bool
	// hosted: an EVAL chunk compiled by hostScript, which takes the
	// journaling functions as its arguments.
	hosted bool
	wrote  atomic.Bool
	start  time.Time

	mu       sync.Mutex
	reason   killReason
	doneOnce sync.Once
	done     chan struct{} // closed by kill (gopher-lua polls it) or at the end
	// finished is closed when the script has ended, so commands that
	// arrive before the busy threshold can wait for either. It is made
	// when the first such command asks for it (finishedChan): most runs
	// meet none.
	finished chan struct{}
	ended    bool
}

func newRun(caller *server.Peer, name string) *run {
	return &run{caller: caller, name: name, start: time.Now(), done: make(chan struct{})}
}

// finishedChan returns a channel closed when the script has ended.
func (r *run) finishedChan() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished == nil {
		r.finished = make(chan struct{})
		if r.ended {
			close(r.finished)
		}
	}
	return r.finished
}

// kill stops the script at its next Lua instruction; the first reason wins.
func (r *run) kill(reason killReason) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reason != killNone {
		return
	}
	r.reason = reason
	r.doneOnce.Do(func() { close(r.done) })
}

// end marks the script ended and releases what waits on r.done: gopher-lua
// derives a context for every coroutine, and its propagation goroutine
// lives until the parent is done.
func (r *run) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	if r.finished != nil {
		close(r.finished)
	}
	r.doneOnce.Do(func() { close(r.done) })
}

func (r *run) killed() killReason {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

// runCtx is the context.Context gopher-lua polls between instructions. A
// hand-rolled one, because context.WithCancel per script run costs more than
// the whole 5-command script it guards.
type runCtx struct{ r *run }

var errKilled = errors.New("script killed")

func (c runCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c runCtx) Done() <-chan struct{}       { return c.r.done }
func (c runCtx) Value(any) any               { return nil }
func (c runCtx) Err() error {
	select {
	case <-c.r.done:
		return errKilled
	default:
		return nil
	}
}

var _ context.Context = runCtx{}
