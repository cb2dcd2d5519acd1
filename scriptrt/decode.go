package scriptrt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The decoders of replies and their fields: each takes the returns: field
// it decodes ("" for the whole reply) for its *ReplyError.

// Result is the reply of a call whose type maps Lua false (a nil reply) to
// a value.
func Result(cmd *redis.Cmd) (any, error) {
	v, err := cmd.Result()
	if err == redis.Nil {
		return nil, nil
	}
	return v, err
}

// Fields checks that an array reply has one element per returns: field.
func (sc *Script) Fields(v any, n int) ([]any, error) {
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return nil, sc.replyError("", fmt.Sprintf("an array of %d fields", n), v)
	}
	return a, nil
}

func (sc *Script) AsInt(field string, v any) (int64, error) {
	if i, ok := v.(int64); ok {
		return i, nil
	}
	return 0, sc.replyError(field, "int", v)
}

// AsFloat takes a number as Lua can send one: a string (Lua numbers become
// integers on the way out), an integer, or a RESP3 double.
func (sc *Script) AsFloat(field string, v any) (float64, error) {
	switch v := v.(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f, nil
		}
	}
	return 0, sc.replyError(field, "float", v)
}

func (sc *Script) AsString(field string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", sc.replyError(field, "string", v)
}

func (sc *Script) AsBytes(field string, v any) ([]byte, error) {
	if s, ok := v.(string); ok {
		return []byte(s), nil
	}
	return nil, sc.replyError(field, "bytes", v)
}

// AsJSON takes a string that holds valid JSON, so that a bad reply fails
// here rather than in the caller's json.Unmarshal.
func (sc *Script) AsJSON(field string, v any) (json.RawMessage, error) {
	if s, ok := v.(string); ok && json.Valid([]byte(s)) {
		return json.RawMessage(s), nil
	}
	return nil, sc.replyError(field, "json", v)
}

// AsBool follows Redis's conversion: Lua true becomes integer 1, false a nil
// reply; RESP3 scripts (redis.setresp(3)) send real booleans.
func (sc *Script) AsBool(field string, v any) (bool, error) {
	switch v := v.(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case int64:
		if v == 0 || v == 1 {
			return v == 1, nil
		}
	}
	return false, sc.replyError(field, "bool", v)
}

// AsDuration takes whole milliseconds, the unit of every duration a script
// is sent.
func (sc *Script) AsDuration(field string, v any) (time.Duration, error) {
	if i, ok := v.(int64); ok {
		return time.Duration(i) * time.Millisecond, nil
	}
	return 0, sc.replyError(field, "duration (whole milliseconds)", v)
}

func (sc *Script) AsStatus(field string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", sc.replyError(field, "status", v)
}

// AsAny is the reply as go-redis decoded it, for scripts without returns:.
func (sc *Script) AsAny(_ string, v any) (any, error) { return v, nil }

// AsList decodes an array reply with elem, a decoder given as a method
// expression such as (*Script).AsInt.
func AsList[T any](sc *Script, field string, v any, elem func(*Script, string, any) (T, error)) ([]T, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, sc.replyError(field, "an array", v)
	}
	out := make([]T, len(a))
	for i, e := range a {
		x, err := elem(sc, field+"["+strconv.Itoa(i)+"]", e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}
