// Basic stream implementation.

package miniredis

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// a Stream is a list of entries, lowest ID (oldest) first, and all "groups".
type streamKey struct {
	entries         []StreamEntry
	groups          map[string]*streamGroup
	lastAllocatedID string
	// scriptgen: Redis 7.0's stream metadata (XINFO STREAM, XSETID) and
	// the nodes its entries sit in (see streamNode).
	entriesAdded uint64
	maxDeletedID string // "" for 0-0
	nodes        []streamNode
	nodesLive    int // the sum of nodes' live: len(entries) when they agree
	mu           sync.Mutex
}

// streamNode is one node of Redis's radix tree of listpacks: live entries
// (the next ones of entries, in order) and deleted ones, which still take
// room in the node. scriptgen: approximate trimming ("~") removes whole
// nodes only, so that what it leaves is Redis's; a node is full at
// stream-node-max-entries entries, live and deleted (streamAppendItem).
// stream-node-max-bytes is not modelled: entries of a few dozen bytes,
// as Redis's tests add, fill a node by count first.
type streamNode struct {
	live, deleted int
}

// syncNodes makes nodes hold entries again when they were set whole
// (a copy, RESTORE): in full nodes of max entries, as Redis loads them.
func (s *streamKey) syncNodes(max int) {
	if s.nodesLive == len(s.entries) {
		return
	}
	if max <= 0 {
		max = len(s.entries)
	}
	s.nodes = s.nodes[:0]
	for n := len(s.entries); n > 0; n -= min(n, max) {
		s.nodes = append(s.nodes, streamNode{live: min(n, max)})
	}
	s.nodesLive = len(s.entries)
}

// dropFirst removes the first n entries, all of the first node's live
// ones or fewer.
func (s *streamKey) dropFirst(n int) {
	s.entries = s.entries[n:]
	s.nodesLive -= n
	if s.nodes[0].live == n {
		s.nodes = s.nodes[1:]
		return
	}
	s.nodes[0].live -= n
	s.nodes[0].deleted += n
}

// removeAt removes the entry at i, marked deleted in its node, and the
// node with it when it was its last live one (streamIteratorRemoveEntry).
func (s *streamKey) removeAt(i int) {
	k, at := 0, 0
	for ; at+s.nodes[k].live <= i; k++ {
		at += s.nodes[k].live
	}
	s.entries = append(s.entries[:i], s.entries[i+1:]...)
	s.nodesLive--
	if s.nodes[k].live--; s.nodes[k].live == 0 {
		s.nodes = append(s.nodes[:k], s.nodes[k+1:]...)
	} else {
		s.nodes[k].deleted++
	}
}

// trimNodes is Redis 7.0's streamTrim: whole nodes from the head while the
// stream keeps maxLen entries (byID false) or the node's entries are all
// below minID, at most limit entries (0: no limit); then, unless approx,
// entries from within the next node. It returns the count removed.
func (s *streamKey) trimNodes(byID bool, maxLen int, minID string, approx bool, limit, nodeMax int) int {
	s.syncNodes(nodeMax)
	deleted := 0
	for len(s.nodes) > 0 {
		if !byID && len(s.entries) <= maxLen {
			break
		}
		live := s.nodes[0].live
		if limit > 0 && deleted+live > limit {
			break
		}
		var whole bool
		if byID {
			whole = streamCmp(s.entries[live-1].ID, minID) < 0
		} else {
			whole = len(s.entries)-live >= maxLen
		}
		if whole {
			s.dropFirst(live)
			deleted += live
			continue
		}
		if approx {
			break
		}
		k := 0
		for ; k < live; k++ {
			if !byID && len(s.entries)-k <= maxLen || byID && streamCmp(s.entries[k].ID, minID) >= 0 {
				break
			}
		}
		if k > 0 {
			s.dropFirst(k)
		}
		deleted += k
		break
	}
	return deleted
}

// lastIDNum is the stream's last ID (last-generated-id): the last one
// allocated, which XDEL does not take back and XSETID sets.
func (s *streamKey) lastIDNum() [2]uint64 {
	id, err := parseStreamID(s.lastAllocatedID)
	if s.lastAllocatedID == "" || err != nil {
		id, _ = parseStreamID(s.lastIDUnlocked())
	}
	return id
}

// firstID is recorded-first-entry-id: the first live entry's, or 0-0.
func (s *streamKey) firstID() string {
	if len(s.entries) == 0 {
		return "0-0"
	}
	return s.entries[0].ID
}

// a StreamEntry is an entry in a stream. The ID is always of the form
// "123-123".
// Values is an ordered list of key-value pairs.
type StreamEntry struct {
	ID     string
	Values []string
}

type streamGroup struct {
	stream    *streamKey
	lastID    string
	pending   []pendingEntry
	consumers map[string]*consumer
	// scriptgen: entries_read, the group's logical read counter (Redis
	// 7.0); -1 when unknown.
	entriesRead int64
}

type consumer struct {
	numPendingEntries int
	// these timestamps aren't tracked perfectly
	lastSeen    time.Time // "idle" XINFO key
	lastSuccess time.Time // "inactive" XINFO key
}

type pendingEntry struct {
	id            string
	consumer      string
	deliveryCount int
	lastDelivery  time.Time
}

func newStreamKey() *streamKey {
	return &streamKey{
		groups: map[string]*streamGroup{},
	}
}

// lastID locks the mutex
func (s *streamKey) lastID() string {
	s.mu.Lock()
	defer s.mu.Unlock()

	return s.lastIDUnlocked()
}

// lastID doesn't lock the mutex
func (s *streamKey) lastIDUnlocked() string {
	if len(s.entries) == 0 {
		return "0-0"
	}

	return s.entries[len(s.entries)-1].ID
}

func (s *streamKey) copy() *streamKey {
	s.mu.Lock()
	defer s.mu.Unlock()

	cpy := &streamKey{
		entries:      s.entries,
		entriesAdded: s.entriesAdded, // scriptgen: and the metadata
		maxDeletedID: s.maxDeletedID,
	}
	groups := map[string]*streamGroup{}
	for k, v := range s.groups {
		gr := v.copy()
		gr.stream = cpy
		groups[k] = gr
	}
	cpy.groups = groups
	return cpy
}

// parseStreamID reads a stream ID, "ms" or "ms-seq" (seq 0 when left
// out), as Redis's streamParseStrictIDOrReply does.
func parseStreamID(id string) ([2]uint64, error) {
	res, ok := parseID(id, 0, true)
	if !ok {
		return res, errors.New(msgInvalidStreamID)
	}
	return res, nil
}

// parseID is streamGenericParseIDOrReply (t_stream.c): "-" and "+" unless
// strict, "ms" (seq missingSeq) or "ms-seq", each part read by string2ull,
// which takes what strtoull takes (a '+', leading blanks, "-0").
// scriptgen: upstream read the parts with strconv.ParseUint and split
// "1-2-3" at every dash.
func parseID(s string, missingSeq uint64, strict bool) ([2]uint64, bool) {
	switch {
	case len(s) > 127:
		return [2]uint64{}, false
	case s == "-":
		return [2]uint64{}, !strict
	case s == "+":
		return [2]uint64{math.MaxUint64, math.MaxUint64}, !strict
	}
	msPart, seqPart, dash := strings.Cut(s, "-")
	ms, ok := string2ull(msPart)
	if !ok {
		return [2]uint64{}, false
	}
	seq := missingSeq
	if dash {
		if seq, ok = string2ull(seqPart); !ok {
			return [2]uint64{}, false
		}
	}
	return [2]uint64{ms, seq}, true
}

// string2ull is Redis's (util.c): string2ll's integers when not negative,
// else what strtoull reads whole.
func string2ull(s string) (uint64, bool) {
	if isRedisInteger(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return uint64(n), n >= 0
		}
	}
	return strtoull(s)
}

// strtoull is C's strtoull in base 10 over all of s: blanks first, a
// sign ('-' negates, modulo 2^64), digits, no overflow.
func strtoull(s string) (uint64, bool) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}

// formatID is an ID as Redis writes it.
func formatID(id [2]uint64) string {
	return strconv.FormatUint(id[0], 10) + "-" + strconv.FormatUint(id[1], 10)
}

// compares two stream IDs (of the full format: "123-123"). Returns: -1, 0, 1
// The given IDs should be valid stream IDs.
func streamCmp(a, b string) int {
	ap, _ := parseStreamID(a)
	bp, _ := parseStreamID(b)

	switch {
	case ap[0] < bp[0]:
		return -1
	case ap[0] > bp[0]:
		return 1
	case ap[1] < bp[1]:
		return -1
	case ap[1] > bp[1]:
		return 1
	default:
		return 0
	}
}

// formatStreamID makes a full id ("42-42") out of a partial one ("42")
func formatStreamID(id string) (string, error) {
	ts, ok := parseID(id, 0, true)
	if !ok {
		return "", errInvalidEntryID
	}
	return formatID(ts), nil
}

// formatStreamRangeBound is a range's bound as a full ID: "-", "+", or an
// ID whose missing sequence is the lowest for a start and the highest for
// an end.
func formatStreamRangeBound(id string, start bool, reverse bool) (string, error) {
	missing := uint64(0)
	if start == reverse {
		missing = math.MaxUint64
	}
	ts, ok := parseID(id, missing, false)
	if !ok {
		return "", errInvalidEntryID
	}
	return formatID(ts), nil
}
func reversedStreamEntries(o []StreamEntry) []StreamEntry {
	newStream := make([]StreamEntry, len(o))
	for i, e := range o {
		newStream[len(o)-i-1] = e
	}
	return newStream
}

func (s *streamKey) createGroup(group, id string, entriesRead int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()

	if _, ok := s.groups[group]; ok {
		return errors.New("BUSYGROUP Consumer Group name already exists")
	}

	if id == "$" {
		id = s.lastIDUnlocked()
	}
	s.groups[group] = &streamGroup{
		stream:      s,
		lastID:      id,
		consumers:   map[string]*consumer{},
		entriesRead: entriesRead,
	}
	return nil
}

// add appends an entry with the ID entryID asks for ("*", "<ms>-*" or
// an ID; "" is "*"), made as Redis 7.0's streamAppendItem makes it, in a
// new node when the last has nodeMax entries. Returns the new entry ID.
// `values` should have an even length.
//
// scriptgen: IDs are checked against the stream's last ID, not its last
// entry's (after XDEL of the last entry, XADD of a lower ID is refused,
// as in Redis), "<ms>-*" below the last ID is refused, and a sequence at
// its end goes on at the next millisecond; upstream formatted the
// overflowed sequence.
func (s *streamKey) add(entryID string, values []string, now time.Time, nodeMax int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()

	last := s.lastIDNum()
	if last == [2]uint64{math.MaxUint64, math.MaxUint64} {
		return "", errors.New(msgStreamExhausted)
	}
	var id [2]uint64
	switch {
	case entryID == "" || entryID == "*":
		if ms := uint64(now.UnixMilli()); ms > last[0] {
			id = [2]uint64{ms, 0}
		} else if last[1] < math.MaxUint64 {
			id = [2]uint64{last[0], last[1] + 1}
		} else {
			id = [2]uint64{last[0] + 1, 0}
		}
	case strings.HasSuffix(entryID, "-*"):
		ms, err := strconv.ParseUint(strings.TrimSuffix(entryID, "-*"), 10, 64)
		switch {
		case err != nil:
			return "", errInvalidEntryID
		case ms > last[0]:
			id = [2]uint64{ms, 0}
		case ms == last[0] && last[1] < math.MaxUint64:
			id = [2]uint64{ms, last[1] + 1}
		case ms == last[0]:
			// streamAppendItem's ERANGE, not its EDOM.
			return "", errors.New(msgStreamElementsTooLarge)
		default:
			return "", errors.New(msgStreamIDTooSmall)
		}
	default:
		p, err := formatStreamID(entryID)
		if err != nil {
			return "", err
		}
		id, _ = parseStreamID(p)
		if id == [2]uint64{} {
			return "", errors.New(msgStreamIDZero)
		}
		if id[0] < last[0] || id[0] == last[0] && id[1] <= last[1] {
			return "", errors.New(msgStreamIDTooSmall)
		}
	}
	newID := formatID(id)

	s.syncNodes(nodeMax)
	if n := len(s.nodes); n == 0 || nodeMax > 0 && s.nodes[n-1].live+s.nodes[n-1].deleted >= nodeMax {
		s.nodes = append(s.nodes, streamNode{live: 1})
	} else {
		s.nodes[n-1].live++
	}
	s.nodesLive++
	s.entries = append(s.entries, StreamEntry{
		ID:     newID,
		Values: values,
	})
	s.lastAllocatedID = newID
	s.entriesAdded++
	return newID, nil
}

// all entries after "id"
func (s *streamKey) after(id string) []StreamEntry {
	s.mu.Lock()
	defer s.mu.Unlock()

	pos := sort.Search(len(s.entries), func(i int) bool {
		return streamCmp(id, s.entries[i].ID) < 0
	})
	return s.entries[pos:]
}

// get a stream entry by ID
// Also returns the position in the entries slice, if found.
func (s *streamKey) get(id string) (int, *StreamEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()

	pos := sort.Search(len(s.entries), func(i int) bool {
		return streamCmp(id, s.entries[i].ID) <= 0
	})
	if len(s.entries) <= pos || s.entries[pos].ID != id {
		return 0, nil
	}
	return pos, &s.entries[pos]
}

func (g *streamGroup) readGroup(
	now time.Time,
	consumerID,
	id string,
	count int,
	noack bool,
) []StreamEntry {
	if id == ">" {
		// undelivered messages
		msgs := g.stream.after(g.lastID)
		if len(msgs) == 0 {
			return nil
		}

		if count > 0 && len(msgs) > count {
			msgs = msgs[:count]
		}

		if !noack {
			shouldAppend := len(g.pending) == 0
			for _, msg := range msgs {
				if !shouldAppend {
					shouldAppend = streamCmp(msg.ID, g.pending[len(g.pending)-1].id) == 1
				}

				var entry *pendingEntry
				if shouldAppend {
					g.pending = append(g.pending, pendingEntry{})
					entry = &g.pending[len(g.pending)-1]
				} else {
					var pos int
					pos, entry = g.searchPending(msg.ID)
					if entry == nil {
						g.pending = append(g.pending[:pos+1], g.pending[pos:]...)
						entry = &g.pending[pos]
					} else {
						g.consumers[entry.consumer].numPendingEntries--
					}
				}

				*entry = pendingEntry{
					id:            msg.ID,
					consumer:      consumerID,
					deliveryCount: 1,
					lastDelivery:  now,
				}
			}
		}
		if _, ok := g.consumers[consumerID]; !ok {
			g.consumers[consumerID] = &consumer{}
		}
		g.consumers[consumerID].numPendingEntries += len(msgs)
		for _, msg := range msgs {
			g.delivered(msg.ID)
		}
		return msgs
	}

	// re-deliver messages from the pending list.
	// con := gr.consumers[consumerID]
	msgs := g.pendingAfter(id)
	var res []StreamEntry
	for i, p := range msgs {
		if p.consumer != consumerID {
			continue
		}
		_, entry := g.stream.get(p.id)
		if entry == nil {
			// scriptgen: deleted from the stream, still pending: the
			// ID with no body, and no delivery counted, as Redis's
			// streamReplyWithRangeFromConsumerPEL does (upstream left
			// it out). Nil Values marks it for writeXread.
			res = append(res, StreamEntry{ID: p.id})
			continue
		}
		p.deliveryCount += 1
		p.lastDelivery = now
		msgs[i] = p
		res = append(res, *entry)
	}
	return res
}

func (g *streamGroup) searchPending(id string) (int, *pendingEntry) {
	pos := sort.Search(len(g.pending), func(i int) bool {
		return streamCmp(id, g.pending[i].id) <= 0
	})
	if pos >= len(g.pending) || g.pending[pos].id != id {
		return pos, nil
	}
	return pos, &g.pending[pos]
}

func (g *streamGroup) ack(ids []string) (int, error) {
	// scriptgen: every ID is read before any is acknowledged, as Redis
	// does; upstream acknowledged those before a bad one.
	for _, id := range ids {
		if _, err := parseStreamID(id); err != nil {
			return 0, errors.New(msgInvalidStreamID)
		}
	}
	count := 0
	for _, id := range ids {
		id, _ = formatStreamID(id)

		pos, entry := g.searchPending(id)
		if entry == nil {
			continue
		}

		consumer := g.consumers[entry.consumer]
		consumer.numPendingEntries--

		g.pending = append(g.pending[:pos], g.pending[pos+1:]...)
		// don't count deleted entries
		if _, e := g.stream.get(id); e == nil {
			continue
		}
		count++
	}
	return count, nil
}

// delete is XDEL: it removes the entries of ids and remembers the
// highest ID it removed (max-deleted-entry-id).
func (s *streamKey) delete(ids []string, nodeMax int) (int, error) {
	for _, id := range ids {
		if _, err := parseStreamID(id); err != nil {
			return 0, errors.New(msgInvalidStreamID)
		}
	}
	s.syncNodes(nodeMax)
	count := 0
	for _, id := range ids {
		id, _ = formatStreamID(id)
		i, entry := s.get(id)
		if entry == nil {
			continue
		}
		s.removeAt(i)
		if s.maxDeletedID == "" || streamCmp(id, s.maxDeletedID) > 0 {
			s.maxDeletedID = id
		}
		count++
	}
	return count, nil
}

func (g *streamGroup) pendingAfterOrEqual(id string) []pendingEntry {
	pos := sort.Search(len(g.pending), func(i int) bool {
		return streamCmp(id, g.pending[i].id) <= 0
	})
	return g.pending[pos:]
}

func (g *streamGroup) pendingAfter(id string) []pendingEntry {
	pos := sort.Search(len(g.pending), func(i int) bool {
		return streamCmp(id, g.pending[i].id) < 0
	})
	return g.pending[pos:]
}

func (g *streamGroup) pendingCount(consumer string) int {
	n := 0
	// scriptgen: the whole PEL, entries deleted from the stream
	// included, as Redis keeps them until XACK or XAUTOCLAIM; upstream
	// left those out here, in XPENDING's summary and in XINFO GROUPS.
	for _, p := range g.pending {
		if p.consumer == consumer {
			n++
		}
	}
	return n
}

func (g *streamGroup) copy() *streamGroup {
	cns := map[string]*consumer{}
	for k, v := range g.consumers {
		c := *v
		cns[k] = &c
	}
	return &streamGroup{
		// don't copy stream
		lastID:      g.lastID,
		pending:     g.pending,
		consumers:   cns,
		entriesRead: g.entriesRead,
	}
}

func (g *streamGroup) setLastSeen(c string, t time.Time) {
	cons, ok := g.consumers[c]
	if !ok {
		cons = &consumer{}
	}
	cons.lastSeen = t
	g.consumers[c] = cons
}

func (g *streamGroup) setLastSuccess(c string, t time.Time) {
	g.setLastSeen(c, t)
	g.consumers[c].lastSuccess = t
}
