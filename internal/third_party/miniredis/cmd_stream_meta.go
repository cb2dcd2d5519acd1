package miniredis

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: the parts of Redis 7.0's streams upstream lacks (issue 28):
// XSETID, XINFO STREAM's 7.0 fields and its FULL form, and the bounds of
// an exclusive XRANGE. Read from t_stream.c of Redis 7.0.15.

const (
	msgXsetidSmaller       = "ERR The ID specified in XSETID is smaller than the target stream top item"
	msgXsetidMaxDeleted    = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	msgXsetidEntriesAdded  = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	msgXsetidNegative      = "ERR entries_added must be positive"
	msgInvalidStartID      = "ERR invalid start ID for the interval"
	msgInvalidEndID        = "ERR invalid end ID for the interval"
	xinfoStreamFullDefault = 10
)

// parseIntervalID is streamParseIntervalIDOrReply: an ID, or "(" and a
// strict ID for an exclusive bound.
func parseIntervalID(s string, missingSeq uint64) (id [2]uint64, exclusive, ok bool) {
	if len(s) > 1 && s[0] == '(' {
		id, ok = parseID(s[1:], missingSeq, true)
		return id, true, ok
	}
	id, ok = parseID(s, missingSeq, false)
	return id, false, ok
}

// incrID and decrID are streamIncrID and streamDecrID of an ID that has a
// next or a previous one.
func incrID(id [2]uint64) [2]uint64 {
	if id[1] == math.MaxUint64 {
		return [2]uint64{id[0] + 1, 0}
	}
	return [2]uint64{id[0], id[1] + 1}
}

func decrID(id [2]uint64) [2]uint64 {
	if id[1] == 0 {
		return [2]uint64{id[0] - 1, math.MaxUint64}
	}
	return [2]uint64{id[0], id[1] - 1}
}

// between is the entries from start to end (both in), the highest first
// when reverse, at most count of them (-1: all).
func (s *streamKey) between(start, end [2]uint64, reverse bool, count int64) []StreamEntry {
	var out []StreamEntry
	in := func(e StreamEntry) bool {
		id, _ := parseStreamID(e.ID)
		return !idLess(id, start) && !idLess(end, id)
	}
	for i := range s.entries {
		if count >= 0 && int64(len(out)) == count {
			break
		}
		e := s.entries[i]
		if reverse {
			e = s.entries[len(s.entries)-1-i]
		}
		if in(e) {
			out = append(out, e)
		}
	}
	return out
}

func idLess(a, b [2]uint64) bool {
	return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
}

// parseStrictID is streamParseStrictIDOrReply: "ms" or "ms-seq", no "-",
// "+" or "*".
func parseStrictID(s string) (string, error) {
	if s == "" || strings.ContainsAny(s, "*+") || s == "-" {
		return "", errors.New(msgInvalidStreamID)
	}
	id, err := formatStreamID(s)
	if err != nil {
		return "", errors.New(msgInvalidStreamID)
	}
	return id, nil
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func (m *Miniredis) cmdXsetid(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}
	key := args[0]
	id, err := parseStrictID(args[1])
	if err != nil {
		setDirty(c)
		c.WriteError(err.Error())
		return
	}
	entriesAdded, maxDeleted := int64(-1), ""
	for i := 2; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch opt := strings.ToUpper(args[i]); {
		case opt == "ENTRIESADDED" && more:
			n, err := strconv.ParseInt(args[i+1], 10, 64)
			if err != nil || !isRedisInteger(args[i+1]) {
				setDirty(c)
				c.WriteError(msgInvalidInt)
				return
			}
			if n < 0 {
				setDirty(c)
				c.WriteError(msgXsetidNegative)
				return
			}
			entriesAdded = n
		case opt == "MAXDELETEDID" && more:
			d, err := parseStrictID(args[i+1])
			if err != nil {
				setDirty(c)
				c.WriteError(err.Error())
				return
			}
			if streamCmp(id, d) < 0 {
				setDirty(c)
				c.WriteError(msgXsetidMaxDeleted)
				return
			}
			maxDeleted = d
		default:
			setDirty(c)
			c.WriteError(msgSyntaxError)
			return
		}
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		s, err := db.stream(key)
		if err != nil {
			c.WriteError(err.Error())
			return
		}
		if s == nil {
			c.WriteError(msgKeyNotFound)
			return
		}
		if len(s.entries) > 0 {
			if streamCmp(id, s.lastIDUnlocked()) < 0 {
				c.WriteError(msgXsetidSmaller)
				return
			}
			if entriesAdded != -1 && int64(len(s.entries)) > entriesAdded {
				c.WriteError(msgXsetidEntriesAdded)
				return
			}
		}
		s.lastAllocatedID = id
		if entriesAdded != -1 {
			s.entriesAdded = uint64(entriesAdded)
		}
		if maxDeleted != "" && maxDeleted != "0-0" {
			s.maxDeletedID = maxDeleted
		}
		db.incr(key)
		c.WriteOK()
	})
}

// XINFO STREAM key [FULL [COUNT count]], as xinfoReplyWithStreamInfo
// answers it.
func (m *Miniredis) cmdXinfoStream(c *server.Peer, args []string) {
	if len(args) < 1 {
		setDirty(c)
		c.WriteError(errWrongNumber("STREAM"))
		return
	}
	key, opts := args[0], args[1:]
	full, count := len(opts) > 0, int64(xinfoStreamFullDefault)
	if full {
		if len(opts) != 1 && len(opts) != 3 || !strings.EqualFold(opts[0], "FULL") ||
			len(opts) == 3 && !strings.EqualFold(opts[1], "COUNT") {
			setDirty(c)
			c.WriteError("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.")
			return
		}
		if len(opts) == 3 {
			n, err := strconv.ParseInt(opts[2], 10, 64)
			if err != nil || !isRedisInteger(opts[2]) {
				setDirty(c)
				c.WriteError(msgInvalidInt)
				return
			}
			if n >= 0 {
				count = n
			}
		}
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		s, err := db.stream(key)
		if err != nil {
			c.WriteError(err.Error())
			return
		}
		if s == nil {
			c.WriteError(msgKeyNotFound)
			return
		}
		s.syncNodes(m.nodeMax())
		if full {
			c.WriteMapLen(9)
		} else {
			c.WriteMapLen(10)
		}
		maxDeleted := s.maxDeletedID
		if maxDeleted == "" {
			maxDeleted = "0-0"
		}
		last := s.lastAllocatedID
		if last == "" {
			last = s.lastIDUnlocked()
		}
		c.WriteBulk("length")
		c.WriteInt(len(s.entries))
		c.WriteBulk("radix-tree-keys")
		c.WriteInt(len(s.nodes))
		c.WriteBulk("radix-tree-nodes")
		c.WriteInt(raxNodes(s))
		c.WriteBulk("last-generated-id")
		c.WriteBulk(last)
		c.WriteBulk("max-deleted-entry-id")
		c.WriteBulk(maxDeleted)
		c.WriteBulk("entries-added")
		c.WriteInt(int(min(s.entriesAdded, math.MaxInt64)))
		c.WriteBulk("recorded-first-entry-id")
		c.WriteBulk(s.firstID())
		if !full {
			c.WriteBulk("groups")
			c.WriteInt(len(s.groups))
			c.WriteBulk("first-entry")
			writeStreamEntryOrNull(c, s.entries, 0)
			c.WriteBulk("last-entry")
			writeStreamEntryOrNull(c, s.entries, len(s.entries)-1)
			return
		}
		entries := s.entries
		if count > 0 && int64(len(entries)) > count {
			entries = entries[:count]
		}
		c.WriteBulk("entries")
		c.WriteLen(len(entries))
		for _, e := range entries {
			writeStreamEntry(c, e)
		}
		c.WriteBulk("groups")
		m.writeXinfoFullGroups(c, s, count)
	})
}

func writeStreamEntry(c *server.Peer, e StreamEntry) {
	c.WriteLen(2)
	c.WriteBulk(e.ID)
	c.WriteLen(len(e.Values))
	for _, v := range e.Values {
		c.WriteBulk(v)
	}
}

func writeStreamEntryOrNull(c *server.Peer, entries []StreamEntry, i int) {
	if i < 0 || i >= len(entries) {
		c.WriteNull()
		return
	}
	writeStreamEntry(c, entries[i])
}

// raxNodes estimates the radix tree's node count (radix-tree-nodes),
// which depends on how the nodes' 16-byte keys share prefixes: two nodes
// a key (exact for one key: a compressed node and its leaf), the root
// alone for none. No test of Redis's reads it.
func raxNodes(s *streamKey) int {
	return max(1, 2*len(s.nodes))
}

// writeXinfoFullGroups writes XINFO STREAM FULL's groups: in name order,
// as Redis's rax keeps them, each pending list and consumer's cut at count
// (0: all).
func (m *Miniredis) writeXinfoFullGroups(c *server.Peer, s *streamKey, count int64) {
	names := make([]string, 0, len(s.groups))
	for name := range s.groups {
		names = append(names, name)
	}
	sort.Strings(names)
	cut := func(n int) int {
		if count > 0 && int64(n) > count {
			return int(count)
		}
		return n
	}
	c.WriteLen(len(names))
	for _, name := range names {
		g := s.groups[name]
		c.WriteMapLen(7)
		c.WriteBulk("name")
		c.WriteBulk(name)
		c.WriteBulk("last-delivered-id")
		c.WriteBulk(g.lastID)
		c.WriteBulk("entries-read")
		c.WriteNull()
		c.WriteBulk("lag")
		c.WriteInt(len(s.entries))
		c.WriteBulk("pel-count")
		c.WriteInt(len(g.pending))
		c.WriteBulk("pending")
		pel := g.pending[:cut(len(g.pending))]
		c.WriteLen(len(pel))
		for _, p := range pel {
			c.WriteLen(4)
			c.WriteBulk(p.id)
			c.WriteBulk(p.consumer)
			c.WriteInt(int(p.lastDelivery.UnixMilli()))
			c.WriteInt(p.deliveryCount)
		}
		consumers := make([]string, 0, len(g.consumers))
		for name := range g.consumers {
			consumers = append(consumers, name)
		}
		sort.Strings(consumers)
		c.WriteBulk("consumers")
		c.WriteLen(len(consumers))
		for _, cn := range consumers {
			var own []pendingEntry
			for _, p := range g.pending {
				if p.consumer == cn {
					own = append(own, p)
				}
			}
			c.WriteMapLen(4)
			c.WriteBulk("name")
			c.WriteBulk(cn)
			c.WriteBulk("seen-time")
			c.WriteInt(int(g.consumers[cn].lastSeen.UnixMilli()))
			c.WriteBulk("pel-count")
			c.WriteInt(len(own))
			c.WriteBulk("pending")
			own = own[:cut(len(own))]
			c.WriteLen(len(own))
			for _, p := range own {
				c.WriteLen(3)
				c.WriteBulk(p.id)
				c.WriteInt(int(p.lastDelivery.UnixMilli()))
				c.WriteInt(p.deliveryCount)
			}
		}
	}
}
