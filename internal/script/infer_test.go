package script

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// contract is a script's inferred keys and args as header words.
func contract(s *Script) (keys, args []string) {
	for _, k := range s.Keys {
		keys = append(keys, k.Spec())
	}
	for _, a := range s.Args {
		args = append(args, a.Spec())
	}
	return keys, args
}

func TestInfer(t *testing.T) {
	for _, tc := range []struct {
		name, path, src string
		keys, args      []string
	}{
		{"locals name", "enqueue.lua", "local jobKey = KEYS[1]\nlocal limit = tonumber(ARGV[1])\nreturn redis.call('GET', jobKey) .. KEYS[2] .. limit",
			[]string{"job_key", "key2"}, []string{"limit int"}},
		{"file name keys", "addStandardJob-4.lua", "return redis.call('GET', KEYS[2])",
			[]string{"key1", "key2", "key3", "key4"}, nil},
		{"loop variadic", "del.lua", "local n = 0\nfor i = 2, #KEYS do n = n + redis.call('DEL', KEYS[i]) end\nreturn n + #KEYS[1]",
			[]string{"key1", "keys..."}, nil},
		{"arg types", "t.lua", `local now = ARGV[1]
if now == '' then now = redis.call('TIME')[1] end
local data = cjson.decode(ARGV[2])
local opts = cmsgpack.unpack(ARGV[3])
local ratio = tonumber(ARGV[4]) * 0.5
local whole = math.floor(tonumber(ARGV[5]))
return {now, data, opts, ratio, whole, ARGV[6]}`,
			nil, []string{`now string = ""`, "data json", "opts bytes", "arg4 float", "whole float", "arg6 string"}},
		{"optional number", "o.lua", "local ttl = tonumber(ARGV[2])\nif ARGV[1] ~= '' then return 1 end\nreturn ttl",
			nil, []string{`arg1 string = ""`, "ttl int"}},
		{"argv unpack", "u.lua", "return redis.call('RPUSH', KEYS[1], unpack(ARGV))",
			[]string{"key1"}, []string{"args string..."}},
		{"comment names", "c-2.lua", "--[[\n  Input:\n    KEYS[1] 'wait',\n    KEYS[2] events stream key\n    ARGV[1] job id\n]]\nreturn redis.call('XADD', KEYS[2], '*', 'id', ARGV[1])",
			[]string{"wait", "events_stream_key"}, []string{"job_id string"}},
		{"asynq comments", "e.lua", "-- Input:\n-- KEYS[1] -> asynq:{<qname>}:t:<task_id>\n-- KEYS[2] -> asynq:{<qname>}:pending\n-- ARGV[1] -> task message data\n-- ARGV[2] -> task ID\nredis.call('HSET', KEYS[1], 'msg', ARGV[1])\nreturn redis.call('LPUSH', KEYS[2], ARGV[2])",
			[]string{"task_id", "pending"}, []string{"task_message_data string", "task_id string"}},
		{"duplicate locals", "d.lua", "local k = KEYS[1]\nlocal function f() local k = KEYS[2] return k end\nreturn k .. f()",
			[]string{"k", "key2"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.path, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !s.Inferred {
				t.Fatal("not marked inferred")
			}
			keys, args := contract(s)
			if !reflect.DeepEqual(keys, tc.keys) || !reflect.DeepEqual(args, tc.args) {
				t.Errorf("keys %q args %q; want %q %q", keys, args, tc.keys, tc.args)
			}
		})
	}
}

func TestInferNotWithHeader(t *testing.T) {
	s, err := Parse("h.lua", []byte("--! key: a\nreturn redis.call('GET', KEYS[1], ARGV[1])"))
	if err != nil {
		t.Fatal(err)
	}
	if keys, args := contract(s); s.Inferred || len(keys) != 1 || len(args) != 0 {
		t.Errorf("a header is the contract: inferred %v, keys %q, args %q", s.Inferred, keys, args)
	}
}

// A helper spliced in with BullMQ's @include reads the script's KEYS.
func TestInferThroughInclude(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "includes"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "includes", "h.lua"), []byte("local function h() return KEYS[3] end\n"), 0o644))
	path := filepath.Join(dir, "s.lua")
	must(os.WriteFile(path, []byte("--- @include \"includes/h\"\nreturn h() .. KEYS[1]\n"), 0o644))
	s, _, err := NewLoader(nil).Parse(path)
	must(err)
	if keys, _ := contract(s); !reflect.DeepEqual(keys, []string{"key1", "key2", "key3"}) {
		t.Errorf("keys %q", keys)
	}
}
