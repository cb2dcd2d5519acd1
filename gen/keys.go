package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/scriptgen/scriptgen/internal/script"
)

// Key helpers, for scripts whose keys have patterns (`key: name = pattern`,
// see package script): per key a function that builds it from the
// placeholders of its pattern, and per script a constructor of the whole
// keys struct.
//
//	func TokenBucketBucketKey(user string) string            // one key
//	func GateKey(caller, resource string) string             // key gate of gate
//	func WindowIdsKeys(tag string, id ...string) []string    // a variadic key
//	func NewTokenBucketKeys(user string) TokenBucketKeys     // all keys
//
// The constructor takes the shared hash tag once, so the keys it builds are
// in one slot by construction; filling the struct by hand stays possible and
// stays checked by the call. Parameters follow script.Script.KeyParams:
// each placeholder once, in order of first appearance, the variadic key's
// element last.

// keyFunc is the helper that builds key k of script s: <Script><Key>Key,
// or <Script>Key when the key is named after its script or just "key"
// (GateKey, not GateGateKey). A variadic key's helper is <Script><Key>Keys,
// always with the key's name, since <Script>Keys is the struct.
func keyFunc(s *script.Script, k script.Key) string {
	if k.Variadic {
		return exported(s.Name) + exported(k.Name) + "Keys"
	}
	if k.Name == s.Name || k.Name == "key" {
		return exported(s.Name) + "Key"
	}
	return exported(s.Name) + exported(k.Name) + "Key"
}

// newKeysFunc is the constructor of s's keys struct.
func newKeysFunc(s *script.Script) string { return "New" + exported(s.Name) + "Keys" }

// keyHelperNames lists the package-level names the helpers of s declare;
// none without patterns.
func keyHelperNames(s *script.Script) []string {
	if s.KeyParams() == nil {
		return nil
	}
	names := []string{newKeysFunc(s)}
	for _, k := range s.Keys {
		names = append(names, keyFunc(s, k))
	}
	return names
}

// paramName is the Go parameter for a placeholder: unexported, and clear of
// Go's keywords and predeclared names (a placeholder may well be called type
// or len, and the helpers' bodies call len and make).
func paramName(name string) string {
	id := unexported(name)
	if token.IsKeyword(id) || types.Universe.Lookup(id) != nil {
		id += "_"
	}
	return id
}

// checkKeyParams refuses placeholders that would give one Go parameter name.
func checkKeyParams(s *script.Script) []string {
	var errs []string
	owner := map[string]string{}
	for _, p := range s.KeyParams() {
		id := paramName(p.Name)
		if prev, dup := owner[id]; dup {
			pos := placeholderPos(s, p.Name)
			errs = append(errs, fmt.Sprintf("%s:%d:%d: key placeholders %s and %s both become Go parameter %s; rename one", s.Path, pos.Line, pos.Col, prev, p.Name, id))
			continue
		}
		owner[id] = p.Name
	}
	return errs
}

// placeholderPos is where placeholder name first appears in s's patterns.
func placeholderPos(s *script.Script, name string) script.Pos {
	for _, k := range s.Keys {
		at := k.Pattern.Pos
		for _, part := range k.Pattern.Parts {
			if part.Name == name {
				return at
			}
			switch {
			case part.Name == "":
				at.Col += len(part.Lit)
			default:
				at.Col += len(part.Name) + 2
			}
		}
	}
	return s.Keys[0].Pos
}

// keyParams are the parameters of k's helper: the script's key parameters
// that k's pattern uses, in the script's order.
func keyParams(s *script.Script, k script.Key) []script.KeyParam {
	used := map[string]bool{}
	for _, part := range k.Pattern.Parts {
		used[part.Name] = true
	}
	var out []script.KeyParam
	for _, p := range s.KeyParams() {
		if used[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

func paramList(ps []script.KeyParam) []jen.Code {
	var out []jen.Code
	for i, p := range ps {
		switch {
		case p.Variadic:
			out = append(out, jen.Id(paramName(p.Name)).Op("...").String())
		case i+1 < len(ps) && !ps[i+1].Variadic:
			out = append(out, jen.Id(paramName(p.Name))) // gofmt's a, b string
		default:
			out = append(out, jen.Id(paramName(p.Name)).String())
		}
	}
	return out
}

func argList(ps []script.KeyParam) []jen.Code {
	var out []jen.Code
	for _, p := range ps {
		if p.Variadic {
			out = append(out, jen.Id(paramName(p.Name)).Op("..."))
		} else {
			out = append(out, jen.Id(paramName(p.Name)))
		}
	}
	return out
}

// concat is the pattern as one string concatenation, which Go compiles to a
// single allocation; elem names the variable that fills the variadic part.
func concat(pat *script.Pattern, elem string) *jen.Statement {
	var terms []jen.Code
	lit := ""
	for _, part := range pat.Parts {
		switch {
		case part.Name == "":
			lit += part.Lit
			continue
		case part.Tag:
			lit += "{"
		}
		if lit != "" {
			terms = append(terms, jen.Lit(lit))
		}
		lit = ""
		if part.Tag {
			terms = append(terms, jen.Id(paramName(part.Name)))
			lit = "}"
		} else if elem != "" {
			// A variadic key's pattern has one plain part: the element.
			terms = append(terms, jen.Id(elem))
		} else {
			terms = append(terms, jen.Id(paramName(part.Name)))
		}
	}
	if lit != "" {
		terms = append(terms, jen.Lit(lit))
	}
	out := jen.Add(terms[0])
	for _, t := range terms[1:] {
		out = out.Op("+").Add(t)
	}
	return out
}

// free returns want, or want with a digit, so that a local does not shadow
// a parameter.
func free(want string, taken map[string]bool) string {
	name := want
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s%d", want, i)
	}
	taken[name] = true
	return name
}

// keyHelpers renders the helpers of a script whose keys have patterns.
func (g *scriptGen) keyHelpers(f *jen.File) {
	s := g.s
	params := s.KeyParams()
	if params == nil {
		return
	}
	for _, k := range s.Keys {
		ps := keyParams(s, k)
		name := keyFunc(s, k)
		f.Line()
		if k.Variadic {
			elem := k.Pattern.Plain()[0]
			f.Commentf("%s returns the %s keys of %s, one per %s: %s.", name, k.Name, s.Name, elem, k.Pattern.Text)
			taken := map[string]bool{}
			for _, p := range ps {
				taken[paramName(p.Name)] = true
			}
			keys, i, v := free("keys", taken), free("i", taken), free("v", taken)
			src := jen.Id(paramName(elem))
			f.Func().Id(name).Params(paramList(ps)...).Index().String().Block(
				jen.Id(keys).Op(":=").Make(jen.Index().String(), jen.Len(src.Clone())),
				jen.For(jen.List(jen.Id(i), jen.Id(v)).Op(":=").Range().Add(src.Clone())).Block(
					jen.Id(keys).Index(jen.Id(i)).Op("=").Add(concat(k.Pattern, v)),
				),
				jen.Return(jen.Id(keys)),
			)
			continue
		}
		f.Commentf("%s returns the %s key of %s: %s.", name, k.Name, s.Name, k.Pattern.Text)
		f.Func().Id(name).Params(paramList(ps)...).String().Block(jen.Return(concat(k.Pattern, "")))
	}

	f.Line()
	cons := newKeysFunc(s)
	f.Commentf("%s builds the keys of %s from their patterns.", cons, s.Name)
	tags := map[string]bool{}
	for _, k := range s.Keys {
		tags[k.Pattern.Tag()] = true
	}
	switch {
	case len(tags) > 1:
		f.Comment("Their hash tags differ, which the script's allow-cross-slot-keys flag")
		f.Comment("permits: they may be in different slots.")
	case len(s.Keys) > 1 || s.VariadicKeys():
		tag := s.Keys[0].Pattern.Tag()
		f.Commentf("They share the hash tag {%s}, so they are in one cluster slot. A %s", tag, tag)
		f.Comment("that is empty or starts with '}' gives Redis no tag: the call's slot")
		f.Comment("check then refuses keys that landed in different slots.")
	}
	f.Func().Id(cons).Params(paramList(params)...).Id(g.e + "Keys").Block(
		jen.Return(jen.Id(g.e + "Keys").ValuesFunc(func(v *jen.Group) {
			// In KEYS order: a Dict would sort the fields.
			for _, k := range s.Keys {
				v.Id(exported(k.Name)).Op(":").Id(keyFunc(s, k)).Call(argList(keyParams(s, k))...)
			}
		})),
	)
}

// KeysConstructor is the Go call that builds the keys of s from their
// patterns, as the wrappers declare it, e.g. "NewGateKeys(caller, resource)"
// or "NewLogKeys(tag, party...)"; "" when the keys have no patterns.
func KeysConstructor(s *script.Script) string {
	ps := s.KeyParams()
	if ps == nil {
		return ""
	}
	var args []string
	for _, p := range ps {
		a := paramName(p.Name)
		if p.Variadic {
			a += "..."
		}
		args = append(args, a)
	}
	return newKeysFunc(s) + "(" + strings.Join(args, ", ") + ")"
}
