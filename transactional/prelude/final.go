package prelude

import (
	"fmt"
	"slices"
	"strings"

	"github.com/scriptgen/scriptgen/internal/luaflow"
	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"
)

// rawName is the third local the runtime's declaration makes: Redis's own
// redis (for a library, one that forwards to it), which the writes that
// are the last thing of their run that can fail call directly.
const rawName = "__scriptgen_raw"

// trimName is the field of rawName whose call is an XTRIM's at a site whose
// reply the code drops: the runtime may defer it (proxied_trim in
// prelude.lua), a host runs it as any call.
const trimName = "__scriptgen_trim"

// direct returns code with its final writes (see luaflow.Flow) sent past the
// journal: `redis` of `redis.call(` at those sites becomes rawName. Such a
// write needs no undo, as nothing can fail after it; the journal then
// costs nothing for it. An XTRIM MAXLEN ~ of a site whose reply the code
// drops (luaflow.Flow.Dropped) that is not final calls rawName's trimName
// instead, which may defer it to the end of the run. Lines keep their
// numbers. Code that already names the runtime's locals is returned as is.
func direct(code string, an luaflow.Flow) string {
	if len(an.Final) == 0 && !slices.ContainsFunc(an.Sites, func(s *ast.FuncCallExpr) bool { return deferrable(s, an) }) {
		return code
	}
	out, ok := editSites(code, an, func(site *ast.FuncCallExpr, o luaflow.Offset) (string, int, bool) {
		to := rawName
		switch {
		case an.Final[site]:
		case deferrable(site, an):
			to = rawName + "." + trimName
		default:
			return "", 0, false
		}
		if o.Alias != "" {
			// rcall( of `local rcall = redis.call`: the function it
			// stands for, which the proof put in the site's place.
			fn := site.Func.(*ast.AttrGetExpr).Key.(*ast.StringExpr).Value
			return to + "." + fn, o.At + len(o.Alias), true
		}
		return to, o.At + len("redis"), true
	})
	if !ok {
		return code
	}
	return out
}

// deferrable reports whether site is an XTRIM key MAXLEN ~ n by call, not
// final, whose reply the code drops: all the runtime may defer.
func deferrable(site *ast.FuncCallExpr, an luaflow.Flow) bool {
	if an.Final[site] || !an.Dropped[site] || len(site.Args) != 5 {
		return false
	}
	fn, ok := site.Func.(*ast.AttrGetExpr)
	if !ok {
		return false
	}
	if k, ok := fn.Key.(*ast.StringExpr); !ok || k.Value != "call" {
		return false
	}
	cmd, ok1 := site.Args[0].(*ast.StringExpr)
	st, ok2 := site.Args[2].(*ast.StringExpr)
	approx, ok3 := site.Args[3].(*ast.StringExpr)
	if !ok1 || !ok2 || !ok3 || !strings.EqualFold(cmd.Value, "XTRIM") || !strings.EqualFold(st.Value, "MAXLEN") || approx.Value != "~" {
		return false
	}
	switch site.Args[4].(type) {
	case *ast.FuncCallExpr, *ast.Comma3Expr:
		return false // may stand for more than one value, or none
	}
	return true
}

// editSites replaces, for each redis.call site of an that edit picks, the
// text from its `redis` to end with the replacement edit returns. It
// fails, changing nothing, when code already names the runtime's locals or
// gopher-lua's scanner and parser disagree on the sites.
func editSites(code string, an luaflow.Flow, edit func(*ast.FuncCallExpr, luaflow.Offset) (repl string, end int, picked bool)) (string, bool) {
	if strings.Contains(code, "__scriptgen_") {
		return "", false
	}
	offs := an.Offsets(code)
	if len(offs) != len(an.Sites) {
		return "", false
	}
	var b strings.Builder
	last := 0
	for i, site := range an.Sites {
		o := offs[i]
		repl, end, picked := edit(site, o)
		if !picked {
			continue
		}
		if o.Line != site.Line() || o.At < last || end < o.At {
			return "", false
		}
		b.WriteString(code[last:o.At])
		b.WriteString(repl)
		last = end
	}
	b.WriteString(code[last:])
	return b.String(), true
}

// The inline journal: what a script needs when every write that is not
// final has a plan (its undo from the script's own read, made before any
// write). No proxy, no dispatch, no table per undo: such a write's call
// becomes __scriptgen_h(redis.call(...), KEYS[n], field, old value, …) (up
// to 4 fields a call, nested for more), which, once the write has
// succeeded (a write that fails changed nothing), appends key, field and
// old value to one flat log (field 0: the key did not exist before the
// run, undone by DEL; 1 and 2: a push of the value's count of values,
// undone by LPOP or RPOP of as many) (made with room for 4 fields: growing a Lua
// table costs more than the rest of the journal); the run undoes the log
// newest first with HSET or HDEL if the body raises, as the runtime's run
// does. __scriptgen_h is also xpcall's message handler: called with the
// error alone, it returns it unchanged (one closure less, which is 0.6% of
// token_bucket).
//
// An EVAL script declares the journal on its first line, before the body's
// function, so the script's own names shadow it inside. A library declares
// it once, before its helpers (Declare), for all its functions: FCALL then
// makes no closure at all, and the log's table outlives the call to serve
// the next (token_bucket by FCALL: 1.15× the plain function's instructions
// with the journal made per call, 1.08× declared once and the log kept).
// A log that grew past 16 entries is let go. A run inside a run (a function
// of the library calling another's Lua function) appends to the same log
// and, if it fails, undoes its own part only.
//
// An EVAL script, which no run can nest in, has no run function: its body
// is given to xpcall where it stands and the undo follows it on its last
// line (one closure and one call less: 1.7 k instructions a call, 4% of
// asynq's enqueueCmd). A write of a key found absent (Plan.Del) that is a
// statement of its own only sets a local flag after it,
// `redis.call(...) __scriptgen_d1 = true`, which the undo reads (no call,
// no log: 2.6 k a call less on enqueueCmd). Its DEL may come after the
// log's undos: every undo that touches a key absent before the run is a
// deletion (the script's reads before its first write found that key's
// fields nil), so their order does not matter.
const (
	inlineName = "__scriptgen_h"
	inlineRun  = "__scriptgen_hrun"
	inlineHead = "local __scriptgen_log, __scriptgen_n "
	inlineLog  = "local function " + inlineName + "(r, k, f1, v1, f2, v2, f3, v3, f4, v4) if not f1 then return r end local l, m = __scriptgen_log, __scriptgen_n " +
		"if not l then l = {false, false, false, false, false, false, false, false, false, false, false, false} __scriptgen_log = l end l[m + 1], l[m + 2], l[m + 3] = k, f1, v1 m = m + 3 " +
		"if f2 then l[m + 1], l[m + 2], l[m + 3] = k, f2, v2 m = m + 3 end " +
		"if f3 then l[m + 1], l[m + 2], l[m + 3] = k, f3, v3 m = m + 3 end " +
		"if f4 then l[m + 1], l[m + 2], l[m + 3] = k, f4, v4 m = m + 3 end " +
		"__scriptgen_n = m return r end "
	inlineLua = inlineHead + inlineLog +
		"local function " + inlineRun + "(body) local base = __scriptgen_n __scriptgen_n = base or 0 local ok, r = xpcall(body, " + inlineName + ") " +
		"local l, c = __scriptgen_log, __scriptgen_n if ok then if not base then __scriptgen_n = nil if c > 48 then __scriptgen_log = nil end end return r end " +
		"__scriptgen_n = base if not base then __scriptgen_log = nil end " +
		"local failed " + undoLog + "(base or 0) + 1" + undoLogEnd + raiseAfterUndo + " end"
	// undoLog … undoLogEnd undoes the log newest first down to the index
	// put between them, keeping the first failure in failed.
	undoLog    = "for i = c - 2, "
	undoLogEnd = ", -3 do local u, f = nil, l[i + 1] if f == 0 then u = redis.pcall('DEL', l[i]) " +
		"elseif f == 1 then u = redis.pcall('LPOP', l[i], l[i + 2]) elseif f == 2 then u = redis.pcall('RPOP', l[i], l[i + 2]) " +
		"elseif l[i + 2] then u = redis.pcall('HSET', l[i], l[i + 1], l[i + 2]) else u = redis.pcall('HDEL', l[i], l[i + 1]) end " +
		"if type(u) == 'table' and u.err and not failed then failed = u.err end end "
	raiseAfterUndo = "if failed then local msg = type(r) == 'table' and r.err or tostring(r) " +
		"error({err = 'ERR scriptgen transactional: rollback failed (' .. failed .. ') after: ' .. tostring(msg)}) end error(r, 0)"
	inlinePrefix = "return " + inlineRun + "(function(...) "
	// inlineHandler is xpcall's message handler of an EVAL script that
	// logs nothing.
	inlineHandler = "local function " + inlineName + "(e) return e end "
	delFlag       = "__scriptgen_d"
	// inlineBody opens the body of an EVAL script under the inline journal.
	inlineBody = "local ok, r = xpcall(function(...) "
)

// inline returns the body under the inline journal (its run, without the
// journal's declaration), or false when its plans cannot be applied to
// the text.
func inline(src string, an luaflow.Flow) (string, bool) {
	out, _, ok := inlineSites(src, an, false)
	if !ok {
		return "", false
	}
	return inlinePrefix + withNewline(out) + runSuffix, true
}

// inlineEval is an EVAL script under the inline journal, declaration
// included, or false when its plans cannot be applied to the text.
func inlineEval(src string, an luaflow.Flow) (string, bool) {
	out, flags, ok := inlineSites(src, an, true)
	if !ok {
		return "", false
	}
	logs := strings.Contains(out, inlineName+"(")
	var b strings.Builder
	b.WriteString(inlineHead + "= nil, 0 ")
	for _, n := range flags {
		b.WriteString("local " + delFlag + n + " ")
	}
	if logs {
		b.WriteString(inlineLog)
	} else {
		b.WriteString(inlineHandler)
	}
	b.WriteString(inlineBody + withNewline(out) + "end, " + inlineName + ") if ok then return r end local failed ")
	if logs {
		b.WriteString("local l, c = __scriptgen_log, __scriptgen_n " + undoLog + "1" + undoLogEnd)
	}
	for _, n := range flags {
		b.WriteString("if " + delFlag + n + " then local u = redis.pcall('DEL', KEYS[" + n + "]) if type(u) == 'table' and u.err and not failed then failed = u.err end end ")
	}
	b.WriteString(raiseAfterUndo + "\n")
	return b.String(), true
}

// inlineSites is src with each planned write wrapped in its undo's log
// call, or, with flag (EVAL only), a key-found-absent write that is a
// statement followed by its flag's assignment; flags are the KEYS indexes
// of those flags.
func inlineSites(src string, an luaflow.Flow, flag bool) (string, []string, bool) {
	if len(an.Plans) == 0 {
		return "", nil, false
	}
	var flags []string
	out, ok := editSites(src, an, func(site *ast.FuncCallExpr, o luaflow.Offset) (string, int, bool) {
		p := an.Plans[site]
		if p == nil {
			return "", 0, false
		}
		if o.End < 0 {
			return "", -1, true // no closing parenthesis found: editSites refuses
		}
		call := src[o.At:o.End]
		if p.Del && p.Stmt && flag {
			n := strings.TrimSuffix(strings.TrimPrefix(p.Key, "KEYS["), "]")
			if !slices.Contains(flags, n) {
				flags = append(flags, n)
			}
			return call + " " + delFlag + n + " = true", o.End, true
		}
		switch {
		case p.Del:
			return inlineName + "(" + call + ", " + p.Key + ", 0)", o.End, true
		case p.Pop == "LPOP":
			return fmt.Sprintf("%s(%s, %s, 1, %d)", inlineName, call, p.Key, p.Count), o.End, true
		case p.Pop == "RPOP":
			return fmt.Sprintf("%s(%s, %s, 2, %d)", inlineName, call, p.Key, p.Count), o.End, true
		}
		for j := 0; j < len(p.Names); j += 4 {
			call = inlineName + "(" + call + ", " + p.Key
			for k := j; k < min(j+4, len(p.Names)); k++ {
				call += ", " + p.Names[k] + ", " + p.Refs[k]
			}
			call += ")"
		}
		return call, o.End, true
	})
	return out, flags, ok
}
