package rdb

import (
	"encoding/binary"
	"math"
)

// stream reads RDB_TYPE_STREAM_LISTPACKS (v2 false) and _2.
func (r *reader) stream(v2 bool) (Value, error) {
	nodes, err := r.count()
	if err != nil {
		return nil, err
	}
	s := &Stream{}
	for i := 0; i < nodes; i++ {
		key, err := r.str()
		if err != nil {
			return nil, err
		}
		if len(key) != 16 {
			return nil, ErrBadData // "Stream node key entry is not the size of a stream ID"
		}
		master := StreamID{binary.BigEndian.Uint64([]byte(key)), binary.BigEndian.Uint64([]byte(key[8:]))}
		blob, err := r.str()
		if err != nil {
			return nil, err
		}
		es, err := parseListpack([]byte(blob))
		if err != nil || len(es) == 0 {
			return nil, ErrBadData
		}
		entries, err := streamNode(master, es)
		if err != nil {
			return nil, err
		}
		s.Entries = append(s.Entries, entries...)
	}
	length, err := r.len()
	if err != nil || length != uint64(len(s.Entries)) {
		return nil, ErrBadData
	}
	if s.LastID, err = r.lenID(); err != nil {
		return nil, err
	}
	if v2 {
		if s.FirstID, err = r.lenID(); err != nil {
			return nil, err
		}
		if s.MaxDeletedID, err = r.lenID(); err != nil {
			return nil, err
		}
		if s.EntriesAdded, err = r.len(); err != nil {
			return nil, err
		}
	} else {
		// Redis 6 kept neither: 7.0 assumes nothing was ever deleted.
		if len(s.Entries) > 0 {
			s.FirstID = s.Entries[0].ID
		}
		s.EntriesAdded = length
	}
	groups, err := r.count()
	if err != nil {
		return nil, err
	}
	for i := 0; i < groups; i++ {
		g, err := r.group(s, v2)
		if err != nil {
			return nil, err
		}
		s.Groups = append(s.Groups, g)
	}
	return s, nil
}

func (r *reader) group(s *Stream, v2 bool) (Group, error) {
	var g Group
	var err error
	if g.Name, err = r.str(); err != nil {
		return g, err
	}
	if g.LastID, err = r.lenID(); err != nil {
		return g, err
	}
	if v2 {
		n, err := r.len()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(n)
	} else {
		g.EntriesRead = estimateEntriesRead(s, g.LastID)
	}
	n, err := r.count()
	if err != nil {
		return g, err
	}
	index := map[StreamID]int{}
	for i := 0; i < n; i++ {
		var p Pending
		if p.ID, err = r.rawID(); err != nil {
			return g, err
		}
		if p.DeliveryTime, err = r.millis(); err != nil {
			return g, err
		}
		if p.DeliveryCount, err = r.len(); err != nil {
			return g, err
		}
		if _, dup := index[p.ID]; dup {
			return g, ErrBadData // "Duplicated global PEL entry loading stream consumer group"
		}
		index[p.ID] = len(g.Pending)
		g.Pending = append(g.Pending, p)
	}
	if n, err = r.count(); err != nil {
		return g, err
	}
	names := unique{}
	for i := 0; i < n; i++ {
		var c Consumer
		if c.Name, err = r.str(); err != nil {
			return g, err
		}
		if !names.add(c.Name) {
			return g, ErrBadData
		}
		if c.SeenTime, err = r.millis(); err != nil {
			return g, err
		}
		own, err := r.count()
		if err != nil {
			return g, err
		}
		for j := 0; j < own; j++ {
			id, err := r.rawID()
			if err != nil {
				return g, err
			}
			k, ok := index[id]
			if !ok || g.Pending[k].Consumer != "" {
				return g, ErrBadData // "Consumer entry not found in group global PEL"
			}
			g.Pending[k].Consumer = c.Name
		}
		g.Consumers = append(g.Consumers, c)
	}
	for _, p := range g.Pending {
		if p.Consumer == "" {
			return g, ErrBadData // "Stream CG PEL entry without consumer"
		}
	}
	return g, nil
}

// estimateEntriesRead is streamEstimateDistanceFromFirstEverEntry, which
// Redis 7 uses for groups loaded from a v1 stream.
func estimateEntriesRead(s *Stream, id StreamID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	cmpLast := compareIDs(id, s.LastID)
	if len(s.Entries) == 0 && cmpLast < 1 {
		return int64(s.EntriesAdded)
	}
	switch {
	case cmpLast == 0:
		return int64(s.EntriesAdded)
	case cmpLast > 0:
		return -1
	}
	if s.MaxDeletedID == (StreamID{}) || compareIDs(s.MaxDeletedID, s.FirstID) < 0 {
		switch compareIDs(id, s.FirstID) {
		case -1:
			return int64(s.EntriesAdded) - int64(len(s.Entries))
		case 0:
			return int64(s.EntriesAdded) - int64(len(s.Entries)) + 1
		}
	}
	return -1
}

func compareIDs(a, b StreamID) int {
	switch {
	case a.Ms != b.Ms:
		if a.Ms < b.Ms {
			return -1
		}
		return 1
	case a.Seq != b.Seq:
		if a.Seq < b.Seq {
			return -1
		}
		return 1
	}
	return 0
}

// streamNode decodes one node's listpack: the master entry, then entries
// that are either flagged SAMEFIELDS (values only) or carry their fields;
// deleted ones are skipped.
func streamNode(master StreamID, es []lpEntry) ([]StreamEntry, error) {
	p := 0
	next := func() (lpEntry, error) {
		if p >= len(es) {
			return lpEntry{}, ErrBadData
		}
		p++
		return es[p-1], nil
	}
	nextInt := func() (int64, error) {
		e, err := next()
		if err == nil && !e.isInt {
			err = ErrBadData
		}
		return e.v, err
	}
	count, err := nextInt()
	if err != nil {
		return nil, err
	}
	deleted, err := nextInt()
	if err != nil {
		return nil, err
	}
	nf, err := nextInt()
	if err != nil || nf < 0 || nf > int64(len(es)) {
		return nil, ErrBadData
	}
	fields := make([]string, nf)
	for i := range fields {
		e, err := next()
		if err != nil {
			return nil, err
		}
		fields[i] = e.String()
	}
	if zero, err := nextInt(); err != nil || zero != 0 {
		return nil, ErrBadData
	}
	var out []StreamEntry
	live, dead := int64(0), int64(0)
	for p < len(es) {
		flags, err := nextInt()
		if err != nil {
			return nil, err
		}
		ms, err := nextInt()
		if err != nil {
			return nil, err
		}
		seq, err := nextInt()
		if err != nil {
			return nil, err
		}
		e := StreamEntry{ID: StreamID{master.Ms + uint64(ms), master.Seq + uint64(seq)}}
		if flags&2 != 0 {
			for _, f := range fields {
				v, err := next()
				if err != nil {
					return nil, err
				}
				e.Fields = append(e.Fields, f, v.String())
			}
		} else {
			n, err := nextInt()
			if err != nil || n < 0 || n > math.MaxInt32 {
				return nil, ErrBadData
			}
			for i := int64(0); i < 2*n; i++ {
				v, err := next()
				if err != nil {
					return nil, err
				}
				e.Fields = append(e.Fields, v.String())
			}
		}
		if _, err := nextInt(); err != nil { // lp-count, for walking backwards
			return nil, err
		}
		if flags&1 != 0 {
			dead++
			continue
		}
		live++
		out = append(out, e)
	}
	if live != count || dead != deleted {
		return nil, ErrBadData
	}
	return out, nil
}
