// Package runtime is the hand-written half of every package that scriptgen
// generates: runtime.go is copied verbatim (package clause renamed) into the
// generated package as scripts.go, next to the per-script files rendered with
// jennifer. Keeping it a real package means the compiler, go vet and the unit
// tests here see the code every consumer runs, instead of a string template
// that is only checked once it has been generated somewhere.
//
// stub.go declares what the generated library.go provides (the library name,
// version and source, and the table of scripts); it is not copied.
package runtime
