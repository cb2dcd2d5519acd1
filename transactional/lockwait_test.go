package transactional

import (
	"context"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

// TestBusyWhileWaitingForTheLock: a command that passed the hook while no
// script ran, then found miniredis's lock taken by a script that starts in
// that instant, gets BUSY once the script passes the busy threshold, as in
// Redis, and does not wait for the script's end (forever, for this one).
// Before LockFor, PING waited until SCRIPT KILL ended the script. The
// hook opens the instant on purpose: a client hit it by sending PING right
// after another's EVAL (Redis's scripting.tcl, "Timedout read-only scripts
// can be killed by SCRIPT KILL even when use pcall").
func TestBusyWhileWaitingForTheLock(t *testing.T) {
	for _, cmd := range [][]any{{"PING"}, {"GET", "k"}, {"EVAL", "return 1", "0"}} {
		t.Run(cmd[0].(string), func(t *testing.T) {
			e := newEngine(t, WithTimeLimit(0), WithBusyReplyThreshold(100*time.Millisecond))
			script, other, killer := clientOf(t, e), clientOf(t, e), clientOf(t, e)
			ctx := context.Background()
			holding, release := make(chan struct{}), make(chan struct{})
			hook := func() {
				testHookLocked.Store(nil)
				close(holding)
				<-release
			}
			testHookLocked.Store(&hook)
			t.Cleanup(func() { testHookLocked.Store(nil) })
			done := evalStops(script, "while true do end")
			<-holding
			reply := make(chan error, 1)
			go func() { reply <- other.Do(ctx, cmd...).Err() }()
			// Let the command pass the hook and wait for the lock.
			time.Sleep(50 * time.Millisecond)
			close(release)
			select {
			case err := <-reply:
				if err == nil || err.Error() != miniredis.MsgBusy {
					t.Errorf("%v during the script: %v, want BUSY", cmd, err)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("%v still waits for a script that never ends", cmd)
			}
			if err := killer.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
				t.Fatalf("SCRIPT KILL: %v", err)
			}
			if s := <-done; s.err == nil {
				t.Error("the script was not killed")
			}
			select {
			case <-reply: // before LockFor: the command's reply came only now
			default:
			}
		})
	}
}
