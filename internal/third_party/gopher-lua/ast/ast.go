package ast

type PositionHolder interface {
	Line() int
	SetLine(int)
	LastLine() int
	SetLastLine(int)
	// scriptgen: Column and SetColumn, see Node.
	Column() int
	SetColumn(int)
}

// Node's column (scriptgen) is the 1-based byte column of the token its
// Line was taken from, so that tools point at a node without lexing the
// source again; 0 when the parser did not set one. The three are int32
// (scriptgen), so that a node, which every expression and statement
// embeds, is smaller than upstream's two ints rather than larger.
type Node struct {
	line     int32
	lastline int32
	column   int32
}

func (self *Node) Line() int {
	return int(self.line)
}

func (self *Node) SetLine(line int) {
	self.line = int32(line)
}

func (self *Node) LastLine() int {
	return int(self.lastline)
}

func (self *Node) SetLastLine(line int) {
	self.lastline = int32(line)
}

func (self *Node) Column() int {
	return int(self.column)
}

func (self *Node) SetColumn(col int) {
	self.column = int32(col)
}
