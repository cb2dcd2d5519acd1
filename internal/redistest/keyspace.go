package redistest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Describe renders the keys' type, value and absolute expiry in one
// canonical string: what "the keyspace is identical" means in these tests.
// Sets and hashes are sorted; a stream is its entries, its last ID and its
// groups with their pending entries.
func Describe(t testing.TB, ctx context.Context, c redis.Cmdable, keys []string) string {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		typ, err := c.Type(ctx, k).Result()
		if err != nil {
			t.Fatalf("TYPE %s: %v", k, err)
		}
		fmt.Fprintf(&b, "%s %s", k, typ)
		switch typ {
		case "none":
			b.WriteString("\n")
			continue
		case "string":
			fmt.Fprintf(&b, " %q", c.Get(ctx, k).Val())
		case "list":
			fmt.Fprintf(&b, " %q", c.LRange(ctx, k, 0, -1).Val())
		case "set":
			m := c.SMembers(ctx, k).Val()
			sort.Strings(m)
			fmt.Fprintf(&b, " %q", m)
		case "zset":
			fmt.Fprintf(&b, " %v", c.ZRangeWithScores(ctx, k, 0, -1).Val())
		case "hash":
			h := c.HGetAll(ctx, k).Val()
			var fs []string
			for f, v := range h {
				fs = append(fs, f+"="+v)
			}
			sort.Strings(fs)
			fmt.Fprintf(&b, " %q", fs)
		case "stream":
			fmt.Fprintf(&b, " %v", c.XRange(ctx, k, "-", "+").Val())
			info, err := c.XInfoStream(ctx, k).Result()
			if err != nil {
				t.Fatalf("XINFO STREAM %s: %v", k, err)
			}
			fmt.Fprintf(&b, " last=%s max-deleted=%s added=%d", info.LastGeneratedID, info.MaxDeletedEntryID, info.EntriesAdded)
			groups := c.XInfoGroups(ctx, k).Val()
			for _, g := range groups {
				fmt.Fprintf(&b, " group %s last=%s read=%d", g.Name, g.LastDeliveredID, g.EntriesRead)
				// Idle times change between two looks; IDs, owners and counts do not.
				for _, p := range c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: k, Group: g.Name, Start: "-", End: "+", Count: 1000}).Val() {
					fmt.Fprintf(&b, " %s:%s:%d", p.ID, p.Consumer, p.RetryCount)
				}
			}
		default:
			t.Fatalf("%s: unexpected type %s", k, typ)
		}
		fmt.Fprintf(&b, " expires=%d\n", c.PExpireTime(ctx, k).Val().Milliseconds())
	}
	return b.String()
}

// Apply sends cmds in one pipeline: a test's keyspace set up in one round
// trip.
func Apply(t testing.TB, ctx context.Context, c *redis.Client, cmds [][]any) {
	t.Helper()
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, cmd := range cmds {
			p.Do(ctx, cmd...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
