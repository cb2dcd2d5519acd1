package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/crc"
	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// dumpLibs are libraries for FUNCTION DUMP: long enough for Redis to
// compress their code with LZF, one short, flags and a description. One
// function each: Redis lists a library's functions in its hash order.
var dumpLibs = []string{
	"#!lua name=alpha\nredis.register_function('a1', function(keys, args) return 'alpha one alpha one alpha one' end)",
	"#!lua name=beta\nredis.register_function{function_name='b1', callback=function() return 'b' end, flags={'no-writes', 'allow-stale'}, description='reads'}",
	"#!lua name=g\nredis.register_function('g', function() return 7 end)",
}

// functionState is what a target's libraries look like: each library's
// FUNCTION LIST WITHCODE entry by name (Redis lists them in its hash
// order), and FUNCTION STATS's counts.
func functionState(t *testing.T, do doer) string {
	t.Helper()
	var out []string
	for _, lib := range []string{"alpha", "beta", "g", "other", "old"} {
		v, err := do("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", lib)
		if err != nil {
			t.Fatalf("FUNCTION LIST: %v", err)
		}
		out = append(out, fmt.Sprint(v))
	}
	sort.Strings(out)
	stats, err := do("FUNCTION", "STATS")
	if err != nil {
		t.Fatalf("FUNCTION STATS: %v", err)
	}
	return fmt.Sprint(out, stats)
}

// TestFunctionDumpRestoreAcrossEngines restores a FUNCTION DUMP of
// redis-server on the engine and the engine's on redis-server, and
// compares the libraries each ends with and what FCALL answers.
func TestFunctionDumpRestoreAcrossEngines(t *testing.T) {
	rd, ed := redisAndEngine(t, time.Minute)

	for _, dir := range []struct {
		name     string
		from, to doer
	}{{"redis to engine", rd, ed}, {"engine to redis", ed, rd}} {
		japply(t, dir.from, [][]string{{"FUNCTION", "FLUSH"}})
		for _, lib := range dumpLibs {
			japply(t, dir.from, [][]string{{"FUNCTION", "LOAD", lib}})
		}
		payload, err := dir.from("FUNCTION", "DUMP")
		if err != nil {
			t.Fatalf("%s: FUNCTION DUMP: %v", dir.name, err)
		}
		japply(t, dir.to, [][]string{{"FUNCTION", "FLUSH"}})
		if _, err := dir.to("FUNCTION", "RESTORE", payload.(string)); err != nil {
			t.Fatalf("%s: FUNCTION RESTORE: %v", dir.name, err)
		}
		if got, want := functionState(t, dir.to), functionState(t, dir.from); got != want {
			t.Errorf("%s: restored\n%s\nfrom\n%s", dir.name, got, want)
		}
		for _, f := range []string{"a1", "B1", "g", "none"} {
			want, werr := dir.from("FCALL", f, "0")
			got, gerr := dir.to("FCALL", f, "0")
			if fmt.Sprint(want) != fmt.Sprint(got) || jerr(werr) != jerr(gerr) {
				t.Errorf("%s: FCALL %s: %v %v, want %v %v", dir.name, f, got, gerr, want, werr)
			}
		}
	}
}

// TestFunctionRestorePolicies compares FUNCTION RESTORE's policies and
// refusals on both targets, from the same state each time.
func TestFunctionRestorePolicies(t *testing.T) {
	rd, ed := redisAndEngine(t, time.Minute)

	japply(t, rd, [][]string{{"FUNCTION", "FLUSH"}, {"FUNCTION", "LOAD", dumpLibs[0]}, {"FUNCTION", "LOAD", dumpLibs[2]}, {"SET", "str", "v"}})
	v, err := rd("FUNCTION", "DUMP")
	if err != nil {
		t.Fatal(err)
	}
	good := v.(string)
	v, err = rd("DUMP", "str")
	if err != nil {
		t.Fatal(err)
	}
	keyPayload := v.(string)
	badCRC := good[:len(good)-1] + string(good[len(good)-1]^1)
	// Payloads Redis would not write but must refuse, built with our
	// encoder and checked by redis-server itself.
	twice := string(rdb.DumpFunctions([]string{dumpLibs[2], dumpLibs[2]}))
	broken := string(rdb.DumpFunctions([]string{"#!lua name=broken\nreturn +"}))
	collide := string(rdb.DumpFunctions([]string{"#!lua name=other\nredis.register_function('g', function() return 0 end)"}))
	other := string(rdb.DumpFunctions([]string{"#!lua name=other\nredis.register_function('o', function() return 0 end)"}))
	old := oldFunctionPayload("old", "LUA", "a description", "\nredis.register_function('old_f', function() return 'rc' end)")
	renamed := string(rdb.DumpFunctions([]string{"#!lua name=g\nredis.register_function('G2', function() return 9 end)"}))

	before := [][]string{{"FUNCTION", "FLUSH"}, {"FUNCTION", "LOAD", dumpLibs[1]}, {"FUNCTION", "LOAD", dumpLibs[2]}}
	for _, c := range [][]string{
		{"FUNCTION", "RESTORE", good},
		{"FUNCTION", "RESTORE", good, "APPEND"},
		{"FUNCTION", "RESTORE", good, "replace"},
		{"FUNCTION", "RESTORE", good, "FLUSH"},
		{"FUNCTION", "RESTORE", good, "bogus"},
		{"FUNCTION", "RESTORE", good, "FLUSH", "extra"},
		{"FUNCTION", "RESTORE"},
		{"FUNCTION", "RESTORE", badCRC},
		{"FUNCTION", "RESTORE", "short"},
		{"FUNCTION", "RESTORE", keyPayload},
		{"FUNCTION", "RESTORE", twice, "FLUSH"},
		{"FUNCTION", "RESTORE", broken, "FLUSH"},
		{"FUNCTION", "RESTORE", collide},
		{"FUNCTION", "RESTORE", collide, "REPLACE"},
		{"FUNCTION", "RESTORE", other},
		{"FUNCTION", "RESTORE", renamed, "REPLACE"},
		{"FUNCTION", "RESTORE", string(rdb.DumpFunctions(nil)), "FLUSH"},
		{"FUNCTION", "RESTORE", old},
		{"FCALL", "old_f", "0"},
		{"FUNCTION", "RESTORE", old[:3] + old[4:]},
	} {
		if c[0] != "FCALL" {
			japply(t, rd, before)
			japply(t, ed, before)
		}
		want, werr := rd(c...)
		got, gerr := ed(c...)
		name := fmt.Sprintf("%.40q", c[1:])
		if fmt.Sprint(want) != fmt.Sprint(got) || jerr(werr) != jerr(gerr) {
			t.Errorf("FUNCTION RESTORE %s:\n redis:  %v %v\n engine: %v %v", name, want, werr, got, gerr)
		}
		if w, g := functionState(t, rd), functionState(t, ed); w != g {
			t.Errorf("FUNCTION RESTORE %s: libraries\n redis:  %s\n engine: %s", name, w, g)
		}
	}
}

// oldFunctionPayload is a FUNCTION DUMP payload in the layout of Redis
// 7.0-rc1 and rc2 (opcode 246: name, engine, description, body), which
// 7.0.15 still restores; no version of Redis we can run writes it.
func oldFunctionPayload(name, engine, desc, body string) string {
	var b []byte
	str := func(s string) {
		if len(s) < 64 {
			b = append(b, byte(len(s)))
		} else {
			b = append(b, 0x40|byte(len(s)>>8), byte(len(s)))
		}
		b = append(b, s...)
	}
	b = append(b, 246)
	str(name)
	str(engine)
	b = append(b, 1)
	str(desc)
	str(body)
	b = binary.LittleEndian.AppendUint16(b, rdb.Version)
	return string(binary.LittleEndian.AppendUint64(b, crc.CRC64(0, b)))
}

// redisAndEngine starts a redis-server and an engine made with opts, and
// returns a doer for each: RESP2 both, as the engine's Do speaks by
// default. Redis's commands must be done within timeout.
func redisAndEngine(t *testing.T, timeout time.Duration, opts ...transactional.Option) (rd, ed doer) {
	srv := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { client.Close() })
	e := transactional.New(opts...)
	t.Cleanup(e.Close)
	return redisDoer(ctx, client), engineDoer(e)
}
