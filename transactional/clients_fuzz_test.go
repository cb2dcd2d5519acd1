package transactional

import (
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// FuzzServe writes random streams (RESP, inline, binary) to serve over a
// real connection, then shuts its side. The oracle (checkClientReply) fails
// on a Go runtime text in a reply and on a server that stops answering; a
// panic the server recovered from fails too, and one it did not ends the
// fuzzing process. The engine's limits are small so that a claimed length
// costs little. Each exec is two connections, so minimizing a large new
// input runs at ~100 execs/s: bound it with -fuzzminimizetime (make test
// gives 5s), or Go's default of 60s per input stalls a short run.
func FuzzServe(f *testing.F) {
	for _, c := range append(protocolCases, tooLongCases...) {
		f.Add([]byte(c))
	}
	for _, c := range []string{
		"*3\r\n$4\r\nEVAL\r\n$8\r\nreturn 1\r\n$1\r\n0\r\n",
		"EVAL \"return redis.call('INCR', KEYS[1])\" 1 k\r\nSCRIPT LOAD 'return ARGV[1]'\r\n",
		"SET k v\r\nGET k\r\nLPUSH l a\r\nLSET l 5 x\r\nMULTI\r\nINCR k\r\nEXEC\r\n",
		"HELLO 3\r\nHSET h f v\r\nHGETALL h\r\nCLIENT SETNAME x\r\nSUBSCRIBE c\r\nPING\r\n",
		"*2\r\n$4\r\nECHO\r\n$5\r\n\x00\xff\r\n\x01\r\n",
		"\x00\x01\x02\xfe\xff*\r\n$\r\n",
		"EVAL 'while true do end' 0\r\nPING\r\n",
		"BLPOP nokey 0\r\n",
		"FUNCTION LOAD \"#!lua name=l\\nredis.register_function('f', function() return 1 end)\"\r\nFCALL f 0\r\n",
	} {
		f.Add([]byte(c))
	}
	e := New(WithRealTime(), WithTimeLimit(50*time.Millisecond),
		WithLimits(Limits{MaxBulkLen: 1 << 20, QueryBufferLimit: 4 << 20, MaxClients: 100}))
	f.Cleanup(e.Close)
	var panics atomic.Int64
	var last atomic.Value // the last panic's log line
	e.Miniredis().Server().SetLog(func(format string, args ...any) {
		if strings.HasPrefix(format, "panic") {
			panics.Add(1)
			last.Store(fmt.Sprintf(format, args...))
		}
	})
	a, err := e.Listen("127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	addr := a.String()
	f.Fuzz(func(t *testing.T, req []byte) {
		panics.Store(0)
		got := exchange(t, addr, req, true)
		checkClientReply(t, addr, req, []byte(got))
		if panics.Load() > 0 {
			t.Fatalf("request %q: the server recovered from a panic: %v", clip(req), last.Load())
		}
	})
}

// pong reports whether a new client gets PONG within a few seconds, and
// if not what it got.
func pong(addr string) (bool, string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return false, err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false, err.Error()
	}
	buf := make([]byte, 7)
	n := 0
	for n < len(buf) && err == nil {
		var m int
		m, err = c.Read(buf[n:])
		n += m
	}
	got := string(buf[:n])
	if err != nil {
		got += " (" + err.Error() + ")"
	}
	return got == "+PONG\r\n", got
}
