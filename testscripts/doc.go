// Package testscripts holds scriptgen's end-to-end CLI scenarios as txtar
// files, <subcommand>_<topic>.txtar, run with go-internal's testscript: the
// scriptgen command inside them is cli.Run, in the test binary.
//
// Scripts see $REPO (the repository root, to copy the library's scripts
// from) and $REDIS_URL (a real redis-server started for the run).
//
// `go test ./testscripts -update` rewrites the expected output in the
// txtar files from what the commands print now; review the diff.
package testscripts
