package miniredis

import (
	"runtime"
	"sync"
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// TestLockForExcludes holds the lock to a mutex's promise while clients
// wait for it through LockFor, Lock and TryLock at once, as serve's
// clients, miniredis's own commands and the engine do: every increment
// of a plain counter made under it survives (a second holder at once
// would lose some, and the race detector would name the two).
func TestLockForExcludes(t *testing.T) {
	var m Miniredis
	const workers, rounds = 8, 500
	counter := 0
	never := func(*server.Peer) bool { return false }
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				switch w % 3 {
				case 0:
					if !m.LockFor(nil, never) {
						t.Error("LockFor gave up though answered never did")
						return
					}
				case 1:
					m.Lock()
				default:
					for !m.TryLock() {
						runtime.Gosched()
					}
				}
				counter++
				m.Unlock()
			}
		}()
	}
	wg.Wait()
	if counter != workers*rounds {
		t.Errorf("counter %d, want %d", counter, workers*rounds)
	}
}

// TestLockForGivesUp: a client waiting for a lock held elsewhere stops
// waiting when answered reports that it replied (BUSY), and does not
// take the lock.
func TestLockForGivesUp(t *testing.T) {
	var m Miniredis
	m.Lock()
	asked := 0
	if m.LockFor(nil, func(*server.Peer) bool { asked++; return asked == 2 }) {
		t.Fatal("LockFor took a held lock")
	}
	if asked != 2 {
		t.Errorf("answered asked %d times, want 2", asked)
	}
	m.Unlock()
	if !m.LockFor(nil, func(*server.Peer) bool { return true }) {
		t.Error("LockFor did not take a free lock")
	}
	m.Unlock()
}
