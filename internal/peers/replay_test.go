package peers

import "testing"

// This file is the contract between the two halves of peers-txn: the proxy
// (proxy_test.go, txn_test.go), which runs the peers' suites with every
// script swapped for its transactional bundle and hands each script call it
// forwards to a recorder, and the replay (this file), which runs the
// recorded calls again from their recorded keyspace, plain and wrapped,
// with failures injected, and measures server time.
//
// STUB: the bodies below are placeholders until the replay lands.

// scriptCall is one script call the proxy forwards: the script's own text
// (as the client sent it with EVAL or SCRIPT LOAD, not the bundle), its
// keys and arguments, and the database the connection had selected.
type scriptCall struct {
	Src  string
	Keys []string
	Args []string
	DB   int
}

// recorder takes the script calls of one suite's run through the proxy.
// record is called before the proxy forwards the call, with the address of
// the server behind the proxy, from many connections at once; it may read
// that server on a connection of its own (a snapshot of the keyspace).
type recorder interface {
	record(addr string, c scriptCall)
}

// replayResult is what replaying one suite's recorded calls found.
type replayResult struct {
	Calls      int                // recorded calls replayed
	Injected   int                // runs failed by an injected error, all targets
	Diffs      []string           // keyspace differences, each described in a line
	Ratios     map[string]float64 // per script (SHA-1 of its text): server time wrapped/plain
	SuiteRatio float64            // the suite's summed server time, wrapped/plain
}

// newRecorder returns an empty recorder for one suite.
func newRecorder() recorder { return stubRecorder{} }

type stubRecorder struct{}

func (stubRecorder) record(string, scriptCall) {}

// replay runs what rec recorded on a fresh redis-server and on serve.
func replay(t *testing.T, rec recorder) replayResult {
	t.Helper()
	return replayResult{}
}
