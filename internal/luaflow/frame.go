package luaflow

import "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

// frame is one function body being read. The key walk reads every body
// where it stands, and again at each call with the caller's arguments;
// the proof follows a call of a local function. Both count the helpers
// followed into helpers in depth, up to maxDepth.
type frame struct {
	depth int

	// The key walk's. inline is set when a helper is read again with its
	// caller's arguments: its facts name the call (Fact.Via), and lint
	// reports only those that depend on the arguments (commands, keys).
	inline      bool
	via         Via // the call being followed
	varargs     []value
	hasVarargs  bool
	noWrites    bool
	registering bool              // the frame only passes a Functions callback its keys and args
	fn          *ast.FunctionExpr // the body read where it stands, its parameters unknown, that this frame is part of
	ret         value             // what the body returns, joined

	// The proof's: whether something in the body may fail (why: the
	// first such thing), whether it may have written, what it returns.
	raises bool
	why    string
	wrote  bool
	rets   typ
	nums   *num // what its numbers returned are, if any
}
