package miniredis

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: miniredis's lock is a sync.Mutex that a client waiting for it
// can stop waiting for. A script holds the lock for its whole run; a
// command that reached the lock just after the script took it waited,
// with a bare sync.Mutex, until the script ended, where Redis answers it
// BUSY once the script passes the busy threshold (and a script that never
// ends kept it waiting forever). Such a client waits in LockFor instead:
// for a wake-up from an Unlock, or a poll of whether it should give up.
//
// The lock was a one-slot channel before: a receive hands the slot to the
// sender that waits longest, so under load every command waited for the
// one before to be handed the lock and scheduled (a convoy: a goroutine
// wake-up and a switch per command, measured below). A sync.Mutex lets a
// running goroutine take a free lock; a woken waiter that finds it taken
// again waits for the next Unlock.
//
// Its zero value is an unlocked lock, as a sync.Mutex's is (upstream's
// tests build a Miniredis literal).
type lock struct {
	mu sync.Mutex
	// waiters counts the LockFor calls waiting; an Unlock that sees one
	// leaves a token in wake, which wakes one of them to try again.
	waiters atomic.Int32
	once    sync.Once
	made    chan struct{}
}

// wake is the token channel, made on first use.
func (l *lock) wake() chan struct{} {
	l.once.Do(func() { l.made = make(chan struct{}, 1) })
	return l.made
}

// Lock takes the lock, waiting as long as it takes.
func (l *lock) Lock() { l.mu.Lock() }

// Unlock releases the lock; unlocking an unlocked lock is a bug, as with
// sync.Mutex.
func (l *lock) Unlock() {
	l.mu.Unlock()
	// After the release: a waiter counted after this look tries the
	// lock after counting itself, and finds it free or held by someone
	// whose Unlock looks again.
	if l.waiters.Load() > 0 {
		select {
		case l.wake() <- struct{}{}:
		default: // a token waits already
		}
	}
}

// TryLock takes the lock if it is free, and reports whether it did.
func (l *lock) TryLock() bool { return l.mu.TryLock() }

// busyPoll is how often a client waiting for the lock asks whether it
// should stop waiting. Only a wait longer than a command's usual hold
// (microseconds) sees it.
const busyPoll = 10 * time.Millisecond

// pollTickers keep the tickers of LockFor's waits: under load many
// commands wait a moment, and a ticker made per wait was an allocation
// and a timer each.
var pollTickers = sync.Pool{New: func() any {
	t := time.NewTicker(busyPoll)
	t.Stop()
	return t
}}

// LockFor takes the lock for client c, or gives up when answered(), asked
// every busyPoll while the lock is held, reports that it replied to c (a
// BUSY error: the holder is a script past the busy threshold). It reports
// whether it took the lock. Without answered, it is Lock.
func (m *Miniredis) LockFor(c *server.Peer, answered func(*server.Peer) bool) bool {
	if m.TryLock() {
		return true
	}
	if answered == nil {
		m.Lock()
		return true
	}
	t := pollTickers.Get().(*time.Ticker)
	t.Reset(busyPoll)
	defer func() {
		t.Stop()
		pollTickers.Put(t)
	}()
	for {
		m.waiters.Add(1)
		if m.TryLock() {
			m.waiters.Add(-1)
			return true
		}
		select {
		case <-m.wake():
		case <-t.C:
			if answered(c) {
				m.waiters.Add(-1)
				return false
			}
		}
		m.waiters.Add(-1)
	}
}

// SetBusyCheck gives miniredis the function its client commands ask while
// they wait for the lock (see LockFor): the engine answers BUSY through
// it. It must be set before the server serves.
func (m *Miniredis) SetBusyCheck(answered func(*server.Peer) bool) { m.busyCheck = answered }

// SetTimeFor is SetTime and Tick under one hold of the lock, taken for
// client c as LockFor takes it; it reports whether it moved the clock.
func (m *Miniredis) SetTimeFor(c *server.Peer, t time.Time, answered func(*server.Peer) bool) bool {
	if !m.LockFor(c, answered) {
		return false
	}
	defer m.Unlock()
	m.setTimeLocked(t)
	m.tickLocked()
	return true
}
