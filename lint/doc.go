// Package lint checks annotated Redis Lua scripts statically, on gopher-lua's
// AST, against their `--!` header and Redis's script environment.
//
// Each rule has a stable name (see Rules) so that findings can be filtered
// and their severity tuned. gopher-lua's AST carries line numbers only;
// columns are recovered from the source line, pointing at the offending name.
package lint
