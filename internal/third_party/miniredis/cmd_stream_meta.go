package miniredis

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: the parts of Redis 7.0's streams upstream lacks (issue 28):
// XSETID, XINFO STREAM's 7.0 fields and its FULL form, and the bounds of
// an exclusive XRANGE. Read from t_stream.c of Redis 7.0.15.

// The COUNTs Redis takes when none is given.
const (
	xinfoStreamFullDefault = 10
	xautoclaimDefaultCount = 100
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

// intervalBound reads a range's start (start) or end as Redis's range
// commands do: an ID, "-" or "+", or "(" and an ID for an exclusive bound,
// moved to the next or previous ID; msg is Redis's error.
func intervalBound(arg string, start bool) (id [2]uint64, msg string) {
	missing := uint64(0)
	if !start {
		missing = math.MaxUint64
	}
	id, exclusive, ok := parseIntervalID(arg, missing)
	switch {
	case !ok:
		return id, msgInvalidStreamID
	case !exclusive:
		return id, ""
	case start && id == [2]uint64{math.MaxUint64, math.MaxUint64}:
		return id, msgInvalidStartID
	case start:
		return incrID(id), ""
	case id == [2]uint64{}:
		return id, msgInvalidEndID
	}
	return decrID(id), ""
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
		g.writeEntriesRead(c)
		c.WriteBulk("lag")
		g.writeLag(c)
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

// Consumer groups' read counters (entries_read) and lag, as Redis 7.0
// keeps them (t_stream.c: streamReplyWithRange, streamReplyWithCGLag,
// streamEstimateDistanceFromFirstEverEntry).

// delivered moves the group past the entry id it delivers.
func (g *streamGroup) delivered(id string) {
	s := g.stream
	if streamCmp(id, g.lastID) <= 0 {
		return
	}
	switch {
	case g.entriesRead != -1 && !s.hasTombstones(id):
		g.entriesRead++
	case s.entriesAdded != 0:
		g.entriesRead = s.distanceFromFirstEver(id)
	}
	g.lastID = id
}

// hasTombstones is streamRangeHasTombstones from start to the end.
func (s *streamKey) hasTombstones(start string) bool {
	if len(s.entries) == 0 || s.maxDeletedID == "" || s.maxDeletedID == "0-0" {
		return false
	}
	if streamCmp(s.firstID(), s.maxDeletedID) > 0 {
		return false
	}
	return streamCmp(start, s.maxDeletedID) <= 0
}

// distanceFromFirstEver is streamEstimateDistanceFromFirstEverEntry: id's
// read counter, -1 when it cannot be known.
func (s *streamKey) distanceFromFirstEver(id string) int64 {
	added := int64(min(s.entriesAdded, math.MaxInt64))
	if added == 0 {
		return 0
	}
	last := formatID(s.lastIDNum())
	cmpLast := streamCmp(id, last)
	switch {
	case len(s.entries) == 0 && cmpLast < 1, cmpLast == 0:
		return added
	case cmpLast > 0:
		return -1
	}
	first := s.firstID()
	if s.maxDeletedID == "" || s.maxDeletedID == "0-0" || streamCmp(s.maxDeletedID, first) < 0 {
		switch streamCmp(id, first) {
		case -1:
			return added - int64(len(s.entries))
		case 0:
			return added - int64(len(s.entries)) + 1
		}
	}
	return -1
}

// writeLag writes the group's lag, or null where Redis cannot tell it.
func (g *streamGroup) writeLag(c *server.Peer) {
	s := g.stream
	added := int64(min(s.entriesAdded, math.MaxInt64))
	switch {
	case added == 0:
		c.WriteInt(0)
	case g.entriesRead != -1 && !s.hasTombstones(g.lastID):
		c.WriteInt(int(added - g.entriesRead))
	default:
		if read := s.distanceFromFirstEver(g.lastID); read != -1 {
			c.WriteInt(int(added - read))
			return
		}
		c.WriteNull()
	}
}

// writeEntriesRead writes the group's read counter, null when unknown.
func (g *streamGroup) writeEntriesRead(c *server.Peer) {
	if g.entriesRead == -1 {
		c.WriteNull()
		return
	}
	c.WriteInt(int(g.entriesRead))
}

// xgroupOptions reads XGROUP CREATE's (create) or SETID's options after
// the ID, as xgroupCommand does; msg is Redis's error.
func xgroupOptions(sub string, opts []string, create bool) (mkstream bool, entriesRead int64, msg string) {
	entriesRead = -1
	for i := 0; i < len(opts); i++ {
		switch {
		case create && strings.EqualFold(opts[i], "MKSTREAM"):
			mkstream = true
		case strings.EqualFold(opts[i], "ENTRIESREAD") && i+1 < len(opts):
			n, err := strconv.ParseInt(opts[i+1], 10, 64)
			if err != nil || !isRedisInteger(opts[i+1]) {
				return false, 0, msgInvalidInt
			}
			if n < -1 {
				return false, 0, msgEntriesReadNegative
			}
			entriesRead = n
			i++
		default:
			return false, 0, "ERR unknown subcommand or wrong number of arguments for '" + sub + "'. Try XGROUP HELP."
		}
	}
	return mkstream, entriesRead, ""
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
func (m *Miniredis) cmdXgroupCreate(c *server.Peer, cmd string, args []string) {
	m.xgroupSetOrCreate(c, "CREATE", args)
}

// XGROUP SETID key group id|$ [ENTRIESREAD n]
func (m *Miniredis) cmdXgroupSetid(c *server.Peer, cmd string, args []string) {
	m.xgroupSetOrCreate(c, "SETID", args)
}

// xgroupSetOrCreate is xgroupCommand's CREATE and SETID: options, then
// the key and its type, then the group, then the ID.
func (m *Miniredis) xgroupSetOrCreate(c *server.Peer, sub string, args []string) {
	key, group, idArg := args[0], args[1], args[2]
	create := sub == "CREATE"
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		mkstream, entriesRead, msg := xgroupOptions(sub, args[3:], create)
		if msg != "" {
			c.WriteError(msg)
			return
		}
		db := m.db(ctx.selectedDB)
		s, err := db.stream(key)
		if err != nil {
			c.WriteError(err.Error())
			return
		}
		if s == nil && !mkstream {
			c.WriteError(msgXgroupKeyNotFound)
			return
		}
		var g *streamGroup
		if !create {
			if g = s.groups[group]; g == nil {
				c.WriteError("NOGROUP No such consumer group '" + group + "' for key name '" + key + "'")
				return
			}
			if len(args) != 3 && len(args) != 5 {
				c.WriteError("ERR unknown subcommand or wrong number of arguments for '" + sub + "'. Try XGROUP HELP.")
				return
			}
		}
		var id string
		switch {
		case idArg == "$" && s != nil:
			id = formatID(s.lastIDNum())
		case idArg == "$":
			id = "0-0"
		default:
			ts, ok := parseID(idArg, 0, create)
			if !ok {
				c.WriteError(msgInvalidStreamID)
				return
			}
			id = formatID(ts)
		}
		if !create {
			g.lastID, g.entriesRead = id, entriesRead
			db.incr(key)
			c.WriteOK()
			return
		}
		if s == nil {
			s, _ = db.newStream(key)
		}
		if err := s.createGroup(group, id, entriesRead); err != nil {
			c.WriteError(err.Error())
			return
		}
		db.incr(key)
		c.WriteOK()
	})
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
//
// As xautoclaimCommand: its arguments read when it runs, before the key;
// COUNT between 1 and LONG_MAX/16 ("COUNT must be > 0"); at most
// 10×COUNT pending entries looked at; a pending entry whose stream entry
// is gone leaves the PEL, counts against COUNT and is listed in the
// reply's third element; JUSTID claims without counting a delivery.
// Upstream kept deleted entries pending and answered an empty third
// element, read COUNT as any integer and its arguments before MULTI ran.
func (m *Miniredis) cmdXautoclaim(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(5)) {
		return
	}
	key, group, name := args[0], args[1], args[2]
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if !isRedisInteger(args[3]) {
			c.WriteError("ERR Invalid min-idle-time argument for XAUTOCLAIM")
			return
		}
		minIdle, _ := strconv.ParseInt(args[3], 10, 64)
		start, msg := intervalBound(args[4], true)
		if msg != "" {
			c.WriteError(msg)
			return
		}
		count, justID := int64(xautoclaimDefaultCount), false
		for j := 5; j < len(args); j++ {
			switch {
			case strings.EqualFold(args[j], "COUNT") && j+1 < len(args):
				n, err := strconv.ParseInt(args[j+1], 10, 64)
				if err != nil || !isRedisInteger(args[j+1]) || n < 1 || n > math.MaxInt64/16 {
					c.WriteError(msgXautoclaimCount)
					return
				}
				count = n
				j++
			case strings.EqualFold(args[j], "JUSTID"):
				justID = true
			default:
				c.WriteError(msgSyntaxError)
				return
			}
		}
		db := m.db(ctx.selectedDB)
		s, err := db.stream(key)
		if err != nil {
			c.WriteError(err.Error())
			return
		}
		var g *streamGroup
		if s != nil {
			g = s.groups[group]
		}
		if g == nil {
			c.WriteError("NOGROUP No such key '" + key + "' or consumer group '" + group + "'")
			return
		}
		next, claimed, deleted := g.autoclaim(m.effectiveNow(), minIdle, formatID(start), count, name, justID)
		c.WriteLen(3)
		c.WriteBulk(next)
		c.WriteLen(len(claimed))
		for _, e := range claimed {
			if justID {
				c.WriteBulk(e.ID)
			} else {
				writeStreamEntry(c, e)
			}
		}
		c.WriteStrings(deleted)
		db.incr(key)
	})
}

// autoclaim is XAUTOCLAIM's loop over the PEL from start: the cursor for
// the next call, the entries claimed and the IDs dropped as deleted.
func (g *streamGroup) autoclaim(now time.Time, minIdle int64, start string, count int64, name string, justID bool) (string, []StreamEntry, []string) {
	var (
		claimed  []StreamEntry
		deleted  []string
		attempts = count * 10
	)
	i, _ := g.searchPending(start)
	for ; attempts > 0 && count > 0 && i < len(g.pending); attempts-- {
		p := &g.pending[i]
		_, entry := g.stream.get(p.id)
		if entry == nil {
			if owner := g.consumers[p.consumer]; owner != nil {
				owner.numPendingEntries--
			}
			deleted = append(deleted, p.id)
			g.pending = append(g.pending[:i], g.pending[i+1:]...)
			count--
			continue
		}
		if minIdle > 0 && now.Sub(p.lastDelivery).Milliseconds() < minIdle {
			i++
			continue
		}
		if g.consumers[name] == nil {
			g.consumers[name] = &consumer{}
		}
		if p.consumer != name {
			if owner := g.consumers[p.consumer]; owner != nil {
				owner.numPendingEntries--
			}
			g.consumers[name].numPendingEntries++
			p.consumer = name
		}
		p.lastDelivery = now
		if !justID {
			p.deliveryCount++
		}
		claimed = append(claimed, *entry)
		count--
		i++
	}
	next := "0-0"
	if i < len(g.pending) {
		next = g.pending[i].id
	}
	return next, claimed, deleted
}

// blockedGroupGone is Redis's answer to an XREADGROUP blocked on streams
// of which one went away (deleted, flushed, another type now) or lost the
// group meanwhile (blocked.c), or "" while all are there.
func blockedGroupGone(db *RedisDB, streams []string, group string) string {
	for _, key := range streams {
		s, err := db.stream(key)
		if err != nil || s == nil {
			return msgStreamKeyGone
		}
		if s.groups[group] == nil {
			return msgBlockedGroupGone
		}
	}
	return ""
}
