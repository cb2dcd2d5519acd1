package commands

// Arg is one argument of a command's grammar as COMMAND DOCS gives it:
// a token, a value of a type, or a block or one-of of further arguments.
type Arg struct {
	Name  string
	Type  string // key, string, integer, double, pattern, unix-time, pure-token, oneof, block
	Token string // the word that comes first, if any
	// Optional, Multiple: the argument may be left out, or repeated;
	// MultipleToken: the token comes again before each repetition.
	Optional, Multiple, MultipleToken bool
	Args                              []Arg // of a oneof or a block
}

// Grammar is a command's arguments as redis-server 7.0.15's COMMAND DOCS
// lists them, and false for a name it does not know ("set",
// "config|get").
func Grammar(name string) ([]Arg, bool) {
	docs, ok := DocsReply(name, true)
	if !ok {
		return nil, false
	}
	d := elements(docs[valueLen(docs):])
	for i := 0; i+1 < len(d); i += 2 {
		if k, _ := bulk(d[i]); k == "arguments" {
			return parseArgs(d[i+1]), true
		}
	}
	return nil, true
}

func parseArgs(v string) []Arg {
	var out []Arg
	for _, e := range elements(v) {
		var a Arg
		f := elements(e)
		for i := 0; i+1 < len(f); i += 2 {
			k, _ := bulk(f[i])
			switch k {
			case "name":
				a.Name, _ = bulk(f[i+1])
			case "type":
				a.Type, _ = bulk(f[i+1])
			case "token":
				a.Token, _ = bulk(f[i+1])
			case "flags":
				for _, fl := range elements(f[i+1]) {
					switch s, _ := bulk(fl); s {
					case "optional":
						a.Optional = true
					case "multiple":
						a.Multiple = true
					case "multiple_token":
						a.MultipleToken = true
					}
				}
			case "arguments":
				a.Args = parseArgs(f[i+1])
			}
		}
		out = append(out, a)
	}
	return out
}
