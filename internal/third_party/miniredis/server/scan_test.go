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
	pieces := scanPieces
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

// whole reads what multibulk reads, or nothing: every prefix of the same
// random streams, the reader's buffer holding all of it or its first 16 KB.
func TestWholeAgreesWithMultibulk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for round := range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(scanPieces[rng.IntN(len(scanPieces))])
		}
		stream := b.String()
		unauth := round%3 == 0
		for n := 0; n <= len(stream); n += 1 + n/50 {
			prefix := []byte(stream[:n])
			reader := func() *reqReader {
				r := newReqReader(bufio.NewReaderSize(bytes.NewReader(prefix), readBufSize), Limits{})
				r.unauthenticated = func() bool { return unauth }
				r.rd.Peek(1)
				return r
			}
			r := reader()
			before := r.rd.Buffered()
			args, ok := r.whole()
			if !ok {
				if r.rd.Buffered() != before {
					t.Fatalf("%q: whole refused it, and read %d bytes", prefix, before-r.rd.Buffered())
				}
				continue
			}
			fast++
			slow := reader()
			want, err := slow.multibulk()
			if err != nil || strings.Join(args, "|") != strings.Join(want, "|") || len(args) != len(want) {
				t.Fatalf("%q: whole read %q, multibulk %q, %v", prefix, args, want, err)
			}
			if r.rd.Buffered() != slow.rd.Buffered() {
				t.Fatalf("%q: whole left %d bytes, multibulk %d", prefix, r.rd.Buffered(), slow.rd.Buffered())
			}
		}
	}
	if fast < 100 {
		t.Fatalf("whole read only %d requests", fast)
	}
}

func readOne(b []byte, unauth bool) ([]string, error) {
	r := newReqReader(bufio.NewReaderSize(bytes.NewReader(b), readBufSize), Limits{})
	r.unauthenticated = func() bool { return unauth }
	return r.read()
}

// scanPieces are requests, skippable lines, refused lengths and garbage.
var scanPieces = []string{
	"*1\r\n$4\r\nPING\r\n", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n",
	"PING\r\n", "ECHO  a  b\n", "\r\n", "\n", "   \r\n", "*0\r\n", "*-1\r\n", "*-5\r\n",
	"*2\r\n$4\r\nECHO\r\n$99999999999\r\n", "*1\r\n$-1\r\n", "*1\r\n+x\r\n", "*x\r\n", "*1\r\n$4\r\nPINGxx",
	"ECHO \"unbalanced\r\n", "ECHO a\x00b\r\n", "*12\r\n", "*1\r\n$20000\r\n" + strings.Repeat("y", 20000) + "\r\n",
	"*1\r\n$04\r\nPING\r\n", "*1\r\r$4\r\nPING\r\n",
}

// BenchmarkReadRequest reads serve's load request, EVALSHA of one key,
// from a buffer that holds it whole: in one pass (whole), and line by line
// (multibulk).
func BenchmarkReadRequest(b *testing.B) {
	req := "*4\r\n$7\r\nEVALSHA\r\n$40\r\n" + strings.Repeat("e", 40) + "\r\n$1\r\n1\r\n$4\r\nload\r\n"
	stream := strings.Repeat(req, 100)
	for _, way := range []string{"whole", "multibulk"} {
		b.Run(way, func(b *testing.B) {
			src := strings.NewReader(stream)
			r := newReqReader(bufio.NewReaderSize(src, readBufSize), Limits{})
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%100 == 0 {
					src.Reset(stream)
					r.rd.Reset(src)
					r.rd.Peek(1)
				}
				var err error
				if way == "whole" {
					if _, ok := r.whole(); !ok {
						err = errors.New("not whole")
					}
				} else {
					_, err = r.multibulk()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
