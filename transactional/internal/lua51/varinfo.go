package lua51

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// Lua 5.1 names the variable in a runtime type error ("attempt to index
// local 't' (a nil value)"); gopher-lua does not. varInfo recovers the name
// the way Lua's getobjname does: from the failing instruction, the function's
// local variable table and the instruction that last loaded the register.
// It reads the frame's pc with reflection (gopher-lua's Debug keeps the
// frame unexported); when anything is off, the message stays generic.

// gopher-lua's instruction layout (opcode.go): op:6 A:8 C:9 B:9.
func opCode(i uint32) int { return int(i >> 26) }
func opA(i uint32) int    { return int(i>>18) & 0xff }
func opB(i uint32) int    { return int(i & 0x1ff) }
func opC(i uint32) int    { return int(i>>9) & 0x1ff }
func opBx(i uint32) int   { return int(i & 0x3ffff) }

const rkConstant = 1 << 8

// framePC returns the function and the index of the instruction running in
// the frame dbg describes.
func framePC(dbg *lua.Debug) (*lua.FunctionProto, int, bool) {
	f := reflect.ValueOf(dbg).Elem().FieldByName("frame")
	if !f.IsValid() || f.IsNil() {
		return nil, 0, false
	}
	fr := f.Elem()
	fn, pc := fr.FieldByName("Fn"), fr.FieldByName("Pc")
	if !fn.IsValid() || !pc.IsValid() || fn.IsNil() {
		return nil, 0, false
	}
	proto := fn.Elem().FieldByName("Proto")
	if !proto.IsValid() || proto.IsNil() {
		return nil, 0, false
	}
	p := (*lua.FunctionProto)(proto.UnsafePointer())
	i := int(pc.Int()) - 1
	if i < 0 || i >= len(p.Code) {
		return nil, 0, false
	}
	return p, i, true
}

// localName is luaF_getlocalname: the n-th (from 1) active local at pc.
func localName(p *lua.FunctionProto, n, pc int) string {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc {
			n--
			if n == 0 {
				return l.Name
			}
		}
	}
	return ""
}

func constString(p *lua.FunctionProto, k int) (string, bool) {
	if k < 0 || k >= len(p.Constants) {
		return "", false
	}
	s, ok := p.Constants[k].(lua.LString)
	return string(s), ok
}

// objName is getobjname: how register reg at pc is known in the source.
func objName(p *lua.FunctionProto, pc, reg int, depth int) string {
	name, _ := objNameReg(p, pc, reg, depth)
	return name
}

// objNameReg is objName that also returns, for a local, the register (from
// 0) that holds it, so that its value can be looked at; -1 otherwise.
func objNameReg(p *lua.FunctionProto, pc, reg int, depth int) (string, int) {
	if name := localName(p, reg+1, pc); name != "" {
		return "local '" + name + "'", reg
	}
	if depth > 8 {
		return "", -1
	}
	for i := pc - 1; i >= 0; i-- {
		in := p.Code[i]
		a := opA(in)
		switch opCode(in) {
		case lua.OP_GETGLOBAL:
			if a == reg {
				if s, ok := constString(p, opBx(in)); ok {
					return "global '" + s + "'", -1
				}
				return "", -1
			}
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			if a == reg {
				// kname: a key that is not a constant string shows as '?'.
				if c := opC(in); c&rkConstant != 0 {
					if s, ok := constString(p, c&^rkConstant); ok {
						return "field '" + s + "'", -1
					}
				}
				return "field '?'", -1
			}
		case lua.OP_GETUPVAL:
			if a == reg {
				if b := opB(in); b < len(p.DbgUpvalues) {
					return "upvalue '" + p.DbgUpvalues[b] + "'", -1
				}
				return "", -1
			}
		case lua.OP_SELF:
			if a == reg {
				if c := opC(in); c&rkConstant != 0 {
					if s, ok := constString(p, c&^rkConstant); ok {
						return "method '" + s + "'", -1
					}
				}
				return "", -1
			}
			if a+1 == reg {
				return "", -1
			}
		case lua.OP_MOVE:
			if a == reg {
				if b := opB(in); b < a {
					return objNameReg(p, i, b, depth+1)
				}
				return "", -1
			}
		case lua.OP_LOADNIL:
			if reg >= a && reg <= opB(in) {
				return "", -1
			}
		case lua.OP_JMP, lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_TFORLOOP, lua.OP_CALL, lua.OP_TAILCALL, lua.OP_VARARG:
			// Control flow or multi-register writes: give up rather than
			// name the wrong thing.
			if opCode(in) != lua.OP_JMP && reg >= a {
				return "", -1
			}
			if opCode(in) == lua.OP_JMP {
				return "", -1
			}
		default:
			if a == reg {
				return "", -1
			}
		}
	}
	return "", -1
}

// rkName names an RK operand: constants have no name.
func rkName(p *lua.FunctionProto, pc, rk int) string {
	if rk&rkConstant != 0 {
		return ""
	}
	return objName(p, pc, rk, 0)
}

var reTypeError = regexp.MustCompile(`^(.*?)attempt to (index|perform arithmetic on|concatenate|get length of|call) a (\w+) value$`)

// withVarInfo rewrites msg (already in Lua 5.1 words) to name the variable
// involved, when the instruction that failed in the frame dbg tells it.
// lhsBad says whether the left operand of a binary operation was the bad
// one (gopher-lua's message gives both types).
func withVarInfo(L *lua.LState, msg string, dbg *lua.Debug, lhsBad bool) string {
	m := reTypeError.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	p, pc, ok := framePC(dbg)
	if !ok {
		return msg
	}
	in := p.Code[pc]
	name := ""
	switch op := opCode(in); {
	case m[2] == "index" && (op == lua.OP_GETTABLE || op == lua.OP_GETTABLEKS || op == lua.OP_SELF):
		name = objName(p, pc, opB(in), 0)
	case m[2] == "index" && (op == lua.OP_SETTABLE || op == lua.OP_SETTABLEKS):
		name = objName(p, pc, opA(in), 0)
	case m[2] == "perform arithmetic on" && op >= lua.OP_ADD && op <= lua.OP_POW:
		if lhsBad {
			name = rkName(p, pc, opB(in))
		} else {
			name = rkName(p, pc, opC(in))
		}
	case m[2] == "concatenate" && op == lua.OP_CONCAT && opC(in)-opB(in) == 1:
		if lhsBad {
			name = objName(p, pc, opB(in), 0)
		} else {
			name = objName(p, pc, opC(in), 0)
		}
	case m[2] == "perform arithmetic on" && op == lua.OP_UNM, m[2] == "get length of" && op == lua.OP_LEN:
		// gopher-lua's message has no type here: the variable's value
		// tells it, when it is a local or a global.
		name = nameWithType(L, dbg, p, pc, opB(in), m)
	case m[2] == "call" && (op == lua.OP_CALL || op == lua.OP_TAILCALL):
		name = nameWithType(L, dbg, p, pc, opA(in), m)
	}
	if name == "" {
		return fmt.Sprintf("%sattempt to %s a %s value", m[1], m[2], m[3])
	}
	return fmt.Sprintf("%sattempt to %s %s (a %s value)", m[1], m[2], name, m[3])
}

// nameWithType names register reg and, for a local or a global, sets the
// type in m[3] from its value.
func nameWithType(L *lua.LState, dbg *lua.Debug, p *lua.FunctionProto, pc, reg int, m []string) string {
	name, local := objNameReg(p, pc, reg, 0)
	if L == nil {
		return name
	}
	switch {
	case local >= 0:
		_, v := L.GetLocal(dbg, local+1)
		m[3] = v.Type().String()
	case strings.HasPrefix(name, "global '"):
		v := L.G.Global.RawGetString(strings.TrimSuffix(strings.TrimPrefix(name, "global '"), "'"))
		m[3] = v.Type().String()
	}
	return name
}
