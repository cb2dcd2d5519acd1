package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// lines are command lines whose keys the real server and Keys must agree
// on: every kind of spec, every getkeys procedure, and their edge cases.
var lines = []string{
	"GET k", "get k", "SET k v", "SET k v GET", "SET k v EX 10 NX", "MSET a 1 b 2 c 3", "MSET a 1 b",
	"MGET a b c", "DEL a", "DEL a b c", "UNLINK a b", "EXISTS a b", "TOUCH a",
	"RENAME a b", "COPY a b", "COPY a b DB 1 REPLACE", "LMOVE a b LEFT RIGHT", "RPOPLPUSH a b", "SMOVE a b m",
	"BITOP AND d a b c", "BITOP NOT d a", "BITFIELD k GET u8 0", "BITFIELD_RO k GET u8 0", "BITCOUNT k",
	"INCR k", "INCRBY k 2", "EXPIRE k 10", "PEXPIRE k 10 NX", "TTL k", "PTTL k", "TYPE k",
	"HSET h f v", "HSET h f v g w", "HMSET h f v", "HGETALL h", "HINCRBY h f 1",
	"LPUSH l a b", "LRANGE l 0 -1", "LPOS l a RANK 1",
	"SADD s a", "SINTER a b c", "SINTERSTORE d a b", "SUNIONSTORE d a", "SDIFF a b",
	"SINTERCARD 2 a b", "SINTERCARD 2 a b LIMIT 1", "SINTERCARD 0 a", "SINTERCARD 3 a b", "SINTERCARD x a", "SINTERCARD -1 a",
	"ZADD z 1 a", "ZRANGE z 0 -1", "ZRANGESTORE d z 0 -1", "ZINTERCARD 2 a b", "ZINTERCARD 1 a LIMIT 3",
	"ZUNIONSTORE d 2 a b", "ZUNIONSTORE d 2 a b WEIGHTS 1 2", "ZINTERSTORE d 1 a", "ZDIFFSTORE d 3 a b c",
	"ZUNIONSTORE d 0 a", "ZUNIONSTORE d 3 a b", "ZUNIONSTORE d x a", "ZUNIONSTORE d 2abc a b", "ZUNIONSTORE d 02 a b",
	"ZUNION 2 a b", "ZINTER 1 a WITHSCORES", "ZDIFF 2 a b",
	"LMPOP 2 a b LEFT", "LMPOP 1 a RIGHT COUNT 2", "BLMPOP 0 2 a b LEFT", "ZMPOP 1 z MIN", "BZMPOP 1 2 a b MAX",
	"BLPOP a b 0", "BRPOP a 0", "BZPOPMIN a b 0", "BLMOVE a b LEFT LEFT 0", "BRPOPLPUSH a b 0",
	"EVAL s 0", "EVAL s 2 a b c", "EVAL s 1 a", "EVAL s 3 a b", "EVAL s x a", "EVAL s -1", "EVALSHA sha 1 a",
	"EVAL_RO s 1 a", "EVALSHA_RO sha 2 a b", "FCALL f 1 a x", "FCALL f 0", "FCALL_RO f 2 a b",
	"SORT k", "SORT k STORE d", "SORT k BY w GET # GET h->f STORE d", "SORT k STORE d1 STORE d2", "SORT k LIMIT 0 10 STORE d",
	"SORT k STORE", "SORT k GET store STORE d", "SORT k BY store", "SORT_RO k BY w GET #", "SORT_RO k",
	"MIGRATE h 6379 k 0 5000", "MIGRATE h 6379 \"\" 0 5000 KEYS a b c", "MIGRATE h 6379 k 0 5000 KEYS a b",
	"MIGRATE h 6379 \"\" 0 5000 COPY REPLACE KEYS a", "MIGRATE h 6379 \"\" 0 5000 AUTH pw KEYS a b",
	"MIGRATE h 6379 \"\" 0 5000 AUTH2 u pw KEYS a", "MIGRATE h 6379 \"\" 0 5000 AUTH keys KEYS a",
	"GEOADD g 1 2 m", "GEORADIUS g 1 2 3 m", "GEORADIUS g 1 2 3 m STORE d", "GEORADIUS g 1 2 3 m STOREDIST d",
	"GEORADIUS g 1 2 3 m STORE d1 STOREDIST d2", "GEORADIUS g 1 2 3 m STORE", "GEORADIUSBYMEMBER g m 3 km STORE d",
	"GEORADIUS_RO g 1 2 3 m", "GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km",
	"XADD s * f v", "XRANGE s - +", "XREAD STREAMS a 0", "XREAD STREAMS a b 0 0", "XREAD COUNT 2 STREAMS a b 0 0",
	"XREAD BLOCK 0 COUNT 1 STREAMS a 0", "XREAD STREAMS a b 0", "XREAD STREAMS a", "XREAD STREAMS streams 0",
	"XREADGROUP GROUP g c STREAMS a 0", "XREADGROUP GROUP g c COUNT 1 NOACK STREAMS a b > >",
	"XREADGROUP GROUP streams c STREAMS a 0", "XGROUP CREATE s g $", "XINFO STREAM s", "XAUTOCLAIM s g c 0 0",
	"OBJECT ENCODING k", "MEMORY USAGE k", "DEBUG OBJECT k", "PFMERGE d a b", "PFCOUNT a b",
	"LCS a b", "GETEX k PX 10", "GETDEL k", "RESTORE k 0 payload", "DUMP k", "WATCH a b",
	"PUBLISH ch m", "SPUBLISH ch m", "SSUBSCRIBE a b", "PING", "TIME", "CONFIG GET x", "CLIENT LIST",
	"SCRIPT EXISTS s", "KEYS *", "SCAN 0", "OBJECT HELP", "FUNCTION LIST", "EXPIRETIME k",
}

func TestKeysAgreeWithServer(t *testing.T) {
	c := redistest.Start(t).Client(t)
	for _, line := range lines {
		argv := split(line)
		compare(t, c, argv)
	}
}

// TestKeysSweep runs every command of the table with the fewest arguments
// it accepts and a few more, once with distinct names and once with every
// argument "2", so that keynum specs see a valid count.
func TestKeysSweep(t *testing.T) {
	c := redistest.Start(t).Client(t)
	var argvs [][]string
	for _, cmd := range All() {
		if cmd.Container {
			continue
		}
		words := strings.SplitN(strings.ToUpper(cmd.Name), "|", 2)
		n := max(cmd.Arity, -cmd.Arity)
		for extra := range 4 {
			if cmd.Arity > 0 && extra > 0 {
				break
			}
			for _, style := range []string{"names", "twos"} {
				argv := append([]string(nil), words...)
				for i := len(words); i < n+extra; i++ {
					if style == "names" {
						argv = append(argv, "a"+strconv.Itoa(i))
					} else {
						argv = append(argv, "2")
					}
				}
				argvs = append(argvs, argv)
			}
		}
	}
	if len(argvs) < 500 {
		t.Fatalf("sweep built only %d command lines", len(argvs))
	}
	for _, argv := range argvs {
		compare(t, c, argv)
	}
}

// compare asks the server for argv's keys, with COMMAND GETKEYS and
// COMMAND GETKEYSANDFLAGS, and checks Find, Keys and KeysAndFlags agree.
func compare(t *testing.T, c *redis.Client, argv []string) {
	t.Helper()
	for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
		args := []any{"COMMAND", sub}
		for _, a := range argv {
			args = append(args, a)
		}
		reply, err := c.Do(context.Background(), args...).Slice()
		want := fmt.Sprint(reply)
		if err != nil {
			want = "error: " + err.Error()
		}
		if got := ours(argv, sub == "GETKEYSANDFLAGS"); got != want {
			t.Errorf("%s %s: ours %s; server %s", sub, strings.Join(argv, " "), got, want)
		}
	}
}

// ours is what COMMAND GETKEYS (GETKEYSANDFLAGS with flags) answers from
// this package, printed as compare prints the server's reply.
func ours(argv []string, flags bool) string {
	var got string
	cmd := Find(argv)
	switch {
	case len(argv) < 2 && flags:
		got = "error: ERR wrong number of arguments for 'command|getkeysandflags' command"
	case len(argv) < 2: // GETKEYS's own arity: a command and at least one argument
		got = "error: ERR wrong number of arguments for 'command|getkeys' command"
	case cmd == nil:
		got = "error: ERR Invalid command specified"
	case !cmd.HasKeys():
		got = "error: ERR The command has no key arguments"
	case !cmd.ArityOK(len(argv)):
		got = "error: ERR Invalid number of arguments specified for command"
	default:
		refs, err := cmd.KeysAndFlags(argv)
		pos, err2 := cmd.Keys(argv)
		switch {
		case !errors.Is(err, err2) || len(pos) != len(refs):
			got = fmt.Sprintf("Keys %v, %v; KeysAndFlags %v, %v", pos, err2, refs, err)
		case errors.Is(err, ErrInvalid):
			got = "error: ERR Invalid arguments specified for command"
		case err != nil:
			got = "error: " + err.Error()
		default:
			reply := make([]any, len(refs))
			for i, r := range refs {
				if r.Pos != pos[i] {
					return fmt.Sprintf("Keys %v; KeysAndFlags %v", pos, refs)
				}
				reply[i] = argv[r.Pos]
				if flags {
					var names []any
					for b, n := range KeyFlagNames {
						if r.Flags&(1<<b) != 0 {
							names = append(names, n)
						}
					}
					reply[i] = []any{argv[r.Pos], names}
				}
			}
			got = fmt.Sprint(reply)
		}
	}
	return got
}

// split splits on blanks; "" is an empty argument.
func split(line string) []string {
	f := strings.Fields(line)
	for i, w := range f {
		if w == `""` {
			f[i] = ""
		}
	}
	return f
}

func TestKeysOfUnknownArguments(t *testing.T) {
	for _, tc := range []struct {
		line    string
		unknown []int // argument positions a linter cannot know
		want    []int
		err     error
	}{
		{"EVAL s 2 a b", []int{2}, nil, ErrDynamic},
		{"EVAL s 2 a b", []int{3, 4}, []int{3, 4}, nil},
		{"ZUNIONSTORE d 2 a b", []int{2}, nil, ErrDynamic},
		// An unknown argument is a value, not a keyword: COUNT's value
		// cannot hide the STREAMS keyword.
		{"XREAD COUNT 5 STREAMS a 0", []int{2}, []int{4}, nil},
		{"SORT k STORE d", []int{3}, []int{1, 3}, nil},
		{"MIGRATE h 6379 \"\" 0 5000 KEYS a", []int{3}, nil, ErrDynamic},
		{"GET k", []int{1}, []int{1}, nil},
	} {
		argv := split(tc.line)
		a := partial{argv, tc.unknown}
		got, err := Find(argv).KeysOf(a)
		if !errors.Is(err, tc.err) || !slices.Equal(got, tc.want) {
			t.Errorf("%s with %v unknown: %v, %v; want %v, %v", tc.line, tc.unknown, got, err, tc.want, tc.err)
		}
	}
}

type partial struct {
	argv    []string
	unknown []int
}

func (p partial) Len() int { return len(p.argv) }
func (p partial) Arg(i int) (string, bool) {
	if slices.Contains(p.unknown, i) {
		return "", false
	}
	return p.argv[i], true
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"GET"}, "get"},
		{[]string{"config", "GET", "x"}, "config|get"},
		{[]string{"CONFIG"}, "config"},
		{[]string{"config", "nope"}, ""},
		{[]string{"nope"}, ""},
		{nil, ""},
	} {
		got := ""
		if c := Find(tc.argv); c != nil {
			got = c.Name
		}
		if got != tc.want {
			t.Errorf("Find(%q) = %q; want %q", tc.argv, got, tc.want)
		}
	}
	if c := Lookup("incr"); c == nil || !c.Flags.Has(Write|DenyOOM|Fast) || c.Arity != 2 {
		t.Errorf("Lookup(incr) = %+v", c)
	}
	if c := Lookup("eval"); c == nil || !c.Flags.Has(NoScript) {
		t.Errorf("EVAL must be refused inside scripts: %+v", c)
	}
}

func BenchmarkLookup(b *testing.B) {
	for b.Loop() {
		if Lookup("zunionstore") == nil {
			b.Fatal("missing")
		}
	}
}

func BenchmarkKeys(b *testing.B) {
	argv := split("ZUNIONSTORE d 3 a b c WEIGHTS 1 2 3")
	c := Find(argv)
	for b.Loop() {
		if _, err := c.Keys(argv); err != nil {
			b.Fatal(err)
		}
	}
}
