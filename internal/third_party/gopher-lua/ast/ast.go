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
// source again; 0 when the parser did not set one.
type Node struct {
	line     int
	lastline int
	column   int
}

func (self *Node) Line() int {
	return self.line
}

func (self *Node) SetLine(line int) {
	self.line = line
}

func (self *Node) LastLine() int {
	return self.lastline
}

func (self *Node) SetLastLine(line int) {
	self.lastline = line
}

func (self *Node) Column() int {
	return self.column
}

func (self *Node) SetColumn(col int) {
	self.column = col
}
