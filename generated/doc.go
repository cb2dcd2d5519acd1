// Package generated holds what scriptgen generates from the script library
// in ../lua, checked in so that users of the library need no generator:
//
//	bundle/      `scriptgen bundle -o generated/bundle lua`: EVAL files and Functions libraries
//	<dir>/       `scriptgen gen -pkg <dir> -o generated/<dir> lua/<dir>`: typed go-redis v9 wrappers
//
// TestFresh fails when any of it differs from a fresh render;
// `go test ./generated -update` rewrites it, which is how it is produced.
package generated
