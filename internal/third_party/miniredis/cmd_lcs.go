// scriptgen: LCS, which Redis 7.0 serves and upstream does not, after
// t_string.c's lcsCommand: its dynamic-programming table, its walk back
// through it, and its replies (the string, LEN, or IDX's ranges).

package miniredis

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// lcsOpts are LCS's options.
type lcsOpts struct {
	len, idx, withMatchLen bool
	minMatchLen            int64
}

// lcsRange is one matching range of IDX: a's and b's bytes, inclusive.
type lcsRange struct{ aStart, aEnd, bStart, bEnd int }

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: both keys are
// looked up before the options are read; a missing key is "".
func (m *Miniredis) cmdLcs(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		for _, k := range args[:2] {
			if db.exists(k) && db.t(k) != keyTypeString {
				c.WriteError(msgLcsNotStrings)
				return
			}
		}
		var o lcsOpts
		for j := 2; j < len(args); j++ {
			switch w := strings.ToUpper(args[j]); {
			case w == "IDX":
				o.idx = true
			case w == "LEN":
				o.len = true
			case w == "WITHMATCHLEN":
				o.withMatchLen = true
			case w == "MINMATCHLEN" && j+1 < len(args):
				n, ok := parseInt64(args[j+1])
				if !ok {
					c.WriteError(msgInvalidInt)
					return
				}
				o.minMatchLen = max(n, 0)
				j++
			default:
				c.WriteError(msgSyntaxError)
				return
			}
		}
		if o.idx && o.len {
			c.WriteError(msgLcsIdxAndLen)
			return
		}
		a, b := db.stringKeys[args[0]], db.stringKeys[args[1]]
		if int64(len(a)+1)*int64(len(b)+1)*4 > m.ConfigInt("proto-max-bulk-len") {
			c.WriteError(msgLcsTooBig)
			return
		}
		s, ranges := lcs(a, b, o.minMatchLen)
		switch {
		case o.len:
			c.WriteInt(len(s))
		case o.idx:
			c.WriteMapLen(2)
			c.WriteBulk("matches")
			c.WriteLen(len(ranges))
			for _, r := range ranges {
				c.WriteLen(2 + btoi(o.withMatchLen))
				c.WriteLen(2)
				c.WriteInt(r.aStart)
				c.WriteInt(r.aEnd)
				c.WriteLen(2)
				c.WriteInt(r.bStart)
				c.WriteInt(r.bEnd)
				if o.withMatchLen {
					c.WriteInt(r.aEnd - r.aStart + 1)
				}
			}
			c.WriteBulk("len")
			c.WriteInt(len(s))
		default:
			c.WriteBulk(s)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lcs is the longest common subsequence of a and b that Redis finds, and
// its matching ranges of at least minLen bytes (all for 0), from the end
// of the strings back, as Redis lists them.
func lcs(a, b string, minLen int64) (string, []lcsRange) {
	w := len(b) + 1
	t := make([]uint32, (len(a)+1)*w)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				t[i*w+j] = t[(i-1)*w+j-1] + 1
			} else {
				t[i*w+j] = max(t[(i-1)*w+j], t[i*w+j-1])
			}
		}
	}
	n := t[len(a)*w+len(b)]
	out := make([]byte, n)
	var ranges []lcsRange
	cur, open := lcsRange{}, false
	emit := func() {
		if minLen == 0 || int64(cur.aEnd-cur.aStart+1) >= minLen {
			ranges = append(ranges, cur)
		}
		open = false
	}
	for i, j, k := len(a), len(b), n; i > 0 && j > 0; {
		if a[i-1] == b[j-1] {
			out[k-1] = a[i-1]
			switch {
			case !open:
				cur, open = lcsRange{i - 1, i - 1, j - 1, j - 1}, true
			case cur.aStart == i && cur.bStart == j: // contiguous: extend back
				cur.aStart--
				cur.bStart--
			}
			i, j, k = i-1, j-1, k-1
			if cur.aStart == 0 || cur.bStart == 0 {
				emit()
			}
			continue
		}
		if t[(i-1)*w+j] > t[i*w+j-1] {
			i--
		} else {
			j--
		}
		if open {
			emit()
		}
	}
	return string(out), ranges
}
