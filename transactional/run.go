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
	killMemory // the heap grew past the Lua memory limit
)

// run is the state of one script execution (an EVAL or an FCALL).
type run struct {
	caller *server.Peer
	name   string // the sha for EVAL, the function name for FCALL
	// argv is an FCALL's command line, for FUNCTION STATS: the name in
	// lower case (the server hands the engine upper case; clients mostly
	// send lower), the arguments as sent.
	argv     []string
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
	start  int64 // server.Monotonic

	// mu is the engine's mu (Engine.mu), which guards reason, afters,
	// finished and ended: other goroutines kill the run (the time limit,
	// SCRIPT KILL, Close) or wait for its end.
	mu     *sync.Mutex
	reason killReason
	// done is closed by kill; gopher-lua polls it. A run that is not
	// killed leaves it open for the next run (runs.next).
	done chan struct{}
	// afters are the functions a kill calls (runCtx.AfterFunc): the
	// cancellation of the contexts gopher-lua derives for coroutines.
	afters []func()
	// finished is closed when the script has ended, so commands that
	// arrive before the busy threshold can wait for either. It is made
	// when the first such command asks for it (finishedChan): most runs
	// meet none.
	finished chan struct{}
	ended    bool
}

// runs makes runs. The done channel of a run that was not killed is
// handed on to the next: nothing closes it, and a kill arriving after its
// run ended is ignored, so it cannot stop the next one.
type runs struct {
	done chan struct{}
	mu   *sync.Mutex // the engine's, for each run's kill state
}

func (rs *runs) next(caller *server.Peer, name string) *run {
	select {
	case <-rs.done:
		rs.done = nil // closed by a kill
	default:
	}
	if rs.done == nil {
		rs.done = make(chan struct{})
	}
	var start int64
	if caller != nil {
		start = caller.CommandStart() // the EVAL or FCALL's own start
	}
	if start == 0 {
		start = server.Monotonic()
	}
	return &run{caller: caller, name: name, start: start, done: rs.done, mu: rs.mu}
}

// since is how long r has run.
func (r *run) since() time.Duration { return time.Duration(server.Monotonic() - r.start) }

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

// kill stops the script at its next Lua instruction; the first reason
// wins, and a run that has ended is not stopped.
func (r *run) kill(reason killReason) {
	r.mu.Lock()
	if r.reason != killNone || r.ended {
		r.mu.Unlock()
		return
	}
	r.reason = reason
	close(r.done)
	afters := r.afters
	r.afters = nil
	r.mu.Unlock()
	for _, f := range afters {
		if f != nil {
			f()
		}
	}
}

// end marks the script ended.
func (r *run) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	r.afters = nil
	if r.finished != nil {
		close(r.finished)
	}
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

// AfterFunc makes the contexts gopher-lua derives for coroutines
// (context.WithCancel) register f with the run instead of starting a
// goroutine each that waits for done (Go's context looks for this method).
func (c runCtx) AfterFunc(f func()) (stop func() bool) {
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reason != killNone {
		go f()
		return func() bool { return false }
	}
	i := len(r.afters)
	r.afters = append(r.afters, f)
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if i >= len(r.afters) || r.afters[i] == nil {
			return false
		}
		r.afters[i] = nil
		return true
	}
}

func (c runCtx) Err() error {
	select {
	case <-c.r.done:
		return errKilled
	default:
		return nil
	}
}

var _ context.Context = runCtx{}

// testHookLocked, when a test sets it, runs when a script holds
// miniredis's lock but is not yet marked running: the instant in which a
// command that passed the hook finds the lock taken.
var testHookLocked atomic.Pointer[func()]
