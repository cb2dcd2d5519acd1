package scalar

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestReplyTypes runs the same Lua values through wrappers that declare
// different reply types, in EVAL and in Functions mode: each value decodes
// to its Go type, or fails with the error a caller can tell apart.
func TestReplyTypes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	type call func(s *Scripts, kind string) (any, error)
	wrap := func(f func(s *Scripts, kind string) (any, error)) call { return f }
	calls := map[string]call{
		"bool":     wrap(func(s *Scripts, k string) (any, error) { return s.AsBool(ctx, c, AsBoolArgs{k}) }),
		"int":      wrap(func(s *Scripts, k string) (any, error) { return s.AsInt(ctx, c, AsIntArgs{k}) }),
		"float":    wrap(func(s *Scripts, k string) (any, error) { return s.AsFloat(ctx, c, AsFloatArgs{k}) }),
		"status":   wrap(func(s *Scripts, k string) (any, error) { return s.AsStatus(ctx, c, AsStatusArgs{k}) }),
		"string":   wrap(func(s *Scripts, k string) (any, error) { return s.AsString(ctx, c, AsStringArgs{k}) }),
		"bytes":    wrap(func(s *Scripts, k string) (any, error) { return s.AsBytes(ctx, c, AsBytesArgs{k}) }),
		"json":     wrap(func(s *Scripts, k string) (any, error) { return s.AsJSON(ctx, c, AsJSONArgs{k}) }),
		"duration": wrap(func(s *Scripts, k string) (any, error) { return s.AsDuration(ctx, c, AsDurationArgs{k}) }),
		"[]int":    wrap(func(s *Scripts, k string) (any, error) { return s.AsListInt(ctx, c, AsListIntArgs{k}) }),
		"[]float":  wrap(func(s *Scripts, k string) (any, error) { return s.AsListFloat(ctx, c, AsListFloatArgs{k}) }),
	}
	const replyErr, nilErr = "ReplyError", "redis.Nil"
	for _, tc := range []struct {
		typ, kind string
		want      any // a value, replyErr or nilErr
	}{
		{"bool", "true", true},
		{"bool", "false", false}, // Lua false is a nil reply: a value for bool
		{"bool", "nil", false},
		{"bool", "int", replyErr}, // 42 is no boolean
		{"int", "int", int64(42)},
		{"int", "true", int64(1)}, // Lua true converts to 1
		{"int", "string", replyErr},
		{"int", "nil", nilErr},
		{"float", "float", 2.5},
		{"float", "int", 42.0},
		{"float", "string", replyErr},
		{"status", "status", "FINE"},
		{"status", "list", replyErr},
		{"string", "string", "hello"},
		{"string", "nil", nilErr},
		{"bytes", "string", []byte("hello")},
		{"json", "json", json.RawMessage(`{"a":[1,2]}`)},
		{"json", "string", replyErr}, // not JSON
		{"duration", "int", 42 * time.Millisecond},
		{"[]int", "list", []int64{1, 2, 3}},
		{"[]int", "int", replyErr},
		{"[]float", "list", []float64{1, 2, 3}},
	} {
		for _, s := range []*Scripts{{}, {Functions: true}} {
			got, err := calls[tc.typ](s, tc.kind)
			var re *ReplyError
			switch tc.want {
			case replyErr:
				if !errors.As(err, &re) || re.Script != "as_"+strings.Replace(tc.typ, "[]", "list_", 1) {
					t.Errorf("%s(%s) functions=%v: got %v, %v; want a *ReplyError", tc.typ, tc.kind, s.Functions, got, err)
				}
			case nilErr:
				if err != redis.Nil {
					t.Errorf("%s(%s) functions=%v: got %v, %v; want redis.Nil", tc.typ, tc.kind, s.Functions, got, err)
				}
			default:
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s(%s) functions=%v: got %#v, %v; want %#v", tc.typ, tc.kind, s.Functions, got, err, tc.want)
				}
			}
		}
	}
}

func TestNoReturns(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	got, err := new(Scripts).Noreturn(context.Background(), c)
	if err != nil || !reflect.DeepEqual(got, []any{int64(1), "two"}) {
		t.Fatalf("got %#v, %v", got, err)
	}
}
