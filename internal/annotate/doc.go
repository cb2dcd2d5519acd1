// Package annotate writes down the contract of a script written before
// scriptgen: the `--!` header its body implies (package script's
// inference), with what only a reading of the commands can add: the
// no-writes flag when no call writes, and `returns:` when every way out of
// the script returns a literal of one type. A hand-written header is never
// changed, only completed with the kinds of line it lacks (keys, args,
// returns, flags, name); annotating an annotated file changes nothing.
//
// It returns new file contents; writing them, or a diff, is the command
// line's job (`scriptgen annotate`).
//
// Imports: the front end (internal/script), Redis's command table
// (internal/commands) and the parser's AST. It must not import lint, the
// bundler, gen or the engine: the header it writes is checked by lint like
// any other.
package annotate
