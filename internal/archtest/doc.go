// Package archtest holds no code, only tests of the repository's shape: the
// pipeline's import rules (data flows one way, from the parsed script to
// facts, findings, bundles and Go; the engine never reaches back into the
// stages that feed it), where flags and file writes may live, the size of
// hand-written files, and that user-facing text cites its sources by title.
//
// The rules are a table in layers_test.go, read as the architecture's
// summary: a package imports only the packages of this module that its
// row lists. A new package needs a row, so that its place in the pipeline is
// decided rather than drifted into.
package archtest
