package lint

import (
	"errors"
	"fmt"
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

// redisCall checks one redis.call/redis.pcall: the command against
// Redis's table, and every key argument's source.
func (a *analyzer) redisCall(call *ast.FuncCallExpr, fname string, args []arg) {
	line := call.Line()
	if len(args) == 0 {
		a.report(call, line, RuleCommand, "%s without a command name: Redis replies with an error", fname)
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
		a.dynamic("command", args[0].e, line, "%s's command name (%s) cannot be resolved statically, so this call's command and keys are not checked", fname, name.why)
		return
	}
	cmd := commands.Lookup(name.lit)
	if cmd == nil {
		a.report(args[0].e, line, RuleCommand, "unknown command %q (Redis %s)", name.lit, commands.ServerVersion)
		return
	}
	upper := strings.ToUpper(name.lit)
	if cmd.Container && len(args) > 1 {
		sub := args[1].v
		switch {
		case sub.o == oParam:
			return
		case !sub.isLit:
			a.dynamic("command", args[1].e, line, "%s's subcommand (%s) cannot be resolved statically, so this call is not checked", upper, sub.why)
			return
		}
		if cmd = commands.Lookup(cmd.Name + "|" + sub.lit); cmd == nil {
			a.report(args[1].e, line, RuleCommand, "unknown subcommand %s %s", upper, strings.ToUpper(sub.lit))
			return
		}
		upper += " " + strings.ToUpper(sub.lit)
	}
	switch {
	case cmd.Flags.Has(commands.NoScript):
		a.report(args[0].e, line, RuleCommand, "%s is not allowed from scripts (Redis: This Redis command is not allowed from script)", upper)
		return
	case a.frame.noWrites && (cmd.Flags.Has(commands.Write) || cmd.Flags.Has(commands.MayReplicate)):
		a.report(args[0].e, line, RuleCommand, "%s writes, but the script is flagged no-writes (Redis: Write commands are not allowed from read-only scripts)", upper)
	}

	tail := len(args) > 0 && args[len(args)-1].v.multi
	fixed := len(args)
	if tail {
		fixed--
	}
	switch {
	case !tail && !cmd.ArityOK(len(args)):
		a.report(args[0].e, line, RuleCommand, "wrong number of arguments for %s: %d given, %s", upper, len(args)-1, arity(cmd))
		return
	case tail && cmd.Arity > 0 && fixed > cmd.Arity:
		a.report(args[0].e, line, RuleCommand, "wrong number of arguments for %s: at least %d given, %s", upper, fixed-1, arity(cmd))
		return
	}
	a.checkKeys(cmd, upper, args, fixed, tail, line)
}

func arity(c *commands.Command) string {
	if c.Arity < 0 {
		return fmt.Sprintf("it takes at least %d", -c.Arity-1)
	}
	return fmt.Sprintf("it takes %d", c.Arity-1)
}

// checkKeys finds the key positions from Redis's key specs and checks the
// argument at each. With a multi-value tail (unpack(…), …) it tries the
// tail at a few lengths and checks the tail itself when keys may fall in it.
func (a *analyzer) checkKeys(cmd *commands.Command, upper string, args []arg, fixed int, tail bool, line int) {
	var positions []int
	inTail := false
	if !tail {
		pos, err := cmd.KeysOf(argView{args: args})
		switch {
		case errors.Is(err, commands.ErrDynamic):
			a.dynamic("keys", args[0].e, line, "%s's key positions depend on an argument known only at run time, so its keys are not checked", upper)
			return
		case err != nil:
			a.report(args[0].e, line, RuleCommand, "the arguments do not fit %s's syntax: Redis cannot find its keys and replies with an error", upper)
			return
		}
		positions = pos
	} else {
		seen := map[int]bool{}
		ok := false
		for extra := range 4 {
			pos, err := cmd.KeysOf(argView{args: args[:fixed], extra: extra})
			if errors.Is(err, commands.ErrDynamic) {
				a.dynamic("keys", args[0].e, line, "%s's key positions depend on an argument known only at run time, so its keys are not checked", upper)
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
			a.checkKey(cmd, upper, args[p], line)
		}
	}
	if inTail {
		a.checkKey(cmd, upper, args[len(args)-1], line)
	}
}

func (a *analyzer) checkKey(cmd *commands.Command, upper string, x arg, line int) {
	via := ""
	if a.frame.inline {
		via = " (" + a.frame.via + ")"
	}
	name := ""
	switch x.e.(type) {
	case *ast.IdentExpr, *ast.AttrGetExpr:
		name = " `" + exprText(x.e) + "`"
	}
	switch x.v.o {
	case oKey, oParam:
		return
	case oKeyDerived:
		a.report(x.e, line, RuleKeyDerived, "key%s of %s is derived from %s%s: pass it in KEYS too, with the same hash tag; Redis Cluster routes it only when %s carries a hash tag, and ACL key patterns, proxies and Dragonfly refuse it",
			name, upper, x.v.why, via, x.v.why)
	default:
		why := x.v.why
		if why == "" {
			why = "a value the linter cannot trace to KEYS"
		}
		a.report(x.e, line, RuleKeySource, "key%s of %s is built from %s%s, not taken from KEYS: the cluster cannot route it; pass it in KEYS with a hash tag", name, upper, why, via)
	}
}

// dynamic says once per script, per kind, that something was not checked.
func (a *analyzer) dynamic(kind string, at ast.Expr, line int, format string, args ...any) {
	if a.said[kind] {
		return
	}
	a.said[kind] = true
	a.report(at, line, RuleDynamicCommand, format, args...)
}
