package luaflow

// scope is a lexical scope: the names declared in it, each with what a
// pass keeps of it (the proof's first reading: that it is declared; the
// proof: its local; the key walk: its value). Both analyses resolve names
// with it, so a name means the same declaration to both.
type scope[V any] struct {
	parent *scope[V]
	vars   map[string]V
}

func newScope[V any](parent *scope[V]) *scope[V] {
	return &scope[V]{parent: parent, vars: map[string]V{}}
}

// lookup is what the innermost declaration of name keeps, or V's zero
// value when name is declared nowhere.
func (s *scope[V]) lookup(name string) V {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v
		}
	}
	var zero V
	return zero
}

// names is a scope of the proof's first reading.
type names = scope[bool]

// flowScope is a scope of the proof's flow.
type flowScope = scope[*local]
