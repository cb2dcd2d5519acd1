package lint

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/clustertest"
	"github.com/scriptgen/scriptgen/internal/redistest"
)

// sortCases are SORT options, with the option Redis 7.0 refuses on a
// cluster and to a user who may not read every key ("" for none).
var sortCases = []struct{ opts, refused string }{
	{"'BY', 'w_*'", "BY"},
	{"'BY', '{s}w_*'", "BY"},
	{"'GET', 'h_*->f'", "GET"},
	{"'GET', '#'", "GET"},
	{"'BY', 'nosort'", ""},
	{"'LIMIT', 0, 2", ""},
}

// TestSortPatterns checks the words of the SORT pattern findings on a real
// Redis Cluster and on a redis-server for a user whose ACL reaches only
// the script's keys: a script lint reports for a pattern is refused there
// with the errors lint quotes, and one it passes runs.
func TestSortPatterns(t *testing.T) {
	ctx := context.Background()
	single := redistest.Start(t)
	admin := single.Client(t)
	if err := admin.Do(ctx, "ACL", "SETUSER", "u", "on", "nopass", "~{s}*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	user := redis.NewClient(&redis.Options{Addr: single.Addr, Username: "u", Password: "x"})
	defer user.Close()
	cluster := clustertest.Start(t).Client(t)
	if err := admin.RPush(ctx, "{s}l", 3, 1, 2).Err(); err != nil {
		t.Fatal(err)
	}
	if err := cluster.RPush(ctx, "{s}l", 3, 1, 2).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range sortCases {
		body := "return redis.call('SORT', KEYS[1], " + tc.opts + ")"
		findings := Source(Options{}, "p.lua", []byte("--! key: s\n"+body))
		for _, where := range []struct {
			c       redis.Scripter
			refusal string
		}{
			{cluster, tc.refused + " option of SORT denied in Cluster mode."},
			{user, tc.refused + " option of SORT denied due to insufficient ACL permissions."},
		} {
			err := where.c.Eval(ctx, body, []string{"{s}l"}).Err()
			switch {
			case tc.refused == "" && (err != nil || len(findings) > 0):
				t.Errorf("%s: redis-server %v, lint %v", tc.opts, err, findings)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), where.refusal)):
				t.Errorf("%s: redis-server %v; want %q", tc.opts, err, where.refusal)
			case tc.refused != "" && (len(findings) != 1 || !strings.Contains(findings[0].Msg, "("+where.refusal+")")):
				t.Errorf("%s: lint %v; want one finding quoting %q", tc.opts, findings, where.refusal)
			}
		}
	}
}
