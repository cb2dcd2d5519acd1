package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/script"
)

// Placeholders in key templates and argument values.
const (
	CallerVar  = "$caller" // the caller's name
	RequestVar = "$req"    // the request's sequence number, from 1: unique ids
)

// NowArg is the argument the simulator fills with the caller's clock.
const NowArg = "now_ms"

// Limiter is one script under simulation, configured by its arguments.
type Limiter struct {
	Label  string // in tables and legends; default: the script's name
	Script *script.Script
	// Args are wire values by argument name. Absent args take the header's
	// default or are omitted when optional; now_ms is the simulator's.
	// Values may use $caller and $req; a variadic argument's value is split
	// on spaces.
	Args map[string]string
	// Keys are templates for KEYS, one per declared key, and may use
	// $caller. Empty: "sim:{r}:<key>" for a shared workload, with
	// ":$caller" appended otherwise. Keys share a hash tag so that a
	// limiter checking several keys is valid on a cluster too.
	Keys []string
}

// verdict reads allowed out of a reply.
type verdict struct {
	field  int // index in the array reply; -1: the reply is the bool
	invert bool
}

// argSlot is one ARGV element: fixed text, or filled per request.
type argSlot struct {
	text   string
	now    bool
	perReq bool // text has $caller or $req
}

// plan is a Limiter checked against its header, ready to run.
type plan struct {
	label   string
	name    string
	src     string
	keys    []string
	args    []argSlot
	verdict verdict
}

func (l *Limiter) plan(w *Workload) (*plan, error) {
	s := l.Script
	if s == nil {
		return nil, fmt.Errorf("sim: limiter %q has no script", l.Label)
	}
	p := &plan{label: l.Label, name: s.Name, src: s.EvalSource()}
	if p.label == "" {
		p.label = s.Name
	}
	v, err := verdictOf(s)
	if err != nil {
		return nil, err
	}
	p.verdict = v
	if p.keys, err = keyTemplates(s, l.Keys, w.Shared); err != nil {
		return nil, err
	}
	if p.args, err = argSlots(s, l.Args); err != nil {
		return nil, err
	}
	return p, nil
}

// verdictOf finds where a reply says whether the request passed: an
// `allowed` field, cl_throttle's `limited` (its inverse), or a bool reply.
func verdictOf(s *script.Script) (verdict, error) {
	if s.Returns.Type == script.Bool {
		return verdict{field: -1}, nil
	}
	for i, f := range s.Returns.Fields {
		if f.Name == "allowed" && f.Type == script.Bool {
			return verdict{field: i}, nil
		}
	}
	for i, f := range s.Returns.Fields {
		if f.Name == "limited" && f.Type == script.Bool {
			return verdict{field: i, invert: true}, nil
		}
	}
	return verdict{}, fmt.Errorf("%s: not a limiter: its returns: needs an `allowed bool` field (or `limited bool`)", s.Path)
}

func keyTemplates(s *script.Script, given []string, shared bool) ([]string, error) {
	if len(given) > 0 {
		if len(given) < s.MinKeys() || (!s.VariadicKeys() && len(given) > len(s.Keys)) {
			return nil, fmt.Errorf("%s: %d key(s) given, the script declares %d: %s", s.Path, len(given), len(s.Keys), keyNames(s))
		}
		return given, nil
	}
	out := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		out[i] = "sim:{r}:" + k.Name
		if !shared {
			out[i] += ":" + CallerVar
		}
	}
	return out, nil
}

func keyNames(s *script.Script) string {
	var names []string
	for _, k := range s.Keys {
		n := k.Name
		if k.Variadic {
			n += "..."
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

func argSlots(s *script.Script, given map[string]string) ([]argSlot, error) {
	known := map[string]bool{}
	for _, a := range s.Args {
		known[a.Name] = true
	}
	var unknown []string
	for n := range given {
		if !known[n] {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown argument(s) %s; the script takes: %s", s.Path, strings.Join(unknown, ", "), argNames(s))
	}
	var out []argSlot
	pending := 0 // omitted optionals that a later argument needs filled with ""
	var missing []string
	for _, a := range s.Args {
		v, ok := given[a.Name]
		var slots []argSlot
		switch {
		case a.Name == NowArg && !ok:
			slots = []argSlot{{now: true}}
		case ok && a.Variadic:
			for _, f := range strings.Fields(v) {
				slots = append(slots, slot(f))
			}
		case ok:
			slots = []argSlot{slot(v)}
		case a.HasDefault:
			slots = []argSlot{{text: a.Default}}
		case a.Optional || a.Variadic:
			pending++
			continue
		default:
			missing = append(missing, a.Name)
			continue
		}
		for ; pending > 0; pending-- {
			out = append(out, argSlot{})
		}
		out = append(out, slots...)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing argument(s) %s; give them as name=value", s.Path, strings.Join(missing, ", "))
	}
	return out, nil
}

func slot(v string) argSlot {
	return argSlot{text: v, perReq: strings.Contains(v, CallerVar) || strings.Contains(v, RequestVar)}
}

func argNames(s *script.Script) string {
	var names []string
	for _, a := range s.Args {
		n := a.Name + " " + string(a.Type)
		switch {
		case a.HasDefault:
			n += " = " + a.Default
		case a.Optional:
			n += "?"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// allowed decodes a reply by the verdict.
func (v verdict) allowed(reply any) (bool, error) {
	x := reply
	if v.field >= 0 {
		arr, ok := reply.([]any)
		if !ok || len(arr) <= v.field {
			return false, fmt.Errorf("reply %v has no element %d", reply, v.field+1)
		}
		x = arr[v.field]
	}
	var b bool
	switch x := x.(type) {
	case nil: // Lua false
	case int64:
		b = x != 0
	default:
		return false, fmt.Errorf("reply element %v is not a bool (1 or nil)", x)
	}
	return b != v.invert, nil
}

func expand(t, caller string, req int64) string {
	if strings.Contains(t, CallerVar) {
		t = strings.ReplaceAll(t, CallerVar, caller)
	}
	if strings.Contains(t, RequestVar) {
		t = strings.ReplaceAll(t, RequestVar, strconv.FormatInt(req, 10))
	}
	return t
}
