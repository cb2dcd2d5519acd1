// Package catalog renders the Markdown catalogue of a script directory, the
// page `scriptgen doc` writes and generated/ratelimit/README.md is: for every
// script its doc, keys with hash-tag advice, arguments, reply, flags, the Go
// signature of its generated wrapper, its FCALL and EVALSHA forms, and its
// memory per identifier where the source states it.
//
// The Go signatures are not re-derived from the header: the catalogue renders
// the package with gen.Go and quotes the declarations it produced, so the
// page and the wrappers cannot disagree on a name or a type; the libraries,
// function names and SHA-1s come from package gen/bundle, as the bundles'.
//
// Memory is not a header key; a script states it in the comment block after
// its header, in a sentence starting "Memory per identifier:", and the
// catalogue quotes that sentence.
//
// Output is deterministic and carries no path other than the Source the
// caller names, so that a test can keep the checked-in page fresh.
package catalog
