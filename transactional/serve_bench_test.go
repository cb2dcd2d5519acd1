package transactional

import (
	"bufio"
	"io"
	"testing"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// BenchmarkServeDispatch is a served EVALSHA of an INCR script (the
// request of BenchmarkServeLoad in internal/cli) from the command's
// arguments to its reply in the client's buffer, without the socket: the
// engine's own share of serve's CPU per request.
func BenchmarkServeDispatch(b *testing.B) {
	e := New(WithRealTime())
	defer e.Close()
	sha, err := e.Do("SCRIPT", "LOAD", "return redis.call('INCR', KEYS[1])")
	if err != nil {
		b.Fatal(err)
	}
	p := server.NewPeer(bufio.NewWriter(io.Discard))
	args := []string{"EVALSHA", sha.(string), "1", "load"}
	b.ReportAllocs()
	for b.Loop() {
		e.srv.Dispatch(p, args)
		p.Flush()
	}
}
