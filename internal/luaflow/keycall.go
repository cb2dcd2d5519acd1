package luaflow

import (
	"errors"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/gopher-lua/ast"

	"github.com/scriptgen/scriptgen/internal/commands"
)

// argView shows a redis.call's arguments to commands.KeysOf: argument 0 is
// the command name, extra unknown arguments stand for a multi-value tail.
type argView struct {
	args  []arg
	extra int
}

func (v argView) Len() int { return len(v.args) + v.extra }

func (v argView) Arg(i int) (string, bool) {
	if i < len(v.args) && v.args[i].v.isLit {
		return v.args[i].v.lit, true
	}
	return "", false
}

// redisCall reads one redis.call/redis.pcall: the command against
// Redis's table, and every key argument's source.
func (a *walker) redisCall(call *ast.FuncCallExpr, fname string, args []arg) {
	line := call.Line()
	if len(args) == 0 {
		a.fact(Fact{Kind: NoCommand, Node: call, Line: line, Name: fname})
		return
	}
	name := args[0].v
	if name.o == oParam {
		return // a wrapper's parameter: checked where the wrapper is called
	}
	if alts := name.constants(); len(alts) > 1 {
		// Each command the variable may hold is checked on its own.
		for _, alt := range alts {
			one := append([]arg{{v: literal(alt, name.why), e: args[0].e}}, args[1:]...)
			a.redisCall(call, fname, one)
		}
		return
	}
	if !name.isLit {
		a.fact(Fact{Kind: DynamicCommand, Node: args[0].e, Line: line, Name: fname, Other: name.why})
		return
	}
	cmd := commands.Lookup(name.lit)
	if cmd == nil {
		a.fact(Fact{Kind: UnknownCommand, Node: args[0].e, Line: line, Name: name.lit})
		return
	}
	upper := strings.ToUpper(name.lit)
	if cmd.Container && len(args) > 1 {
		sub := args[1].v
		switch {
		case sub.o == oParam:
			return
		case !sub.isLit:
			a.fact(Fact{Kind: DynamicSubcommand, Node: args[1].e, Line: line, Name: upper, Other: sub.why})
			return
		}
		if cmd = commands.Lookup(cmd.Name + "|" + sub.lit); cmd == nil {
			a.fact(Fact{Kind: UnknownSubcommand, Node: args[1].e, Line: line, Name: upper, Other: sub.lit})
			return
		}
		upper += " " + strings.ToUpper(sub.lit)
	}
	switch {
	case cmd.Flags.Has(commands.NoScript):
		a.fact(Fact{Kind: NoScript, Node: args[0].e, Line: line, Name: upper})
		return
	case a.frame.noWrites && (cmd.Flags.Has(commands.Write) || cmd.Flags.Has(commands.MayReplicate)):
		a.fact(Fact{Kind: ReadOnlyWrite, Node: args[0].e, Line: line, Name: upper})
	}

	tail := len(args) > 0 && args[len(args)-1].v.multi
	fixed := len(args)
	if tail {
		fixed--
	}
	switch {
	case !tail && !cmd.ArityOK(len(args)):
		a.fact(Fact{Kind: Arity, Node: args[0].e, Line: line, Name: upper, N: len(args) - 1, Cmd: cmd})
		return
	case tail && cmd.Arity > 0 && fixed > cmd.Arity:
		a.fact(Fact{Kind: ArityAtLeast, Node: args[0].e, Line: line, Name: upper, N: fixed - 1, Cmd: cmd})
		return
	}
	a.checkKeys(cmd, upper, args, fixed, tail, line)
	a.patterns(cmd, upper, args)
}

// patterns records the keys a command reaches through a pattern rather
// than its key arguments: SORT's BY and GET read a key per element
// (sort.c, lookupKeyByPattern), KEYS and SCAN read the keyspace.
func (a *walker) patterns(cmd *commands.Command, upper string, args []arg) {
	pattern := func(name string, x arg) {
		f := Fact{Kind: KeyPattern, Node: x.e, Line: x.e.Line(), Name: name, Other: x.v.why}
		if x.v.isLit {
			f.Other, f.N = x.v.lit, 1
		}
		a.fact(f)
	}
	switch cmd.Name {
	case "keys":
		if len(args) > 1 {
			pattern(upper, args[1])
		}
	case "scan":
		pattern(upper, args[0])
	case "sort", "sort_ro":
		for i := 2; i+1 < len(args); i++ {
			opt := strings.ToLower(args[i].v.lit)
			switch {
			case !args[i].v.isLit:
			case opt == "limit":
				i += 2
			case opt == "store":
				i++
			case opt == "by":
				// A BY pattern without '*' only turns sorting off.
				if p := args[i+1].v; !p.isLit || strings.Contains(p.lit, "*") {
					pattern(upper+" BY", args[i+1])
				}
				i++
			case opt == "get":
				pattern(upper+" GET", args[i+1])
				i++
			}
		}
	}
}

// checkKeys finds the key positions from Redis's key specs and records
// where the argument at each comes from. With a multi-value tail (unpack(…), …) it tries the
// tail at a few lengths and checks the tail itself when keys may fall in it.
func (a *walker) checkKeys(cmd *commands.Command, upper string, args []arg, fixed int, tail bool, line int) {
	var positions []int
	inTail := false
	if !tail {
		pos, err := cmd.KeysOf(argView{args: args})
		switch {
		case errors.Is(err, commands.ErrDynamic):
			a.fact(Fact{Kind: DynamicKeys, Node: args[0].e, Line: line, Name: upper})
			return
		case err != nil:
			a.fact(Fact{Kind: KeysUnfit, Node: args[0].e, Line: line, Name: upper})
			return
		}
		positions = pos
	} else {
		seen := map[int]bool{}
		ok := false
		for extra := range 4 {
			pos, err := cmd.KeysOf(argView{args: args[:fixed], extra: extra})
			if errors.Is(err, commands.ErrDynamic) {
				a.fact(Fact{Kind: DynamicKeys, Node: args[0].e, Line: line, Name: upper})
				return
			}
			if err != nil {
				continue
			}
			ok = true
			for _, p := range pos {
				if p >= fixed {
					inTail = true
				} else if !seen[p] {
					seen[p] = true
					positions = append(positions, p)
				}
			}
		}
		if !ok {
			return // no tail length fits; Redis will say so at run time
		}
	}
	for _, p := range positions {
		if p < len(args) {
			a.checkKey(upper, args[p], line)
		}
	}
	if inTail {
		a.checkKey(upper, args[len(args)-1], line)
	}
}

// checkKey records where key argument x of command upper comes from: one
// fact per key of a call, KEYS elements included.
func (a *walker) checkKey(upper string, x arg, line int) {
	kind := KeySource
	switch x.v.o {
	case oParam:
		if x.v.pfx != "" && a.frame.fn != nil {
			why := "the literal " + strconv.Quote(x.v.pfx) + " followed by " + x.v.why
			if x.v.stored {
				why = x.v.why + ", a field every store of which starts with the literal " + strconv.Quote(x.v.pfx)
			}
			f := Fact{Chunk: a.cur, Kind: KeySource, Node: x.e, Line: line, Name: upper, Other: why, Text: keyText(x.e)}
			if a.frame.inline {
				f.Via = &a.frame.via
			}
			a.prefixed = append(a.prefixed, prefixed{a.frame.fn, f})
		}
		return // the helper's caller passes it: read again there
	case oKey:
		if !a.p.EveryKey {
			return
		}
		kind = KeyOf
	case oKeyDerived:
		kind = KeyDerived
	}
	a.fact(Fact{Kind: kind, Node: x.e, Line: line, Name: upper, Other: x.v.why, Text: keyText(x.e), N: x.v.key})
}

// keyText is the source of a key argument that is a name or an index.
func keyText(e ast.Expr) string {
	switch e.(type) {
	case *ast.IdentExpr, *ast.AttrGetExpr:
		return exprText(e)
	}
	return ""
}
