// Package proto is miniredis's RESP client and reply builders: the copy's
// tests (and only they) use it to talk to a server and to spell the
// replies they expect. It is upstream's package as released (see
// ../README.md, "Upstream tests"), with import paths pointing here, and
// imports only the standard library; nothing outside the copy's tests
// may import it.
package proto
