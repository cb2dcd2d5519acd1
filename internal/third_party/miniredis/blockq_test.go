package miniredis

import (
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// waitBlocked polls INFO's blocked_clients, as Redis's suite does
// (wait_for_blocked_clients_count), bounded to 5 s.
func waitBlocked(t *testing.T, c *proto.Client, n int) {
	t.Helper()
	want := "blocked_clients:" + string(rune('0'+n))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		info, err := c.Do("INFO", "clients")
		ok(t, err)
		if strings.Contains(info, want+"\r\n") {
			return
		}
	}
	t.Fatalf("no %s", want)
}

// TestBlockedInOrder: clients blocked on one key are served in the order
// they blocked, and INFO counts them (Redis's suite, type/zset, "BZMPOP
// with multiple blocked clients", and type/list; upstream woke them all
// to race, and counted none).
func TestBlockedInOrder(t *testing.T) {
	s, c := runWithClient(t)
	waitBlocked(t, c, 0)
	var got []<-chan string
	for i, count := range []string{"1", "10", "10", "1"} {
		dir := []string{"MIN", "MAX"}[i%2]
		got = append(got, goStrings(t, s, "BZMPOP", "0", "2", "z1", "z2", dir, "COUNT", count))
		waitBlocked(t, c, i+1)
	}
	mustDo(t, c, "MULTI", proto.Inline("OK"))
	mustDo(t, c, "ZADD", "z1", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", proto.Inline("QUEUED"))
	mustDo(t, c, "ZADD", "z2", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", proto.Inline("QUEUED"))
	mustDo(t, c, "EXEC", proto.Array(proto.Int(5), proto.Int(5)))
	pop := func(key string, pairs ...string) string {
		var els []string
		for i := 0; i < len(pairs); i += 2 {
			els = append(els, proto.Strings(pairs[i], pairs[i+1]))
		}
		return proto.Array(proto.String(key), proto.Array(els...))
	}
	equals(t, pop("z1", "a", "1"), <-got[0])
	equals(t, pop("z1", "e", "5", "d", "4", "c", "3", "b", "2"), <-got[1])
	equals(t, pop("z2", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"), <-got[2])
	mustDo(t, c, "ZADD", "z2", "1", "a", "2", "b", "3", "c", proto.Int(3))
	equals(t, pop("z2", "c", "3"), <-got[3])
	waitBlocked(t, c, 0)
}

// TestBlockedNotWokenByWrongType: a client blocked on a list is not woken
// by the key becoming a string, and is served once it is a list again
// (Redis's suite, type/list, "BLPOP, LPUSH + DEL + SET should not awake
// blocked client"); on its first try a string is WRONGTYPE.
func TestBlockedNotWokenByWrongType(t *testing.T) {
	s, c := runWithClient(t)
	mustDo(t, c, "SET", "str", "x", proto.Inline("OK"))
	mustDo(t, c, "BLPOP", "str", "0", proto.Error(msgWrongType))
	for _, cmd := range [][]string{{"BLPOP", "l", "0"}, {"BLMPOP", "0", "1", "l", "LEFT"}, {"BRPOPLPUSH", "l", "dst", "0"}} {
		got := goStrings(t, s, cmd...)
		waitBlocked(t, c, 1)
		mustDo(t, c, "MULTI", proto.Inline("OK"))
		mustDo(t, c, "LPUSH", "l", "a", proto.Inline("QUEUED"))
		mustDo(t, c, "DEL", "l", proto.Inline("QUEUED"))
		mustDo(t, c, "SET", "l", "foo", proto.Inline("QUEUED"))
		mustDo(t, c, "EXEC", proto.Array(proto.Int(1), proto.Int(1), proto.Inline("OK")))
		waitBlocked(t, c, 1)
		mustDo(t, c, "DEL", "l", proto.Int(1))
		mustDo(t, c, "LPUSH", "l", "b", proto.Int(1))
		switch cmd[0] {
		case "BLPOP":
			equals(t, proto.Strings("l", "b"), <-got)
		case "BLMPOP":
			equals(t, proto.Array(proto.String("l"), proto.Strings("b")), <-got)
		default:
			equals(t, proto.String("b"), <-got)
		}
	}
}

// TestBlockedTimeoutRESP3: a blocking command whose time is up answers
// RESP3's null to a RESP3 client (Redis's suite, type/zset, "BZPOPMIN/
// BZPOPMAX readraw in RESP3").
func TestBlockedTimeoutRESP3(t *testing.T) {
	_, c := runWithClient(t)
	useRESP3(t, c)
	for _, cmd := range [][]string{
		{"BZPOPMIN", "z", "0.01"}, {"BZMPOP", "0.01", "1", "z", "MIN"}, {"BLPOP", "l", "0.01"},
		{"BLMPOP", "0.01", "1", "l", "LEFT"}, {"BLMOVE", "l", "m", "LEFT", "LEFT", "0.01"}, {"ZMPOP", "1", "z", "MIN"},
	} {
		mustDo(t, c, append(cmd, proto.NilResp3)...)
	}
}

// TestClientUnblock: CLIENT UNBLOCK ends a wait as if its time were up,
// or with Redis's UNBLOCKED error (Redis's suite, type/list, "client
// unblock tests"); the replies and texts are redis-server 7.0.15's.
func TestClientUnblock(t *testing.T) {
	s, c := runWithClient(t)
	rd, err := proto.Dial(s.Addr())
	ok(t, err)
	defer rd.Close()
	res, err := rd.Do("CLIENT", "ID")
	ok(t, err)
	id := strings.TrimSuffix(strings.TrimPrefix(res, ":"), "\r\n")
	for _, tc := range []struct{ how, want string }{
		{"", proto.NilList}, {"TIMEOUT", proto.NilList}, {"error", proto.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")},
	} {
		got := make(chan string, 1)
		go func() {
			res, err := rd.Do("BLPOP", "l", "0")
			if err != nil {
				res = err.Error()
			}
			got <- res
		}()
		waitBlocked(t, c, 1)
		cmd := []string{"CLIENT", "UNBLOCK", id}
		if tc.how != "" {
			cmd = append(cmd, tc.how)
		}
		mustDo(t, c, append(cmd, proto.Int(1))...)
		equals(t, tc.want, <-got)
	}
	mustDo(t, c, "CLIENT", "UNBLOCK", id, proto.Int(0))
	mustDo(t, c, "CLIENT", "UNBLOCK", "asd", proto.Error(msgInvalidInt))
	mustDo(t, c, "CLIENT", "UNBLOCK", "asd", "foo", proto.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"))
	mustDo(t, c, "CLIENT", "UNBLOCK", "1", "timeout", "x",
		proto.Error("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP."))
}
