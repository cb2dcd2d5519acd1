package server

import "bytes"

// scanRequest looks at what a client sent and the reader has not read
// yet, as the reader would read it (scriptgen, for the event loop): skip
// is how many bytes at the start hold only requests the reader skips
// (empty lines, arrays of no arguments), and whole whether a request
// follows that the reader can read, or refuse, without another byte. A
// false whole may be wrong only at the cost of a read in a goroutine;
// a true one never is, or the reader would wait in the loop.
// maxBulk and unauth are the reader's limits: a request past them is
// refused as soon as its length is read.
func scanRequest(b []byte, maxBulk int64, unauth bool) (skip int, whole bool) {
	for skip < len(b) {
		rest := b[skip:]
		if rest[0] != '*' {
			nl := bytes.IndexByte(rest, '\n')
			if nl < 0 || bytes.IndexByte(rest[:nl], 0) >= 0 {
				return skip, false
			}
			line := rest[:nl]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if args, ok := splitArgs(line); !ok || len(args) > 0 {
				return skip, true
			}
			skip += nl + 1
			continue
		}
		n, used, ok := scanCount(rest)
		switch {
		case used == 0:
			return skip, false
		case !ok || n > MaxMultibulkLen || n > 10 && unauth:
			return skip, true
		case n <= 0:
			skip += used
			continue
		}
		at := used
		for ; n > 0; n-- {
			if at >= len(rest) {
				return skip, false
			}
			l, used, ok := scanCount(rest[at:])
			switch {
			case used == 0:
				return skip, false
			case rest[at] != '$' || !ok || l < 0 || l > maxBulk || l > 16384 && unauth:
				return skip, true
			case l > int64(len(rest)):
				return skip, false
			}
			at += used + int(l) + 2
			if at > len(rest) {
				return skip, false
			}
		}
		return skip, true
	}
	return skip, false
}

// scanCount reads a `*` or `$` line as countLine does: up to the '\r',
// and the byte after it. used is 0 when the line has not all come.
func scanCount(b []byte) (n int64, used int, ok bool) {
	cr := bytes.IndexByte(b, '\r')
	if cr < 0 || cr+1 >= len(b) {
		return 0, 0, false
	}
	if cr > 0 {
		n, ok = string2ll(b[1:cr])
	}
	return n, cr + 2, ok
}
