package commands

import (
	"errors"
	"strconv"
	"strings"
)

// Args is a command line as a static analysis sees it: its length, the
// command name included, and the text of each argument where it is known.
type Args interface {
	Len() int
	Arg(i int) (text string, known bool)
}

// Errors of KeysOf.
var (
	// ErrInvalid is what COMMAND GETKEYS answers with "Invalid arguments
	// specified for command": the key positions cannot be found because the
	// command line is malformed.
	ErrInvalid = errors.New("invalid arguments: the key positions cannot be found")
	// ErrDynamic means an argument unknown until run time (a key count, say)
	// decides where the keys are.
	ErrDynamic = errors.New("the key positions depend on an argument known only at run time")
)

// Strings adapts a fully known command line to Args.
type Strings []string

// Len implements Args.
func (s Strings) Len() int { return len(s) }

// Arg implements Args.
func (s Strings) Arg(i int) (string, bool) { return s[i], true }

// Keys returns the positions of the keys in argv (argv[0] is the command
// name), as COMMAND GETKEYS does on redis-server 7.0. A command that takes
// no keys returns none; a malformed line returns ErrInvalid, unless the
// command's keys are optional (EVAL with no keys).
func (c *Command) Keys(argv []string) ([]int, error) {
	return c.KeysOf(Strings(argv))
}

// KeysOf is Keys on a command line whose arguments may be unknown. An
// unknown argument is taken as a value, never as a keyword: scripts spell
// keywords (STORE, STREAMS, KEYS) as literals, and treating every variable
// as a possible keyword would make every command movable. An unknown key
// count, on the other hand, makes the answer ErrDynamic.
func (c *Command) KeysOf(a Args) ([]int, error) {
	return c.mandatoryKeys(a, nil)
}

// KeyRef is a key of a command line as COMMAND GETKEYSANDFLAGS reports it:
// its position (argv[0] is the command name) and its key spec flags.
type KeyRef struct {
	Pos   int
	Flags KeyFlag
}

// KeysAndFlags is Keys with each key's flags, as COMMAND GETKEYSANDFLAGS
// gives them on redis-server 7.0: the flags of the spec that found the key,
// or those the command's getkeys procedure sets (SORT's STORE, SET with
// GET, a BITFIELD that writes, MIGRATE), none for the procedures Redis
// leaves without flags because the command's specs are complete.
func (c *Command) KeysAndFlags(argv []string) ([]KeyRef, error) {
	var flags []KeyFlag
	keys, err := c.mandatoryKeys(Strings(argv), &flags)
	if err != nil {
		return nil, err
	}
	refs := make([]KeyRef, len(keys))
	for i, k := range keys {
		refs[i] = KeyRef{Pos: k, Flags: flags[i]}
	}
	return refs, nil
}

// mandatoryKeys is keysOf with ErrInvalid for a command that must name a
// key and names none.
func (c *Command) mandatoryKeys(a Args, flags *[]KeyFlag) ([]int, error) {
	keys, err := c.keysOf(a, flags)
	if err == nil && len(keys) == 0 && c.HasKeys() && !c.Flags.Has(NoMandatoryKeys) {
		return nil, ErrInvalid
	}
	return keys, err
}

// keysOf is db.c's getKeysFromCommandWithSpecs: specs first when they are
// trustworthy, the command's own procedure otherwise. With flags, it sets
// *flags to each key's flags, index for index; Keys goes without.
func (c *Command) keysOf(a Args, flags *[]KeyFlag) ([]int, error) {
	hasSpec, varFlags := false, false
	for _, s := range c.KeySpecs {
		hasSpec = hasSpec || !s.Flags.Has(KeyNotKey)
		varFlags = varFlags || s.Flags.Has(KeyVariableFlags)
	}
	if hasSpec && !varFlags {
		keys, err := c.specKeys(a, flags)
		if err != ErrInvalid {
			return keys, err
		}
	}
	if p := proc(c.Name); p != nil {
		keys, err := p(a)
		if flags != nil {
			*flags = procFlags(c.Name, a, keys)
		}
		return keys, err
	}
	return nil, nil
}

// specKeys is db.c's getKeysUsingKeySpecs, without the partial-result mode.
func (c *Command) specKeys(a Args, flags *[]KeyFlag) ([]int, error) {
	if flags != nil {
		*flags = (*flags)[:0]
	}
	argc := a.Len()
	var keys []int
	for _, s := range c.KeySpecs {
		if s.Flags.Has(KeyNotKey) {
			continue
		}
		first := 0
		switch s.Begin {
		case BeginIndex:
			first = s.Index
		case BeginKeyword:
			start, end := s.StartFrom, argc-1
			if s.StartFrom <= 0 {
				start, end = argc+s.StartFrom, 1
			}
			for i := start; i != end; {
				if i >= argc || i < 1 {
					break
				}
				if v, ok := a.Arg(i); ok && strings.EqualFold(v, s.Keyword) {
					first = i + 1
					break
				}
				if start <= end {
					i++
				} else {
					i--
				}
			}
			if first == 0 {
				continue
			}
		default:
			return nil, ErrInvalid
		}

		var last, step int
		switch s.Find {
		case FindRange:
			step = s.KeyStep
			switch {
			case s.LastKey >= 0:
				last = first + s.LastKey
			case s.Limit == 0:
				last = argc + s.LastKey
			default:
				last = first + ((argc-first)/s.Limit + s.LastKey)
			}
		case FindKeynum:
			step = s.KeyStep
			if first+s.KeynumIdx >= argc {
				return nil, ErrInvalid
			}
			v, ok := a.Arg(first + s.KeynumIdx)
			if !ok {
				return nil, ErrDynamic
			}
			n, ok := string2ll(v)
			if !ok || n < 0 {
				return nil, ErrInvalid
			}
			first += s.FirstKey
			last = first + int(min(n, int64(argc))) - 1
		default:
			return nil, ErrInvalid
		}
		if last >= argc || last < first || first >= argc {
			return nil, ErrInvalid
		}
		if step < 1 {
			return nil, ErrInvalid // a table bug; Redis would loop forever
		}
		for i := first; i <= last; i += step {
			keys = append(keys, i)
			if flags != nil {
				*flags = append(*flags, s.Flags)
			}
		}
		if s.Flags.Has(KeyIncomplete) {
			return nil, ErrInvalid
		}
	}
	return keys, nil
}

// string2ll accepts what Redis's string2ll does: an optional minus and
// decimal digits, no leading zeros, no blanks, no plus sign.
func string2ll(s string) (int64, bool) {
	if s == "" || len(s) > 20 {
		return 0, false
	}
	d := strings.TrimPrefix(s, "-")
	if d == "" || d[0] == '0' && len(d) > 1 || d[0] == '0' && len(s) != len(d) {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// atoi is C's atoi, which the getkeys procedures use: leading blanks, an
// optional sign, then digits up to the first non-digit; 0 when there are none.
func atoi(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	n := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<31 {
			n = 1 << 31 // C's int overflows here; any huge count is a syntax error anyway
		}
	}
	if neg {
		return -n
	}
	return n
}

type procFunc func(a Args) ([]int, error)

// proc returns the getkeys procedure Redis 7.0 registers for a command, by
// name, as its command table does.
func proc(name string) procFunc {
	switch name {
	case "eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro", "blmpop", "bzmpop":
		return generic(0, 2, 3, 1)
	case "zunionstore", "zinterstore", "zdiffstore":
		return generic(1, 2, 3, 1)
	case "zunion", "zinter", "zdiff", "zintercard", "sintercard", "lmpop", "zmpop":
		return generic(0, 1, 2, 1)
	case "sort":
		return sortKeys
	case "sort_ro", "set", "bitfield":
		return firstKey
	case "migrate":
		return migrateKeys
	case "georadius", "georadiusbymember":
		return georadiusKeys
	case "xread", "xreadgroup":
		return xreadKeys
	}
	return nil
}

// procFlags are the flags the getkeys procedure of the command name sets on
// keys, the keys it found in a: db.c's sortGetKeys, sortROGetKeys,
// setGetKeys, bitfieldGetKeys and migrateGetKeys set them; the others set
// none, the command's specs being complete.
func procFlags(name string, a Args, keys []int) []KeyFlag {
	flags := make([]KeyFlag, len(keys))
	var all KeyFlag
	switch name {
	case "sort", "sort_ro":
		all = KeyRO | KeyAccess
	case "set":
		all = KeyOW | KeyUpdate
		for i := 3; i < a.Len(); i++ {
			if word(a, i) == "get" {
				all = KeyRW | KeyAccess | KeyUpdate
				break
			}
		}
	case "bitfield":
		all = KeyRO | KeyAccess
		if !bitfieldReadOnly(a) {
			all = KeyRW | KeyAccess | KeyUpdate
		}
	case "migrate":
		all = KeyRW | KeyAccess | KeyDelete
	}
	for i := range flags {
		flags[i] = all
	}
	if name == "sort" && len(keys) > 1 {
		flags[1] = KeyOW | KeyUpdate // the STORE destination
	}
	return flags
}

// bitfieldReadOnly is bitfieldGetKeys's verdict: only GETs and OVERFLOWs,
// each with its arguments; anything else is taken for a write.
func bitfieldReadOnly(a Args) bool {
	for i := 2; i < a.Len(); i++ {
		rest := a.Len() - i - 1
		switch w := word(a, i); {
		case w == "get" && rest >= 2:
			i += 2
		case w == "overflow" && rest >= 1:
			i++
		default:
			return false
		}
	}
	return true
}

// word returns argument i in lower case when it is known.
func word(a Args, i int) string {
	v, ok := a.Arg(i)
	if !ok {
		return ""
	}
	return strings.ToLower(v)
}

// generic is db.c's genericGetKeys: a key count at countAt, that many keys
// from firstAt every step, and an optional destination key at storeAt.
func generic(storeAt, countAt, firstAt, step int) procFunc {
	return func(a Args) ([]int, error) {
		if countAt >= a.Len() {
			return nil, nil
		}
		v, ok := a.Arg(countAt)
		if !ok {
			return nil, ErrDynamic
		}
		num := atoi(v)
		if num < 1 || num > (a.Len()-firstAt)/step {
			return nil, nil
		}
		keys := make([]int, 0, num+1)
		for i := range num {
			keys = append(keys, firstAt+i*step)
		}
		if storeAt > 0 {
			keys = append(keys, storeAt)
		}
		return keys, nil
	}
}

func firstKey(Args) ([]int, error) { return []int{1}, nil }

// sortKeys is sortGetKeys: the sorted key, and the last STORE destination.
func sortKeys(a Args) ([]int, error) {
	store := 0
	for i := 2; i < a.Len(); i++ {
		switch word(a, i) {
		case "limit":
			i += 2
		case "get", "by":
			i++
		case "store":
			if i+1 < a.Len() {
				store = i + 1
			}
		}
	}
	if store > 0 {
		return []int{1, store}, nil
	}
	return []int{1}, nil
}

// migrateKeys is migrateGetKeys: the key argument, or everything after KEYS
// when the key argument is empty.
func migrateKeys(a Args) ([]int, error) {
	first, num := 3, 1
	for i := 6; i < a.Len(); i++ {
		switch word(a, i) {
		case "keys":
			if v, ok := a.Arg(3); !ok || v != "" {
				if !ok {
					return nil, ErrDynamic
				}
				return nil, nil
			}
			first, num = i+1, a.Len()-i-1
		case "auth":
			i++
			continue
		case "auth2":
			i += 2
			continue
		default:
			continue
		}
		break
	}
	keys := make([]int, num)
	for i := range keys {
		keys[i] = first + i
	}
	return keys, nil
}

// georadiusKeys is georadiusGetKeys: the source, and the last STORE or
// STOREDIST destination.
func georadiusKeys(a Args) ([]int, error) {
	store := 0
	for i := 5; i < a.Len(); i++ {
		if w := word(a, i); (w == "store" || w == "storedist") && i+1 < a.Len() {
			store = i + 1
			i++
		}
	}
	if store > 0 {
		return []int{1, store}, nil
	}
	return []int{1}, nil
}

// xreadKeys is xreadGetKeys: half the arguments after STREAMS.
func xreadKeys(a Args) ([]int, error) {
	streams := -1
loop:
	for i := 1; i < a.Len(); i++ {
		switch word(a, i) {
		case "block", "count":
			i++
		case "group":
			i += 2
		case "noack":
		case "streams":
			streams = i
			break loop
		default:
			break loop
		}
	}
	num := a.Len() - streams - 1
	if streams == -1 || num == 0 || num%2 != 0 {
		return nil, nil
	}
	keys := make([]int, 0, num/2)
	for i := streams + 1; i < a.Len()-num/2; i++ {
		keys = append(keys, i)
	}
	return keys, nil
}
