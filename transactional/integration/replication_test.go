package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
	"github.com/scriptgen/scriptgen/transactional"
	"github.com/scriptgen/scriptgen/transactional/prelude"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// replCase is a sequence of commands whose replication stream is compared.
// blocked, when set, is sent on a second connection first and left to
// block; the case's commands then serve it.
type replCase struct {
	name    string
	setup   [][]string // before the replica attaches: not in the stream
	blocked []string
	cmds    [][]string
}

// replCases cover what Redis 7.0 rewrites before it propagates (TTLs as
// absolute times, pops as what they took), what it wraps in MULTI/EXEC
// (scripts' and transactions' effects when more than one), and what it
// never propagates (reads, writes that change nothing, EVAL itself).
var replCases = []replCase{
	{name: "ttl/set", cmds: [][]string{
		cmd("SET", "a", "1", "EX", "200"), cmd("SET", "a", "1", "PX", "100000"),
		cmd("SET", "a", "1", "EXAT", future(100)), cmd("SET", "a", "1", "PXAT", futureMs(100)),
		cmd("SETEX", "a", "100", "v"), cmd("PSETEX", "a", "100000", "v"),
		cmd("SET", "a", "2", "KEEPTTL"), cmd("SET", "a", "3", "GET"), cmd("SET", "a", "4", "GET", "EX", "10"),
		cmd("SET", "a", "5", "NX"), cmd("SET", "nx", "5", "XX"),
	}},
	{name: "ttl/expire", setup: [][]string{{"SET", "a", "1"}, {"SET", "b", "1"}}, cmds: [][]string{
		cmd("EXPIRE", "a", "100"), cmd("PEXPIRE", "a", "100000"), cmd("EXPIREAT", "a", future(100)),
		cmd("PEXPIREAT", "a", futureMs(100)), cmd("EXPIRE", "a", "300", "GT"), cmd("EXPIRE", "a", "30", "GT"),
		cmd("EXPIRE", "missing", "10"), cmd("PERSIST", "a"), cmd("PERSIST", "a"),
		cmd("EXPIREAT", "b", future(-100)),
	}},
	{name: "ttl/getex", setup: [][]string{{"SET", "a", "1"}}, cmds: [][]string{
		cmd("GETEX", "a", "EX", "200"), cmd("GETEX", "a", "PX", "200000"), cmd("GETEX", "a", "EXAT", future(100)),
		cmd("GETEX", "a", "PXAT", futureMs(100)), cmd("GETEX", "a"), cmd("GETEX", "a", "PERSIST"),
		cmd("GETEX", "a", "PERSIST"), cmd("GETEX", "a", "EXAT", future(-100)),
	}},
	{name: "ttl/restore", setup: [][]string{{"SET", "src", "v"}}, cmds: [][]string{
		cmd("RESTORE", "r1", "100000", dumpV),
		cmd("RESTORE", "r2", futureMs(100), dumpV, "ABSTTL"),
		cmd("RESTORE", "r3", "0", dumpV),
	}},
	{name: "strings/rewritten", setup: [][]string{{"SET", "a", "1"}, {"HSET", "h", "f", "1"}}, cmds: [][]string{
		cmd("GETSET", "a", "2"), cmd("GETDEL", "a"), cmd("GETDEL", "a"),
		cmd("INCRBYFLOAT", "f", "1.5"), cmd("INCRBYFLOAT", "f", "1e2"), cmd("HINCRBYFLOAT", "h", "f", "0.25"),
	}},
	{name: "writes/no-change", setup: [][]string{{"SADD", "s", "a"}, {"ZADD", "z", "1", "a"}, {"HSET", "h", "f", "v"}}, cmds: [][]string{
		cmd("DEL", "missing"), cmd("SADD", "s", "a"), cmd("ZADD", "z", "1", "a"), cmd("SREM", "s", "b"),
		cmd("LPOP", "missing"), cmd("HDEL", "h", "g"), cmd("GET", "s"), cmd("MGET", "a", "b"),
		cmd("DEL", "s", "missing"), cmd("HSET", "h", "f", "v"),
	}},
	{name: "db/select", cmds: [][]string{
		cmd("SET", "a", "1"), cmd("SELECT", "2"), cmd("SET", "a", "2"), cmd("SELECT", "9"),
		cmd("SWAPDB", "2", "9"), cmd("SET", "b", "1"), cmd("FLUSHDB"), cmd("FLUSHDB"),
	}},
	{name: "scripts/effects", setup: [][]string{{"SADD", "one", "m"}, {"MSET", "x", "1", "y", "2"}}, cmds: [][]string{
		ev("return redis.call('spop', KEYS[1])", 1, "one"),
		ev("return redis.call('spop', KEYS[1])", 1, "one"),
		ev("return redis.call('mget', KEYS[1], KEYS[2])", 2, "x", "y"),
		ev("redis.call('set', KEYS[1], 'a') return redis.call('incr', KEYS[2])", 2, "s", "n"),
		ev("return redis.call('expire', KEYS[1], 100)", 1, "x"),
		ev("return redis.call('incrbyfloat', KEYS[1], 1)", 1, "fl"),
		ev("redis.call('select', 3) redis.call('set', KEYS[1], 'in3') return 1", 1, "k"),
		ev("redis.call('set', KEYS[1], 'a') return redis.call('del', KEYS[1])", 1, "t"),
		ev("return redis.pcall('incr', KEYS[1])", 1, "s"),
		cmd("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "x"),
		ev("redis.set_repl(redis.REPL_NONE) redis.call('set', KEYS[1], 1) redis.set_repl(redis.REPL_ALL) return redis.call('set', KEYS[2], 2)", 2, "r1", "r2"),
		ev("redis.set_repl(redis.REPL_AOF) redis.call('set', KEYS[1], 1) redis.call('incr', KEYS[2]) return 1", 2, "r1", "r2"),
		ev("redis.set_repl(redis.REPL_REPLICA) redis.call('set', KEYS[1], 3) redis.call('incr', KEYS[2]) return 1", 2, "r1", "r2"),
		cmd("SET", "after", "1"),
	}},
	{name: "scripts/functions", setup: [][]string{
		{"FUNCTION", "LOAD", "REPLACE", "#!lua name=repl\nredis.register_function('two', function(k) redis.call('set', k[1], 1) return redis.call('incr', k[1]) end)\nredis.register_function('one', function(k) return redis.call('set', k[1], 1, 'px', 5000) end)"},
	}, cmds: [][]string{
		cmd("FCALL", "two", "1", "f"), cmd("FCALL", "one", "1", "g"),
	}},
	{name: "scripts/libraries", cmds: [][]string{
		cmd("FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f', function() return 1 end)"),
		cmd("FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f', function() return 1 end)"),
		cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=lib1\nredis.register_function('f', function() return 2 end)"),
		cmd("FUNCTION", "LIST"), cmd("FUNCTION", "DELETE", "nolib"), cmd("FUNCTION", "DELETE", "lib1"),
		cmd("SCRIPT", "LOAD", "return 1"), cmd("FUNCTION", "FLUSH"),
	}},
	{name: "multi/exec", setup: [][]string{{"SET", "x", "1"}}, cmds: [][]string{
		cmd("MULTI"), cmd("SET", "a", "1"), cmd("INCR", "a"), cmd("EXPIRE", "a", "100"), cmd("EXEC"),
		cmd("MULTI"), cmd("SET", "b", "1"), cmd("GET", "b"), cmd("EXEC"),
		cmd("MULTI"), cmd("GET", "x"), cmd("EXEC"),
		cmd("MULTI"), cmd("SET", "c", "1"), cmd("EVAL", "redis.call('set', KEYS[1], 2) return redis.call('incr', KEYS[1])", "1", "c"), cmd("EXEC"),
	}},
	{name: "pops/mpop", setup: [][]string{{"RPUSH", "l", "a", "b", "c"}, {"ZADD", "z", "1", "a", "2", "b", "3", "c"}}, cmds: [][]string{
		cmd("LMPOP", "2", "nol", "l", "LEFT"), cmd("LMPOP", "1", "l", "RIGHT", "COUNT", "10"), cmd("LMPOP", "1", "l", "LEFT"),
		cmd("ZMPOP", "1", "z", "MIN"), cmd("ZMPOP", "2", "noz", "z", "MAX", "COUNT", "10"), cmd("ZMPOP", "1", "z", "MIN"),
	}},
	{name: "pops/blocking-ready", setup: [][]string{{"RPUSH", "l", "a", "b", "c", "d", "e"}, {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}}, cmds: [][]string{
		cmd("BLPOP", "nol", "l", "0"), cmd("BRPOP", "l", "0"), cmd("BRPOPLPUSH", "l", "dst", "0"),
		cmd("BLMOVE", "l", "dst", "LEFT", "RIGHT", "0"), cmd("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "5"),
		cmd("BZPOPMIN", "z", "0"), cmd("BZPOPMAX", "z", "0"), cmd("BZMPOP", "0", "1", "z", "MIN"),
		cmd("BZMPOP", "0", "1", "z", "MAX", "COUNT", "9"), cmd("BLPOP", "l", "0.01"),
	}},
	{name: "pops/blocked-served", blocked: []string{"BLMPOP", "0", "1", "q", "RIGHT", "COUNT", "2"}, cmds: [][]string{
		cmd("RPUSH", "q", "a", "b", "c"), cmd("SET", "after", "1"),
	}},
	{name: "pops/spop", setup: [][]string{{"SADD", "s", "a", "b", "c"}, {"SADD", "t", "a"}, {"SADD", "u", "a", "b", "c", "d"}}, cmds: [][]string{
		cmd("SPOP", "s", "3"), cmd("SPOP", "t"), cmd("SPOP", "t"), cmd("SPOP", "u", "2"), cmd("SPOP", "u", "0"),
	}},
	{name: "streams/xadd", cmds: [][]string{
		cmd("XADD", "st", "*", "f", "v"), cmd("XADD", "st", "NOMKSTREAM", "MAXLEN", "=", "5", "*", "f", "v"),
		cmd("XADD", "st", "9999999999999-1", "f", "v"), cmd("XADD", "nost", "NOMKSTREAM", "*", "f", "v"),
	}},
	{name: "streams/trim", setup: streamSetup(120), cmds: [][]string{
		cmd("XADD", "st", "MAXLEN", "~", "10", "*", "f", "v"), cmd("XTRIM", "st", "MAXLEN", "~", "5"),
		cmd("XTRIM", "st", "MAXLEN", "5"), cmd("XTRIM", "st", "MAXLEN", "5"),
		cmd("XADD", "st", "MINID", "~", "0-1", "200-*", "f", "v"), cmd("XTRIM", "st", "MINID", "=", "200-0"),
	}},
	{name: "misc/forced", cmds: [][]string{
		cmd("PUBLISH", "ch", "msg"), cmd("FLUSHALL"), cmd("SET", "a", "1"),
	}},
}

// streamSetup adds n entries to the stream st, IDs 1-1 to n-1.
func streamSetup(n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		out[i] = []string{"XADD", "st", strconv.Itoa(i+1) + "-1", "f", "v"}
	}
	return out
}

// dumpV is the DUMP payload of the string "v".
var dumpV = string(rdb.Dump(rdb.String("v")))

func future(s int) string   { return strconv.FormatInt(time.Now().Unix()+int64(s), 10) }
func futureMs(s int) string { return strconv.FormatInt(time.Now().UnixMilli()+int64(s)*1000, 10) }

// TestReplicationStream runs replCases on a redis-server and on what
// `scriptgen serve` runs, each read by a replica attached with SYNC, and
// compares the two streams command by command: only absolute times may
// differ, by the seconds between the two runs, and the members SPOP picks
// at random.
func TestReplicationStream(t *testing.T) {
	srv := redistest.Start(t)
	addr := serveForTest(t)
	for _, tc := range replCases {
		t.Run(tc.name, func(t *testing.T) {
			want := replStream(t, srv.Addr, tc)
			got := replStream(t, addr, tc)
			if len(want) != len(got) {
				t.Fatalf("stream lengths differ\nredis:  %q\nserve:  %q", want, got)
			}
			for i := range want {
				if !sameOp(want[i], got[i]) {
					t.Errorf("command %d\nredis:  %q\nserve:  %q\n(redis stream %q)", i, want[i], got[i], want)
				}
			}
		})
	}
}

// TestSyncPayload checks what a replica gets before the stream: PSYNC's
// +FULLRESYNC line and an RDB file that redis-server loads with the keys
// it was sent with.
func TestSyncPayload(t *testing.T) {
	addr := serveForTest(t)
	c := dial(t, addr)
	c.do(t, "SELECT", "4")
	c.do(t, "RPUSH", "l", "a", "b")
	c.do(t, "SET", "s", "v", "PX", "100000")
	r := dial(t, addr)
	r.c.SetDeadline(time.Now().Add(ioTimeout))
	r.c.Write(encode("PSYNC", "?", "-1"))
	line, err := r.r.ReadString('\n')
	if err != nil || !regexp.MustCompile(`^\+FULLRESYNC [0-9a-f]{40} \d+\r\n$`).MatchString(line) {
		t.Fatalf("PSYNC ? -1: %q, %v", line, err)
	}
	file := readPayload(t, r.r)
	srv := redistest.Start(t, "dir "+writeFile(t, file), "dbfilename dump.rdb")
	rc := dial(t, srv.Addr)
	rc.do(t, "SELECT", "4")
	if got := string(rc.do(t, "LRANGE", "l", "0", "-1")); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Errorf("LRANGE l on redis-server after loading serve's RDB: %q", got)
	}
	pttl, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(rc.do(t, "PTTL", "s")), ":")))
	if pttl < 90000 || pttl > 100000 {
		t.Errorf("PTTL s on redis-server after loading serve's RDB: %d", pttl)
	}
}

func writeFile(t *testing.T, b []byte) string {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/dump.rdb", b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveForTest runs transactional.Serve as `scriptgen serve` does, on a
// free loopback port, until the test ends.
func serveForTest(t *testing.T) string {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- transactional.Serve(ctx, transactional.Config{Addr: "127.0.0.1:0", Ready: func(a net.Addr) { ready <- a }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case a := <-ready:
		return a.String()
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	case <-time.After(ioTimeout):
		t.Fatal("Serve did not start")
	}
	return ""
}

// replStream runs tc against addr with a replica attached and returns the
// commands the replica received, up to the marker the test writes last.
func replStream(t *testing.T, addr string, tc replCase) [][]string {
	c := dial(t, addr)
	c.do(t, "CONFIG", "SET", "repl-ping-replica-period", "3600")
	c.do(t, "FLUSHALL")
	c.do(t, "SELECT", "9")
	for _, s := range tc.setup {
		if r := c.do(t, s...); r[0] == '-' {
			t.Fatalf("setup %q: %q", s, r)
		}
	}
	repl := dial(t, addr)
	repl.c.SetDeadline(time.Now().Add(ioTimeout))
	repl.c.Write(encode("SYNC"))
	readPayload(t, repl.r)
	if tc.blocked != nil {
		b := dial(t, addr)
		b.do(t, "SELECT", "9")
		b.c.Write(encode(tc.blocked...))
		waitBlocked(t, c)
	}
	for _, a := range tc.cmds {
		c.do(t, a...)
	}
	c.do(t, "SELECT", "9")
	c.do(t, "SET", "__end__", tc.name)
	var out [][]string
	for i := 0; i < 1000; i++ {
		op, err := readOp(repl.r)
		if err != nil {
			t.Fatalf("reading the stream after %q: %v", out, err)
		}
		if len(op) == 3 && op[1] == "__end__" {
			return out
		}
		out = append(out, op)
	}
	t.Fatalf("no end marker in 1000 commands: %q", out)
	return nil
}

// waitBlocked polls INFO until a client is blocked (at most 5 s).
func waitBlocked(t *testing.T, c *conn) {
	for i := 0; i < 500; i++ {
		if strings.Contains(string(c.do(t, "INFO", "clients")), "blocked_clients:1") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the client did not block")
}

// readPayload reads SYNC's $<len> bulk (newlines before it are pings) and
// checks it is an RDB file.
func readPayload(t *testing.T, r *bufio.Reader) []byte {
	for i := 0; i < 1000; i++ {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading SYNC's payload: %v", err)
		}
		if line == "\n" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if line[0] != '$' || err != nil {
			t.Fatalf("SYNC answered %q", line)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "REDIS00") {
			t.Fatalf("SYNC's payload is no RDB file: %q", b)
		}
		return b
	}
	t.Fatal("no payload after 1000 lines")
	return nil
}

// readOp reads one command of the stream.
func readOp(r *bufio.Reader) ([]string, error) {
	raw, err := readRaw(r)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(strings.NewReader(string(raw)))
	var n int
	if _, err := fmt.Fscanf(br, "*%d\r\n", &n); err != nil {
		return nil, fmt.Errorf("not an array: %q", raw)
	}
	out := make([]string, n)
	for i := range out {
		var l int
		if _, err := fmt.Fscanf(br, "$%d\r\n", &l); err != nil {
			return nil, fmt.Errorf("not a bulk string in %q", raw)
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, err
		}
		out[i] = string(b[:l])
	}
	return out, nil
}

var (
	unixMs   = regexp.MustCompile(`^1\d{12}$`)
	streamID = regexp.MustCompile(`^(1\d{12})-(\d+)$`)
)

// sameOp compares two propagated commands: the name in any case, absolute
// times in milliseconds (and stream IDs made from them) within 5 s, the
// members an SREM from SPOP names as any member.
func sameOp(want, got []string) bool {
	if len(want) != len(got) || !strings.EqualFold(want[0], got[0]) {
		return false
	}
	for i := 1; i < len(want); i++ {
		w, g := want[i], got[i]
		switch {
		case w == g:
		case strings.EqualFold(want[0], "SREM") && i == 2:
		case unixMs.MatchString(w) && unixMs.MatchString(g):
			if !within(w, g) {
				return false
			}
		case streamID.MatchString(w) && streamID.MatchString(g):
			mw, mg := streamID.FindStringSubmatch(w), streamID.FindStringSubmatch(g)
			if !within(mw[1], mg[1]) { // the sequence depends on the ms too
				return false
			}
		default:
			return false
		}
	}
	return true
}

func within(a, b string) bool {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return x-y < 5000 && y-x < 5000
}

// TestReplicaConverges replays what serve streams into a redis-server
// loaded with the RDB file serve sent, as a replica would apply it, and
// compares the two keyspaces, expiries included: whatever the stream's
// shape, a replica must end up holding what the master holds. The
// commands include what picks at random (SPOP, SRANDMEMBER's absence of
// effect), blocking pops, TTLs and transactional scripts whose rollback
// the engine makes without commands.
func TestReplicaConverges(t *testing.T) {
	addr := serveForTest(t)
	c := dial(t, addr)
	c.do(t, "SELECT", "5")
	c.do(t, "RPUSH", "before", "a", "b")
	c.do(t, "SET", "ttl", "v", "PX", "500000")
	repl := dial(t, addr)
	repl.c.SetDeadline(time.Now().Add(ioTimeout))
	repl.c.Write(encode("SYNC"))
	srv := redistest.Start(t, "dir "+writeFile(t, readPayload(t, repl.r)), "dbfilename dump.rdb")

	failing := prelude.Wrap("redis.call('SET', KEYS[1], 'x') redis.call('RPUSH', KEYS[2], 'c') redis.call('DEL', KEYS[3]) return redis.call('INCR', KEYS[1])")
	okScript := prelude.Wrap("redis.call('SET', KEYS[1], 'y', 'EX', 100) return redis.call('LPOP', KEYS[2])")
	for _, a := range [][]string{
		{"SADD", "s", "a", "b", "c", "d", "e"}, {"SPOP", "s"}, {"SPOP", "s", "2"},
		{"HSET", "h", "f", "1"}, {"HINCRBYFLOAT", "h", "f", "0.1"}, {"INCRBYFLOAT", "fl", "3.3"},
		{"EVAL", failing, "3", "tx", "before", "ttl"},
		{"EVAL", okScript, "2", "tx2", "before"},
		{"SELECT", "6"}, {"ZADD", "z", "1", "a", "2", "b"}, {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "5"},
		{"MULTI"}, {"LPUSH", "m", "1"}, {"EXPIRE", "m", "1000"}, {"EXEC"},
		{"GETEX", "ttl", "PX", "1"}, {"SELECT", "5"}, {"GETEX", "ttl", "PERSIST"},
		{"SET", "__end__", "1"},
	} {
		c.do(t, a...)
	}
	rc := dial(t, srv.Addr)
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("no end marker in 1000 commands")
		}
		op, err := readOp(repl.r)
		if err != nil {
			t.Fatal(err)
		}
		if r := rc.do(t, op...); r[0] == '-' {
			t.Fatalf("redis-server refused %q from serve's stream: %q", op, r)
		}
		if op[0] == "SET" && op[1] == "__end__" {
			break
		}
	}
	ctx := context.Background()
	master := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	defer master.Close()
	replica := srv.Client(t)
	for _, db := range []int{5, 6} {
		for _, cl := range []*redis.Client{master, replica} {
			if err := cl.Do(ctx, "SELECT", db).Err(); err != nil {
				t.Fatal(err)
			}
		}
		keys := master.Keys(ctx, "*").Val()
		sort.Strings(keys)
		if rk := replica.Keys(ctx, "*").Val(); len(rk) != len(keys) {
			t.Errorf("db %d: serve holds %q, the replica %q", db, keys, rk)
		}
		want := redistest.Describe(t, ctx, master, keys)
		if got := redistest.Describe(t, ctx, replica, keys); got != want {
			t.Errorf("db %d:\nserve:\n%s\nreplica:\n%s", db, want, got)
		}
	}
}

var clientFlags = regexp.MustCompile(`flags=(\S+)`)

// TestClientListFlags compares CLIENT LIST's flags of a client blocked in
// BRPOP (b: what the suite waits for) and of a replica's connection (S)
// on redis-server and serve.
func TestClientListFlags(t *testing.T) {
	srv := redistest.Start(t)
	for _, addr := range []string{srv.Addr, serveForTest(t)} {
		c := dial(t, addr)
		b := dial(t, addr)
		bid := strings.TrimSpace(strings.TrimPrefix(string(b.do(t, "CLIENT", "ID")), ":"))
		b.c.Write(encode("BRPOP", "nolist", "0"))
		waitBlocked(t, c)
		r := dial(t, addr)
		rid := strings.TrimSpace(strings.TrimPrefix(string(r.do(t, "CLIENT", "ID")), ":"))
		r.c.SetDeadline(time.Now().Add(ioTimeout))
		r.c.Write(encode("SYNC"))
		readPayload(t, r.r)
		for id, want := range map[string]string{bid: "b", rid: "S"} {
			line := string(c.do(t, "CLIENT", "LIST", "ID", id))
			if m := clientFlags.FindStringSubmatch(line); m == nil || m[1] != want {
				t.Errorf("%s: CLIENT LIST ID %s: %q, want flags=%s", addr, id, line, want)
			}
		}
	}
}

// TestRedisReplicaFollowsServe makes a redis-server a replica of serve
// (replicaof: PING, REPLCONF, PSYNC, the RDB file, then the stream and
// REPLCONF ACK every second) and checks that it ends with serve's
// keyspace, expiries included, after writes of every kind, and the
// function libraries loaded before (in the RDB file) and after (streamed).
func TestRedisReplicaFollowsServe(t *testing.T) {
	addr := serveForTest(t)
	ctx := context.Background()
	master := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true})
	defer master.Close()
	master.Do(ctx, "HSET", "before", "f", "v")
	master.Do(ctx, "FUNCTION", "LOAD", "#!lua name=before\nredis.register_function{function_name='b', callback=function() return 'b' end, flags={'no-writes'}}")
	master.Do(ctx, "SET", "ttl", "v", "EX", "1000")
	host, port, _ := net.SplitHostPort(addr)
	srv := redistest.Start(t, "replicaof "+host+" "+port)
	replica := srv.Client(t)
	waitFor(t, "the replica's link up", func() bool {
		return strings.Contains(replica.Info(ctx, "replication").Val(), "master_link_status:up")
	})
	for _, a := range [][]any{
		{"RPUSH", "l", "a", "b", "c"}, {"LMPOP", "1", "l", "LEFT", "COUNT", "2"},
		{"SADD", "s", "1", "2", "3"}, {"SPOP", "s"}, {"INCRBYFLOAT", "f", "0.1"},
		{"EVAL", "redis.call('set', KEYS[1], 1) return redis.call('expire', KEYS[1], 100)", "1", "e"},
		{"SELECT", "3"}, {"ZADD", "z", "1", "a", "2", "b"}, {"ZPOPMIN", "z"}, {"SELECT", "0"},
		{"XADD", "x", "*", "f", "v"},
		{"FUNCTION", "LOAD", "#!lua name=after\nredis.register_function{function_name='a', callback=function() return 'a' end, flags={'no-writes'}}"},
		{"SET", "__end__", "1"},
	} {
		if err := master.Do(ctx, a...).Err(); err != nil {
			t.Fatalf("%v: %v", a, err)
		}
	}
	waitFor(t, "the last write on the replica", func() bool { return replica.Exists(ctx, "__end__").Val() == 1 })
	for _, db := range []int{0, 3} {
		m := redis.NewClient(&redis.Options{Addr: addr, DB: db, DisableIdentity: true})
		defer m.Close()
		r := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: db, DisableIdentity: true})
		defer r.Close()
		keys := m.Keys(ctx, "*").Val()
		sort.Strings(keys)
		if rk := r.Keys(ctx, "*").Val(); len(rk) != len(keys) {
			t.Errorf("db %d: serve holds %q, the replica %q", db, keys, rk)
		}
		if want, got := redistest.Describe(t, ctx, m, keys), redistest.Describe(t, ctx, r, keys); got != want {
			t.Errorf("db %d:\nserve:\n%s\nreplica:\n%s", db, want, got)
		}
	}
	for _, f := range []string{"a", "b"} {
		if got, err := replica.Do(ctx, "FCALL_RO", f, "0").Text(); err != nil || got != f {
			t.Errorf("FCALL_RO %s on the replica: %q, %v", f, got, err)
		}
	}
	checkMinReplicas(t, "serve", master)
	for _, want := range []string{"role:master", "connected_slaves:1"} {
		if info := master.Info(ctx, "replication").Val(); !strings.Contains(info, want) {
			t.Errorf("serve's INFO replication has no %s: %q", want, info)
		}
	}
	if info := replica.Info(ctx, "replication").Val(); !strings.Contains(info, "master_replid:"+runIDOf(t, master)) {
		t.Errorf("the replica's INFO replication does not have serve's replication ID: %q", info)
	}
}

// waitFor polls cond every 20 ms for at most 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestSlowReplicaHoldsNothingUp attaches a replica that never reads and
// writes 40 MB through serve: every write must still be answered at once
// (Redis buffers a replica's stream; a write blocked on its socket would
// hold the keyspace's lock), and the replica, having fallen behind, is
// still attached below Redis's 256 MB limit.
func TestSlowReplicaHoldsNothingUp(t *testing.T) {
	addr := serveForTest(t)
	r := dial(t, addr)
	r.c.Write(encode("SYNC"))
	c := dial(t, addr)
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 40; i++ {
		c.c.SetDeadline(time.Now().Add(5 * time.Second))
		c.c.Write(encode("SET", "k"+strconv.Itoa(i), big))
		if raw, err := readRaw(c.r); err != nil || string(raw) != "+OK\r\n" {
			t.Fatalf("SET %d with a replica that does not read: %q, %v", i, raw, err)
		}
	}
	if !strings.Contains(string(c.do(t, "CLIENT", "LIST")), "flags=S") {
		t.Error("the replica was dropped below the output buffer limit")
	}
}

// runIDOf is the run_id INFO server reports.
func runIDOf(t *testing.T, c *redis.Client) string {
	m := regexp.MustCompile(`run_id:([0-9a-f]{40})`).FindStringSubmatch(c.Info(context.Background(), "server").Val())
	if m == nil {
		t.Fatal("no run_id in INFO server")
	}
	return m[1]
}

// TestMinReplicasOnRedis is what checkMinReplicas holds serve to, on a
// redis-server master with a redis-server replica.
func TestMinReplicasOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	host, port, _ := net.SplitHostPort(srv.Addr)
	rep := redistest.Start(t, "replicaof "+host+" "+port)
	ctx := context.Background()
	waitFor(t, "the replica's link up", func() bool {
		return strings.Contains(rep.Client(t).Info(ctx, "replication").Val(), "master_link_status:up")
	})
	checkMinReplicas(t, "redis-server", srv.Client(t))
}

// checkMinReplicas: with one replica attached (which acknowledges every
// second), min-replicas-to-write 1 lets a write in and 2 refuses it.
func checkMinReplicas(t *testing.T, name string, master *redis.Client) {
	ctx := context.Background()
	master.Do(ctx, "CONFIG", "SET", "min-replicas-to-write", "1")
	if err := master.Do(ctx, "SET", "with-one", "1").Err(); err != nil {
		t.Errorf("%s: SET with min-replicas-to-write 1 and a replica: %v", name, err)
	}
	master.Do(ctx, "CONFIG", "SET", "min-replicas-to-write", "2")
	if err := master.Do(ctx, "SET", "with-two", "1").Err(); err == nil || !strings.HasPrefix(err.Error(), "NOREPLICAS") {
		t.Errorf("%s: SET with min-replicas-to-write 2 and one replica: %v", name, err)
	}
	master.Do(ctx, "CONFIG", "SET", "min-replicas-to-write", "0")
}
