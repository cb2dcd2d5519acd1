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
// directly, here and only here, through reflection; TestKeyspaceInternals
// fails loudly if the layout changes. (Connection state, reached the same
// way before miniredis was copied in, has an API in the copy: peerstate.go.)

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
}

func newStore(m *miniredis.Miniredis) *store {
	return &store{m: reflect.ValueOf(m).Elem()}
}

// now is miniredis's effectiveNow.
func (s *store) now() time.Time {
	t := unexported(s.m, "now").Interface().(time.Time)
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t
}

// lastTick is the instant the TTLs miniredis reports are relative to: it
// moves them on to its clock (with ClockTTL) on the next database access.
func (s *store) lastTick() time.Time {
	return unexported(s.m, "lastTick").Interface().(time.Time)
}

// db returns database i, creating it as miniredis's db(i) would (without
// moving the TTL clock).
func (s *store) db(i int) reflect.Value {
	return reflect.ValueOf(s.m.Addr().Interface().(*miniredis.Miniredis).DBLocked(i)).Elem()
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
	left, ok := db.Addr().Interface().(*miniredis.RedisDB).TTLLeft(key)
	if !ok {
		return time.Time{}, false
	}
	return s.lastTick().Add(left), true
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
		db.Addr().Interface().(*miniredis.RedisDB).SetTTLLeft(key, at.Sub(s.lastTick()))
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
	db := e.store.db(miniredis.PeerDB(e.inner))
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
