package transactional

import (
	"strings"

	"github.com/scriptgen/scriptgen/transactional/internal/resp"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// ScriptOption is an option of Load.
type ScriptOption func(*scriptOptions)

type scriptOptions struct {
	journaled bool
}

// Journaled makes Load cache a script as the bundler ships one whose
// header says `flags: transactional`: its code in the rollback prelude
// (prelude.Ship), which the engine runs on its own journal. The caller
// states the choice and passes the plain body; text that arrives over the
// wire, where only the text can say it, is recognised as before.
func Journaled() ScriptOption { return func(o *scriptOptions) { o.journaled = true } }

// Load caches body, an EVAL body with or without a #!lua shebang, as
// SCRIPT LOAD does, and returns the SHA-1 to run it by: EvalSHA, or
// EVALSHA through Do or a connection. An error is an *Error with the text
// SCRIPT LOAD would reply (with Journaled, for the text shipped).
//
// With Journaled, the script cached is the text the bundler ships: the
// shebang line, then prelude.Ship of the code after it. The SHA-1 is that
// text's, the one a real Redis caches, so EVALSHA, the replies and the
// error texts (which name the SHA-1 and the line) are Redis's for the
// bundled script. Unlike DoTransactional, which journals any run of any
// script and refuses every write a journal cannot undo, a journaled script
// refuses only those its code names, as the prelude does.
func (e *Engine) Load(body string, opts ...ScriptOption) (string, error) {
	var o scriptOptions
	for _, opt := range opts {
		opt(&o)
	}
	host := hostScript
	if o.journaled {
		body, host = shipJournaled(body)
	}
	e.m.Lock()
	sc, err := e.createScriptWith(body, host)
	e.m.Unlock()
	if err != nil {
		// As SCRIPT LOAD's reply carries it: one protocol line.
		var g resp.GoReply
		w := resp.Writer{G: &g}
		w.ErrorReply(err.Error())
		return "", g.Value.(*Error)
	}
	return sc.sha, nil
}

// shipJournaled is the bundler's EVAL text for body flagged
// transactional (its shebang line, if any, then the code after it as
// prelude.Ship leaves it) and how the engine hosts that text: told, not
// recognised, that the runtime's declaration ends where ShipParts says.
func shipJournaled(body string) (string, func(string) (string, *hosting)) {
	head := ""
	if strings.HasPrefix(body, "#!") {
		nl := strings.IndexByte(body, '\n')
		if nl < 0 {
			return body, hostScript // no code: SCRIPT LOAD's shebang error
		}
		head, body = body[:nl+1], body[nl+1:]
	}
	w := prelude.ShipParts(body)
	host := func(src string) (string, *hosting) { return src, nil }
	if w.Runtime {
		host = func(src string) (string, *hosting) {
			// After a shebang, src keeps the line's newline (parseShebang).
			nl := src[:len(src)-len(w.Head)-len(w.Rest)]
			return nl + prelude.Hosted(false) + w.Rest, &hosting{refused: prelude.Refused(w.Body)}
		}
	}
	return head + w.Head + w.Rest, host
}
