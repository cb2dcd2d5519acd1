package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/transactional"
)

// dumpCase builds key "k" with commands, on either target.
type dumpCase struct {
	name  string
	build [][]string
}

func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func pairs(n int, score bool) []string {
	var out []string
	for i := 0; i < n; i++ {
		if score {
			out = append(out, fmt.Sprintf("%d.5", i-n/2), fmt.Sprintf("member-%d", i))
		} else {
			out = append(out, fmt.Sprintf("field-%d", i), fmt.Sprintf("value-%d", i))
		}
	}
	return out
}

// dumpCases cover each type in each of the encodings Redis 7.0 picks for
// it (small and large, integers and strings), and a stream with a consumer
// group, a pending entry and deletions.
var dumpCases = []dumpCase{
	{"string", [][]string{{"SET", "k", "hello"}}},
	{"int string", [][]string{{"SET", "k", "-12345"}}},
	{"int64 string", [][]string{{"SET", "k", "9223372036854775807"}}},
	{"binary string", [][]string{{"SET", "k", "a\x00b\xffc"}}},
	{"long compressible string", [][]string{{"SET", "k", strings.Repeat("abcd", 3000)}}},
	{"small list", [][]string{append([]string{"RPUSH", "k"}, "a", "12", "-7", strings.Repeat("x", 300))}},
	{"large list", [][]string{append([]string{"RPUSH", "k"}, seq("element-", 5000)...)}},
	{"intset", [][]string{{"SADD", "k", "3", "-1", "70000", "1099511627776"}}},
	{"set", [][]string{{"SADD", "k", "a", "b", "1"}}},
	{"large set", [][]string{append([]string{"SADD", "k"}, seq("m", 700)...)}},
	{"small hash", [][]string{append([]string{"HSET", "k"}, pairs(5, false)...)}},
	{"large hash", [][]string{append([]string{"HSET", "k"}, pairs(300, false)...)}},
	{"small zset", [][]string{append([]string{"ZADD", "k"}, pairs(5, true)...)}},
	{"large zset", [][]string{append([]string{"ZADD", "k"}, pairs(300, true)...)}},
	{"zset with infinities", [][]string{{"ZADD", "k", "inf", "top", "-inf", "bottom", "0", "zero"}}},
	{"stream", [][]string{
		{"XADD", "k", "1-1", "f", "v", "g", "w"},
		{"XADD", "k", "2-1", "f", "x"},
		{"XADD", "k", "3-7", "f", "y"},
		{"XDEL", "k", "2-1"},
		{"XGROUP", "CREATE", "k", "grp", "0-0"},
		{"XGROUP", "CREATE", "k", "late", "3-7"},
		{"XREADGROUP", "GROUP", "grp", "alice", "COUNT", "1", "STREAMS", "k", ">"},
	}},
	{"large stream", func() [][]string {
		var out [][]string
		for i := 1; i <= 250; i++ {
			out = append(out, []string{"XADD", "k", fmt.Sprintf("%d-0", i), "n", fmt.Sprint(i), "pad", strings.Repeat("p", i%40)})
		}
		return out
	}()},
}

// TestDumpRestoreAcrossEngines moves every case's value both ways: DUMP on
// redis-server and RESTORE on the engine, DUMP on the engine and RESTORE
// on redis-server; the restored key must read the same as the original,
// type, value and (ABSTTL) expiry included. The engine's DUMP is also
// taken from inside a script.
func TestDumpRestoreAcrossEngines(t *testing.T) {
	// A virtual clock ahead of the server's: a pending entry's delivery
	// time from the server must be in the engine's past (miniredis's
	// XPENDING leaves out entries delivered in its future).
	rd, ed := redisAndEngine(t, 2*time.Minute, transactional.WithClock(time.Now().Add(time.Hour)))
	keys := []string{"k"}
	const at = "4102444800123"

	for _, c := range dumpCases {
		t.Run(c.name, func(t *testing.T) {
			for _, dir := range []struct {
				name     string
				from, to doer
				script   bool
			}{
				{"redis to engine", rd, ed, false},
				{"engine to redis", ed, rd, false},
				{"engine script to redis", ed, rd, true},
			} {
				japply(t, dir.from, append([][]string{{"FLUSHALL"}}, c.build...))
				japply(t, dir.to, [][]string{{"FLUSHALL"}})
				want := jdescribe(t, dir.from, keys)
				var payload any
				var err error
				if dir.script {
					payload, err = dir.from("EVAL", "return redis.call('DUMP', KEYS[1])", "1", "k")
				} else {
					payload, err = dir.from("DUMP", "k")
				}
				if err != nil {
					t.Fatalf("%s: DUMP: %v", dir.name, err)
				}
				if _, err := dir.to("RESTORE", "k", "0", payload.(string)); err != nil {
					t.Fatalf("%s: RESTORE: %v", dir.name, err)
				}
				if got := jdescribe(t, dir.to, keys); got != want {
					t.Errorf("%s: restored\n%s\nfrom\n%s", dir.name, clipText(got), clipText(want))
				}
				// With an absolute expiry, replacing what is there.
				japply(t, dir.from, [][]string{{"PEXPIREAT", "k", at}})
				if _, err := dir.to("RESTORE", "k", at, payload.(string), "REPLACE", "ABSTTL", "IDLETIME", "10"); err != nil {
					t.Fatalf("%s: RESTORE REPLACE ABSTTL: %v", dir.name, err)
				}
				if got, want := jdescribe(t, dir.to, keys), jdescribe(t, dir.from, keys); got != want {
					t.Errorf("%s: restored with ABSTTL\n%s\nfrom\n%s", dir.name, clipText(got), clipText(want))
				}
			}
		})
	}
}

// TestRestoreErrors compares RESTORE's refusals, in Redis's order of
// checks, and DUMP of a missing key, on both targets.
func TestRestoreErrors(t *testing.T) {
	rd, ed := redisAndEngine(t, time.Minute)

	// A payload both agree on: a string's, as Redis writes it.
	japply(t, rd, [][]string{{"FLUSHALL"}, {"SET", "src", "value"}})
	good, err := rd("DUMP", "src")
	if err != nil {
		t.Fatal(err)
	}
	p := good.(string)
	badCRC := p[:len(p)-1] + string(p[len(p)-1]^1)
	badVersion := p[:len(p)-10] + "\xff\x00" + p[len(p)-8:]
	cmds := [][]string{
		{"DUMP", "missing"},
		{"RESTORE", "k", "0", p},
		{"RESTORE", "k", "0", p},
		{"RESTORE", "k", "0", p, "REPLACE"},
		{"RESTORE", "k", "-1", p, "REPLACE"},
		{"RESTORE", "k", "x", p, "REPLACE"},
		{"RESTORE", "n", "0", badCRC},
		{"RESTORE", "n", "0", badVersion},
		{"RESTORE", "n", "0", "short"},
		{"RESTORE", "n", "0", p, "BOGUS"},
		{"RESTORE", "n", "0", p, "IDLETIME", "-1"},
		{"RESTORE", "n", "0", p, "IDLETIME", "x"},
		{"RESTORE", "n", "0", p, "FREQ", "256"},
		{"RESTORE", "n", "0", p, "FREQ", "5", "IDLETIME", "5"},
		{"RESTORE", "n", "0", p, "IDLETIME"},
		{"RESTORE", "n", "0", p, "FREQ", "5"},
		{"RESTORE", "old", "1", p, "ABSTTL"},
		{"EXISTS", "old"},
		{"RESTORE", "n", "0", p, "REPLACE", "ABSTTL", "1"},
		{"EVAL", "return redis.pcall('RESTORE', KEYS[1], 0, 'junk')", "1", "n"},
		{"COPY", "k", "k"},
		{"COPY", "k", "c", "DB", "16"},
		{"COPY", "k", "c", "DB", "x"},
		{"COPY", "k", "c", "BOGUS"},
		{"COPY", "k", "c"},
		{"COPY", "k", "c"},
		{"COPY", "k", "c", "REPLACE"},
		{"COPY", "k", "c", "DB", "1"},
		{"COPY", "nothing", "c"},
	}
	for _, do := range []doer{rd, ed} {
		japply(t, do, [][]string{{"FLUSHALL"}})
	}
	for _, c := range cmds {
		want, werr := rd(c...)
		got, gerr := ed(c...)
		if fmt.Sprint(want) != fmt.Sprint(got) || jerr(werr) != jerr(gerr) {
			t.Errorf("%q:\n redis:  %v %v\n engine: %v %v", c, want, werr, got, gerr)
		}
	}
	if want, got := jdescribe(t, rd, []string{"k", "n", "c"}), jdescribe(t, ed, []string{"k", "n", "c"}); want != got {
		t.Errorf("keyspace: redis\n%s\nengine\n%s", want, got)
	}
}

// clipText keeps the ends of a long description, where values differ most
// often (the expiry is last).
func clipText(s string) string {
	if len(s) > 600 {
		return fmt.Sprintf("%s ...(%d bytes)... %s", s[:300], len(s), s[len(s)-200:])
	}
	return s
}
