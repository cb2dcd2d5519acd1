package miniredis

import (
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: ZRANGESTORE, which Redis 6.2 added and upstream does not
// serve. It runs ZRANGE's own code on a peer that collects the members
// instead of sending them, so that every range form and error is ZRANGE's,
// then stores them with their scores.

func commandsZrangestore(m *Miniredis) {
	m.srv.Register("ZRANGESTORE", m.cmdZrangestore)
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
func (m *Miniredis) cmdZrangestore(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(4)) {
		return
	}
	dst, src := args[0], args[1:]
	for i := 3; i < len(src); i++ {
		switch strings.ToLower(src[i]) {
		case "withscores":
			setDirty(c)
			c.WriteError(msgSyntaxError)
			return
		case "limit":
			i += 2
		}
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		var got collected
		p := server.NewPeer(nil)
		p.SetSink(&got)
		PrepareNested(p, ctx.selectedDB, "")
		m.cmdZrange(p, "zrange", src)
		if got.err != "" {
			c.WriteError(got.err)
			return
		}
		db := m.db(ctx.selectedDB)
		scores := db.sortedSet(src[0]) // read before dst, which may be src, goes
		db.del(dst, true)
		if len(got.values) == 0 {
			c.WriteInt(0)
			return
		}
		set := newSortedSet()
		for _, member := range got.values {
			set[member] = scores[member]
		}
		db.ssetSet(dst, set)
		c.WriteInt(len(set))
	})
}

// collected is a Sink keeping the bulk strings of a flat reply, or its
// error.
type collected struct {
	values []string
	err    string
}

func (s *collected) Error(msg string) { s.err = msg }
func (s *collected) Bulk(v string)    { s.values = append(s.values, v) }
func (s *collected) Double(f float64) {
	s.values = append(s.values, strconv.FormatFloat(f, 'g', -1, 64))
}
func (s *collected) Status(string) {}
func (s *collected) Int(int)       {}
func (s *collected) Null()         {}
func (s *collected) Array(int)     {}
func (s *collected) Map(int)       {}
func (s *collected) Set(int)       {}
func (s *collected) Push(int)      {}
func (s *collected) Raw(string)    {}
