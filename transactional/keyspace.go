package transactional

import (
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
)

// miniredis exposes its keyspace only through methods that take its lock,
// and a script (or a hooked command) already holds that lock. The write
// journal, DUMP and RESTORE therefore read and write miniredis's databases
// directly, here and only here, as internals.go does for connection state;
// TestKeyspaceInternals fails loudly if the layout changes.

// dbFields are the fields of miniredis.RedisDB this file uses, with kinds.
var dbFields = map[string]reflect.Kind{
	"keys": reflect.Map, "stringKeys": reflect.Map, "hashKeys": reflect.Map,
	"listKeys": reflect.Map, "setKeys": reflect.Map, "hllKeys": reflect.Map,
	"sortedsetKeys": reflect.Map, "streamKeys": reflect.Map, "ttl": reflect.Map,
	"hashTTLs": reflect.Map, "lru": reflect.Map, "keyVersion": reflect.Map,
	"master": reflect.Pointer, "id": reflect.Int,
}

// typeFields maps TYPE's answer (miniredis's "hll" included) to the map
// holding values of that type.
var typeFields = map[string]string{
	"string": "stringKeys", "hash": "hashKeys", "list": "listKeys", "set": "setKeys",
	"hll": "hllKeys", "zset": "sortedsetKeys", "stream": "streamKeys",
}

// unexported returns a usable view of struct field name of v (addressable).
func unexported(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	if !f.IsValid() {
		panic(fmt.Sprintf("transactional: miniredis %s has no field %s", v.Type(), name))
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

func unexportedAt(v reflect.Value, i int) reflect.Value {
	f := v.Field(i)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// store is miniredis's keyspace as the journal sees it. Only used under
// miniredis's lock.
type store struct {
	m reflect.Value // the Miniredis struct
	// What advance reads on every clock move, typed: the clock miniredis's
	// TTLs are relative to, the databases, and the offsets of the TTL maps
	// in a database.
	lastTickAt        *time.Time
	dbs               *map[int]*miniredis.RedisDB
	ttlAt, hashTTLsAt uintptr
}

func newStore(m *miniredis.Miniredis) *store {
	s := &store{m: reflect.ValueOf(m).Elem()}
	s.lastTickAt = fieldOf[time.Time](s.m, "lastTick")
	s.dbs = fieldOf[map[int]*miniredis.RedisDB](s.m, "dbs")
	s.ttlAt = dbFieldOffset[map[string]time.Duration]("ttl")
	s.hashTTLsAt = dbFieldOffset[map[string]map[string]time.Duration]("hashTTLs")
	return s
}

// dbFieldOffset is the offset of field name, of type T, in a RedisDB.
func dbFieldOffset[T any](name string) uintptr {
	var db miniredis.RedisDB
	f := fieldOf[T](reflect.ValueOf(&db).Elem(), name)
	return uintptr(unsafe.Pointer(f)) - uintptr(unsafe.Pointer(&db))
}

// now is miniredis's effectiveNow.
func (s *store) now() time.Time {
	t := unexported(s.m, "now").Interface().(time.Time)
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t
}

// lastTick is the instant the TTLs in db.ttl are relative to: miniredis
// (with ClockTTL) subtracts the time elapsed since it from every TTL on the
// next database access.
func (s *store) lastTick() time.Time {
	return unexported(s.m, "lastTick").Interface().(time.Time)
}

// db returns database i, creating it as miniredis's db(i) would.
func (s *store) db(i int) reflect.Value {
	dbs := unexported(s.m, "dbs")
	key := reflect.ValueOf(i)
	if p := dbs.MapIndex(key); p.IsValid() {
		return p.Elem()
	}
	p := reflect.New(dbs.Type().Elem().Elem())
	db := p.Elem()
	for j := 0; j < db.NumField(); j++ {
		if f := unexportedAt(db, j); f.Kind() == reflect.Map {
			f.Set(reflect.MakeMap(f.Type()))
		}
	}
	unexported(db, "id").SetInt(int64(i))
	unexported(db, "master").Set(s.m.Addr())
	dbs.SetMapIndex(key, p)
	return db
}

// advance moves the TTLs of every database from miniredis's last tick to
// t, as miniredis's own tick would on the next command, and expires the
// keys that t leaves behind. miniredis's tick sorts every key of the
// database (not only those with a TTL) on each clock move, which made a
// simulation with thousands of keys cost a sort of them all per request;
// this walks only the keys with a TTL. Redis keeps a key until the clock is
// past its expiry (keyIsExpired: now > when), so at the exact millisecond
// the key still reads, with PTTL 0, where miniredis deletes a key whose TTL
// reaches 0: such keys are left a nanosecond, and go at the next move.
//
// A database with hash-field TTLs (HEXPIRE, which Redis 7.0 does not have
// but Do serves) is left to miniredis's tick, which expires fields as well;
// so is a move backwards, which miniredis's SetTime handles.
func (s *store) advance(t time.Time) {
	last := *s.lastTickAt
	if !t.After(last) {
		return
	}
	elapsed := t.Sub(last)
	for _, db := range *s.dbs {
		if len(*s.hashTTLs(db)) > 0 {
			s.keepExpiringAt(elapsed)
			return
		}
	}
	var due []string
	for _, db := range *s.dbs {
		ttls := *s.ttls(db)
		due = due[:0]
		for k, d := range ttls {
			switch d -= elapsed; {
			case d == 0:
				d = 1
			case d < 0:
				due = append(due, k)
			}
			ttls[k] = d
		}
		if len(due) > 0 {
			v := reflect.ValueOf(db).Elem()
			for _, k := range due {
				s.del(v, k)
			}
		}
	}
	*s.lastTickAt = t
}

// keepExpiringAt gives the keys whose TTL an advance of elapsed brings to
// exactly 0 one more nanosecond (see advance), for miniredis's tick.
func (s *store) keepExpiringAt(elapsed time.Duration) {
	for _, db := range *s.dbs {
		ttls := *s.ttls(db)
		for k, d := range ttls {
			if d == elapsed {
				ttls[k] = elapsed + 1
			}
		}
	}
}

// ttls and hashTTLs are db's TTL maps, typed: they are read on every clock
// move.
func (s *store) ttls(db *miniredis.RedisDB) *map[string]time.Duration {
	return (*map[string]time.Duration)(unsafe.Add(unsafe.Pointer(db), s.ttlAt))
}

func (s *store) hashTTLs(db *miniredis.RedisDB) *map[string]map[string]time.Duration {
	return (*map[string]map[string]time.Duration)(unsafe.Add(unsafe.Pointer(db), s.hashTTLsAt))
}

// fieldOf is unexported as a typed pointer; it panics, as unexported does,
// when the field is not of type T.
func fieldOf[T any](v reflect.Value, name string) *T {
	f := unexported(v, name)
	if f.Type() != reflect.TypeFor[T]() {
		panic(fmt.Sprintf("transactional: miniredis %s.%s is a %s, not a %s", v.Type(), name, f.Type(), reflect.TypeFor[T]()))
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr()))
}

// typeOf is the key's type in miniredis's words, "" when it does not exist
// or has expired without miniredis having noticed yet.
func (s *store) typeOf(db reflect.Value, key string) string {
	t := unexported(db, "keys").MapIndex(reflect.ValueOf(key))
	if !t.IsValid() {
		return ""
	}
	if at, ok := s.deadline(db, key); ok && !at.After(s.now()) {
		return ""
	}
	return t.String()
}

// deadline is the key's absolute expiry.
func (s *store) deadline(db reflect.Value, key string) (time.Time, bool) {
	ttl := unexported(db, "ttl").MapIndex(reflect.ValueOf(key))
	if !ttl.IsValid() {
		return time.Time{}, false
	}
	return s.lastTick().Add(time.Duration(ttl.Int())), true
}

// value is the key's entry in the map of its type (a miniredis type).
func (s *store) value(db reflect.Value, key, typ string) reflect.Value {
	return unexported(db, typeFields[typ]).MapIndex(reflect.ValueOf(key))
}

// del removes key entirely, as miniredis's db.del(key, true) does.
func (s *store) del(db reflect.Value, key string) {
	k := reflect.ValueOf(key)
	for _, f := range []string{"keys", "lru", "ttl", "hashTTLs", "stringKeys", "hashKeys", "listKeys", "setKeys", "hllKeys", "sortedsetKeys", "streamKeys"} {
		unexported(db, f).SetMapIndex(k, reflect.Value{})
	}
	s.touch(db, key)
}

// touch marks key modified for WATCH, as every write in miniredis does.
func (s *store) touch(db reflect.Value, key string) {
	k := reflect.ValueOf(key)
	versions := unexported(db, "keyVersion")
	var n uint64
	if v := versions.MapIndex(k); v.IsValid() {
		n = v.Uint()
	}
	versions.SetMapIndex(k, reflect.ValueOf(uint(n+1)))
}

// put stores v (a value of miniredis's type for typ) under key with an
// optional absolute expiry, replacing whatever key held.
func (s *store) put(db reflect.Value, key, typ string, v reflect.Value, at time.Time, expires bool) {
	s.del(db, key)
	k := reflect.ValueOf(key)
	unexported(db, "keys").SetMapIndex(k, reflect.ValueOf(typ))
	unexported(db, typeFields[typ]).SetMapIndex(k, v)
	unexported(db, "lru").SetMapIndex(k, reflect.ValueOf(s.now()))
	if expires {
		unexported(db, "ttl").SetMapIndex(k, reflect.ValueOf(at.Sub(s.lastTick())))
	}
}

// emptyingStores are the commands after which miniredis may leave an
// empty set or sorted set at the destination, where Redis deletes the key
// (no Redis key ever holds an empty aggregate). miniredis may even store
// it as a nil map, which the next SADD to it panics on.
var emptyingStores = map[string]bool{"sunionstore": true, "sinterstore": true, "sdiffstore": true,
	"zunionstore": true, "zinterstore": true, "zdiffstore": true, "zrangestore": true}

// dropEmpty deletes key from the script's database if it holds an empty
// set or sorted set.
func (e *Engine) dropEmpty(key string) {
	db := e.store.db(e.cs.selectedDB(e.inner))
	typ := e.store.typeOf(db, key)
	if (typ == "set" || typ == "zset") && e.store.value(db, key, typ).Len() == 0 {
		e.store.del(db, key)
	}
}

// snapshot is one key's complete state: what the journal keeps.
type snapshot struct {
	typ      string // "" when the key did not exist
	value    reflect.Value
	fieldTTL reflect.Value // hash field expiries, when any
	at       time.Time
	expires  bool
}

// snap copies key's state deeply, so that later writes (which miniredis
// makes in place: an XADD appends to the stream it holds) leave it as it was.
func (s *store) snap(db reflect.Value, key string) snapshot {
	typ := s.typeOf(db, key)
	if typ == "" {
		return snapshot{}
	}
	sn := snapshot{typ: typ, value: deepCopy(s.value(db, key, typ))}
	sn.at, sn.expires = s.deadline(db, key)
	if typ == "hash" {
		if f := unexported(db, "hashTTLs").MapIndex(reflect.ValueOf(key)); f.IsValid() {
			sn.fieldTTL = deepCopy(f)
		}
	}
	return sn
}

// restore puts a snapshot back. The value itself is handed over, not
// copied: a snapshot is restored at most once.
func (s *store) restore(db reflect.Value, key string, sn snapshot) {
	if sn.typ == "" {
		if unexported(db, "keys").MapIndex(reflect.ValueOf(key)).IsValid() {
			s.del(db, key)
		}
		return
	}
	s.put(db, key, sn.typ, sn.value, sn.at, sn.expires)
	if sn.fieldTTL.IsValid() {
		unexported(db, "hashTTLs").SetMapIndex(reflect.ValueOf(key), sn.fieldTTL)
	}
}

var timeType = reflect.TypeOf(time.Time{})

// deepCopy copies v and everything it points to, unexported fields
// included, keeping shared pointers shared (a stream's groups point back
// at it). Strings and time.Time values are immutable and kept as they are.
func deepCopy(v reflect.Value) reflect.Value {
	return copyValue(v, map[unsafe.Pointer]reflect.Value{})
}

func copyValue(v reflect.Value, seen map[unsafe.Pointer]reflect.Value) reflect.Value {
	if v.Type() == timeType {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		if c, ok := seen[v.UnsafePointer()]; ok {
			return c
		}
		c := reflect.New(v.Type().Elem())
		seen[v.UnsafePointer()] = c
		c.Elem().Set(copyValue(v.Elem(), seen))
		return c
	case reflect.Struct:
		src := v
		if !src.CanAddr() {
			src = reflect.New(v.Type()).Elem()
			src.Set(v)
		}
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			unexportedAt(out, i).Set(copyValue(unexportedAt(src, i), seen))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		if isFlat(v.Type().Elem()) {
			reflect.Copy(out, v)
			return out
		}
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(copyValue(v.Index(i), seen))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(copyValue(v.Index(i), seen))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		flat := isFlat(v.Type().Key()) && isFlat(v.Type().Elem())
		it := v.MapRange()
		for it.Next() {
			if flat {
				out.SetMapIndex(it.Key(), it.Value())
			} else {
				out.SetMapIndex(copyValue(it.Key(), seen), copyValue(it.Value(), seen))
			}
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(copyValue(v.Elem(), seen))
		return out
	}
	return v
}

// isFlat reports whether values of t hold no references, so a shallow copy
// is a deep one.
func isFlat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	case reflect.Struct:
		if t == timeType {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			if !isFlat(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Array:
		return isFlat(t.Elem())
	}
	return false
}
