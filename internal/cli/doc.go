// Package cli is scriptgen's command line: Run is the whole program, so that
// cmd/scriptgen's main is one line and tests (testscripts/) call the same
// entry point in-process.
//
// Exit codes: 0 clean, 1 findings or failing tests, 2 bad usage or
// unreadable input.
package cli
