package rdb

import "fmt"

// Value is the value of one key: String, List, Set, ZSet, Hash or *Stream.
type Value interface {
	// Type is the name TYPE answers for the value.
	Type() string
}

// String is a string key's value; any bytes.
type String string

// List is a list from head to tail.
type List []string

// Set is a set's members. Dump writes them in the order given; Restore
// returns them in the payload's order.
type Set []string

// Hash is a hash's fields, in the order given (a small hash keeps insertion
// order in Redis, so the order shows in its DUMP).
type Hash []Field

// Field is one field of a Hash.
type Field struct {
	Name, Value string
}

// ZSet is a sorted set's members. Dump sorts a copy by score, then member,
// as Redis orders them.
type ZSet []Member

// Member is one member of a ZSet.
type Member struct {
	Name  string
	Score float64
}

// Stream is a stream with its metadata and consumer groups.
type Stream struct {
	Entries []StreamEntry // ascending IDs; deleted entries are not listed
	LastID  StreamID      // the last ID ever added (XADD refuses any ID not above it)
	// FirstID is the first live entry's ID (0-0 when empty), as Redis 7
	// stores it; Dump derives it from Entries when it is zero.
	FirstID      StreamID
	MaxDeletedID StreamID // the highest ID removed by XDEL or XTRIM
	EntriesAdded uint64   // every entry ever added, deleted ones included
	Groups       []Group
}

// StreamID is a stream entry ID, ms-seq.
type StreamID struct {
	Ms, Seq uint64
}

func (id StreamID) String() string { return fmt.Sprintf("%d-%d", id.Ms, id.Seq) }

// StreamEntry is one entry: its ID and field/value pairs.
type StreamEntry struct {
	ID     StreamID
	Fields []string // field, value, field, value …
}

// Group is a consumer group.
type Group struct {
	Name   string
	LastID StreamID
	// EntriesRead is the group's read counter (XINFO GROUPS "entries-read"),
	// -1 when Redis does not know it.
	EntriesRead int64
	Pending     []Pending // ascending IDs: the group's PEL
	Consumers   []Consumer
}

// Pending is one entry delivered to a consumer and not yet acknowledged.
type Pending struct {
	ID            StreamID
	Consumer      string
	DeliveryTime  int64 // Unix ms of the last delivery
	DeliveryCount uint64
}

// Consumer is one consumer of a group; its pending entries are the group's
// Pending entries that name it.
type Consumer struct {
	Name     string
	SeenTime int64 // Unix ms of its last attempted interaction
}

// Type implements Value.
func (String) Type() string { return "string" }

// Type implements Value.
func (List) Type() string { return "list" }

// Type implements Value.
func (Set) Type() string { return "set" }

// Type implements Value.
func (Hash) Type() string { return "hash" }

// Type implements Value.
func (ZSet) Type() string { return "zset" }

// Type implements Value.
func (*Stream) Type() string { return "stream" }
