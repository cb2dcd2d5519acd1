package transactional

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// miniredis keeps each connection's state (selected DB, AUTH, MULTI queue,
// "called from Lua") in an unexported struct behind server.Peer.Ctx. The
// engine needs three things miniredis offers no API for: a peer whose
// commands run nested (under the lock the script already holds, as
// miniredis's own EVAL does), queueing a script into a MULTI block, and
// reading the caller's selected DB and AUTH state. This file is the only
// place that reaches inside; the module pins miniredis, and
// TestMiniredisInternals fails loudly if the layout ever changes.
type connState struct {
	typ    reflect.Type // miniredis's connCtx struct type
	fields map[string][]int
	// offsets of the fields read on every script run, whose types
	// discoverConnState checks: typed pointers, not reflect.Values.
	selectedDBAt, authenticatedAt, nestedAt, nestedSHAAt uintptr
	// subscriberAt and transactionAt are a pointer and a slice: their
	// first word is nil exactly when they are.
	subscriberAt, transactionAt uintptr
}

var requiredCtxFields = map[string]reflect.Kind{
	"selectedDB":       reflect.Int,
	"authenticated":    reflect.Bool,
	"transaction":      reflect.Slice,
	"dirtyTransaction": reflect.Bool,
	"subscriber":       reflect.Pointer,
	"nested":           reflect.Bool,
	"nestedSHA":        reflect.String,
}

// discoverConnState learns the connCtx type from a throwaway peer: every
// command handler creates it on first use.
func discoverConnState(srv *server.Server) (*connState, error) {
	p := server.NewPeer(bufio.NewWriter(io.Discard))
	srv.Dispatch(p, []string{"PING"})
	if p.Ctx == nil {
		return nil, fmt.Errorf("transactional: miniredis did not set a connection context")
	}
	t := reflect.TypeOf(p.Ctx)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("transactional: unexpected miniredis connection context %s", t)
	}
	t = t.Elem()
	for name, kind := range requiredCtxFields {
		f, ok := t.FieldByName(name)
		if !ok || f.Type.Kind() != kind || len(f.Index) != 1 {
			return nil, fmt.Errorf("transactional: miniredis connection context has no %s field of kind %s", name, kind)
		}
	}
	if ft, _ := t.FieldByName("transaction"); ft.Type.Elem().Kind() != reflect.Func || ft.Type.Elem().NumIn() != 2 {
		return nil, fmt.Errorf("transactional: unexpected miniredis transaction queue type %s", ft.Type)
	}
	cs := &connState{typ: t, fields: map[string][]int{}}
	for name := range requiredCtxFields {
		f, _ := t.FieldByName(name)
		cs.fields[name] = f.Index
	}
	sub, _ := t.FieldByName("subscriber")
	tx, _ := t.FieldByName("transaction")
	cs.subscriberAt, cs.transactionAt = sub.Offset, tx.Offset
	for _, f := range []struct {
		name string
		typ  reflect.Type
		at   *uintptr
	}{
		{"selectedDB", reflect.TypeFor[int](), &cs.selectedDBAt},
		{"authenticated", reflect.TypeFor[bool](), &cs.authenticatedAt},
		{"nested", reflect.TypeFor[bool](), &cs.nestedAt},
		{"nestedSHA", reflect.TypeFor[string](), &cs.nestedSHAAt},
	} {
		sf, _ := t.FieldByName(f.name)
		if sf.Type != f.typ {
			return nil, fmt.Errorf("transactional: miniredis connection context field %s is a %s, not a %s", f.name, sf.Type, f.typ)
		}
		*f.at = sf.Offset
	}
	return cs, nil
}

// field returns a settable view of one field of p's connection context,
// creating the context as miniredis's getCtx would.
func (cs *connState) field(p *server.Peer, name string) reflect.Value {
	if p.Ctx == nil {
		p.Ctx = reflect.New(cs.typ).Interface()
	}
	f := reflect.ValueOf(p.Ctx).Elem().FieldByIndex(cs.fields[name])
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// ctxAt is the field at offset in p's connection context, creating the
// context as miniredis's getCtx would; T is the field's type, checked by
// discoverConnState.
func ctxAt[T any](cs *connState, p *server.Peer, offset uintptr) *T {
	if p.Ctx == nil {
		p.Ctx = reflect.New(cs.typ).Interface()
	}
	return (*T)(unsafe.Add(reflect.ValueOf(p.Ctx).UnsafePointer(), offset))
}

func (cs *connState) selectedDB(p *server.Peer) int {
	return *ctxAt[int](cs, p, cs.selectedDBAt)
}

func (cs *connState) authenticated(p *server.Peer) bool {
	return *ctxAt[bool](cs, p, cs.authenticatedAt)
}

func (cs *connState) subscribed(p *server.Peer) bool {
	return *ctxAt[unsafe.Pointer](cs, p, cs.subscriberAt) != nil
}

func (cs *connState) inMulti(p *server.Peer) bool {
	return *ctxAt[unsafe.Pointer](cs, p, cs.transactionAt) != nil
}

func (cs *connState) setDirty(p *server.Peer) {
	if cs.inMulti(p) {
		cs.field(p, "dirtyTransaction").SetBool(true)
	}
}

func (cs *connState) setAuthenticated(p *server.Peer) {
	*ctxAt[bool](cs, p, cs.authenticatedAt) = true
}

// prepareNested makes p run commands as if called from a Lua script of the
// given sha, in db: miniredis then neither locks nor blocks nor checks AUTH.
func (cs *connState) prepareNested(p *server.Peer, db int, sha string) {
	*ctxAt[bool](cs, p, cs.nestedAt) = true
	*ctxAt[string](cs, p, cs.nestedSHAAt) = sha
	*ctxAt[bool](cs, p, cs.authenticatedAt) = true
	*ctxAt[int](cs, p, cs.selectedDBAt) = db
}

// queue appends fn to p's MULTI queue; EXEC runs it with miniredis's lock
// held, in order with the other queued commands.
func (cs *connState) queue(p *server.Peer, fn func(*server.Peer)) {
	q := cs.field(p, "transaction")
	cb := reflect.MakeFunc(q.Type().Elem(), func(in []reflect.Value) []reflect.Value {
		fn(in[0].Interface().(*server.Peer))
		return nil
	})
	q.Set(reflect.Append(q, cb))
}
