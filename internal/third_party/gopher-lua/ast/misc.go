package ast

type Field struct {
	Key   Expr
	Value Expr
}

type ParList struct {
	HasVargs bool
	Names    []string
	// scriptgen: the column of each name, and of `...`.
	NameColumns   []int
	VarargsColumn int
}

type FuncName struct {
	Func     Expr
	Receiver Expr
	Method   string
}
