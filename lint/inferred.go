package lint

import "fmt"

// RuleInferred marks a script analysed against the contract the front end
// inferred from its body, there being no header: one finding a script, so
// that scripts written before scriptgen lint at once and the author knows
// what to confirm.
const RuleInferred = "inferred"

// inferred is the one finding about a script without a header.
func (l *linter) inferred(p parsed, u *unit) {
	s := p.s
	if !s.Inferred || u.sev[RuleInferred] == Off {
		return
	}
	keys := fmt.Sprintf("%d key(s)", len(s.Keys))
	if s.VariadicKeys() {
		keys = fmt.Sprintf("%d key(s) and more", s.MinKeys())
	}
	l.add(Finding{Path: p.path, Line: 1, Col: 1, Rule: RuleInferred, Severity: u.sev[RuleInferred],
		Msg: fmt.Sprintf("no --! header: analysed with the contract its body implies, %s and %d arg(s), named %s; `scriptgen annotate %s` writes it down", keys, len(s.Args), s.Name, p.path)})
}
