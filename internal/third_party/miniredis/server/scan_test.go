package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// scanRequest never says a request is whole that the reader would wait
// for more of, and skips only what the reader skips: every prefix of
// random streams of requests, skippable lines, refused lengths and
// garbage.
func TestScanAgreesWithReader(t *testing.T) {
	pieces := []string{
		"*1\r\n$4\r\nPING\r\n", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n",
		"PING\r\n", "ECHO  a  b\n", "\r\n", "\n", "   \r\n", "*0\r\n", "*-1\r\n", "*-5\r\n",
		"*2\r\n$4\r\nECHO\r\n$99999999999\r\n", "*1\r\n$-1\r\n", "*1\r\n+x\r\n", "*x\r\n", "*1\r\n$4\r\nPINGxx",
		"ECHO \"unbalanced\r\n", "ECHO a\x00b\r\n", "*12\r\n", "*1\r\n$20000\r\n" + strings.Repeat("y", 20000) + "\r\n",
		"*1\r\n$04\r\nPING\r\n", "*1\r\r$4\r\nPING\r\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		stream := b.String()
		unauth := round%3 == 0
		for n := 0; n <= len(stream); n += 1 + n/50 {
			prefix := []byte(stream[:n])
			skip, whole := scanRequest(prefix, DefaultMaxBulkLen, unauth)
			if skip > 0 {
				if args, err := readOne(prefix[:skip], unauth); err != io.EOF {
					t.Fatalf("%q: skipped %d bytes, which the reader reads as %q, %v", prefix, skip, args, err)
				}
			}
			if whole {
				args, err := readOne(prefix[skip:], unauth)
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("%q: whole after %d skipped, but the reader wants more (%q, %v)", prefix, skip, args, err)
				}
			}
		}
	}
}

func readOne(b []byte, unauth bool) ([]string, error) {
	r := newReqReader(bufio.NewReaderSize(bytes.NewReader(b), readBufSize), Limits{})
	r.unauthenticated = func() bool { return unauth }
	return r.read()
}
