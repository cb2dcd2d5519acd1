package prelude

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/luaflow"
)

// A host is a Redis-compatible engine that journals writes itself (package
// transactional's engine). It recognises text that Wrap or Declare
// produced, swaps the runtime's declaration for Hosted's, and so runs the
// very script a real Redis runs, line for line, with its own journal behind
// redis.call.

const declareHead = "local redis, " + runName + ", " + rawName + " = (function() "

// Unwrap returns the source Wrap was given, when src is exactly what Wrap
// returns for it, and the rest of src after the runtime's declaration (what
// follows Hosted(false) in the hosted text).
func Unwrap(src string) (body, rest string, ok bool) {
	if !strings.HasPrefix(src, declareHead) || !strings.HasSuffix(src, runSuffix) {
		return "", "", false
	}
	i := strings.Index(src, " "+runPrefix)
	if i < 0 {
		return "", "", false
	}
	body = src[i+1+len(runPrefix) : len(src)-len(runSuffix)]
	if Wrap(body) != src {
		return "", "", false
	}
	return body, src[i:], true
}

// SplitDeclared finds the runtime's line that Declare put in a library's
// code: it returns what comes before that line (the inline journal's line
// among it, if any) and the code after it (which Declare was given), when
// the line is exactly Declare's for that code.
func SplitDeclared(code string) (head, rest string, ok bool) {
	i := 0
	if !strings.HasPrefix(code, declareHead) {
		i = strings.Index(code, "\n"+declareHead)
		if i < 0 {
			return "", "", false
		}
		i++
	}
	n := strings.IndexByte(code[i:], '\n')
	if n < 0 {
		return "", "", false
	}
	line, rest := code[i:i+n+1], code[i+n+1:]
	if declareRuntime(rest) != line {
		return "", "", false
	}
	return code[:i], rest, true
}

// Hosted is the declaration a host puts in place of the runtime's, on one
// line as well. The chunk's arguments (...) are the host's journaling call
// and pcall and its run, which calls the body under the journal and returns
// true and the body's first result, or false and the error after rolling
// back. The proxy is the runtime's own, and a failed run raises the error
// again from this line, as the runtime does from its own first line, so
// replies and error texts are the same.
func Hosted(library bool) string {
	proxy := evalProxy
	if library {
		proxy = libraryProxy
	}
	// call and pcall go through a Lua function of this line, as the
	// runtime's do: Redis names the line of the Lua function that called
	// redis.call in its errors, and that is this one.
	// The host journals every write itself: the final writes (rawName)
	// and the XTRIMs the runtime may defer (trimName) go through the same
	// proxy.
	return "local redis, " + runName + ", " + rawName + " = (function(hosted_call, hosted_pcall, hosted_run)" +
		" local function proxied_call(...) local r = hosted_call(...) return r end" +
		" local function proxied_pcall(...) local r = hosted_pcall(...) return r end" +
		" local function proxied_setresp(v) redis.setresp(v) end " + proxy + " proxy." + trimName + " = {call = proxied_call}" +
		" local function run(body) local ok, r = hosted_run(body) if ok then return r end error(r, 0) end" +
		" return proxy, run, proxy end)(...)"
}

// Refused lists, in lower case, the commands a run of code refuses before
// they execute: a per-key journal cannot undo them. "copy" stands for COPY
// with a DB option. As in the runtime, only commands that code names in a
// string literal are refused: a command named at run time is journaled by
// its keys.
func Refused(code string) map[string]bool {
	out := map[string]bool{}
	spellings := spellingsOf(code)
	for name := range spellings {
		if luaflow.BeyondKeys(name) || name == "copy" {
			out[name] = true
		}
	}
	return out
}
