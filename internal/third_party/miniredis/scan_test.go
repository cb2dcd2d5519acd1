package miniredis

// scriptgen: SCAN, HSCAN, SSCAN and ZSCAN page as Redis 7.0 does
// (scan.go), checked against redis-server.

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// scanCall runs one call of a SCAN-family command and returns the
// element names (for HSCAN and ZSCAN the fields or members, not the
// values or scores) and the next cursor.
func scanCall(t *testing.T, c *redis.Client, cmd, key string, cursor uint64, count int, match string) ([]string, uint64) {
	t.Helper()
	ctx := context.Background()
	var (
		page []string
		next uint64
		err  error
	)
	switch cmd {
	case "scan":
		page, next, err = c.Scan(ctx, cursor, match, int64(count)).Result()
	case "hscan":
		page, next, err = c.HScan(ctx, key, cursor, match, int64(count)).Result()
	case "sscan":
		page, next, err = c.SScan(ctx, key, cursor, match, int64(count)).Result()
	case "zscan":
		page, next, err = c.ZScan(ctx, key, cursor, match, int64(count)).Result()
	}
	if err != nil {
		t.Fatalf("%s %s %d: %v", cmd, key, cursor, err)
	}
	if cmd == "hscan" || cmd == "zscan" {
		names := make([]string, 0, len(page)/2)
		for i := 0; i < len(page); i += 2 {
			names = append(names, page[i])
		}
		page = names
	}
	return page, next
}

// scanAll scans to the end and returns the distinct elements seen and the
// number of calls; between calls it runs between(call), if given. It fails
// after maxCalls, so a scan that does not end cannot hang the test.
func scanAll(t *testing.T, c *redis.Client, cmd, key string, count int, match string, maxCalls int, between func(call int)) (map[string]bool, int) {
	t.Helper()
	seen := map[string]bool{}
	var cursor uint64
	for calls := 1; ; calls++ {
		if calls > maxCalls {
			t.Fatalf("%s %s COUNT %d: no cursor 0 after %d calls", cmd, key, count, maxCalls)
		}
		page, next := scanCall(t, c, cmd, key, cursor, count, match)
		for _, e := range page {
			seen[e] = true
		}
		if next == 0 {
			return seen, calls
		}
		cursor = next
		if between != nil {
			between(calls)
		}
	}
}

// fill writes n elements named e<i> (integers when ints) into key, of the
// type cmd scans, or n string keys when cmd is SCAN.
func fill(t *testing.T, c *redis.Client, cmd, key string, n int, ints bool) []string {
	t.Helper()
	ctx := context.Background()
	names := make([]string, n)
	p := c.Pipeline()
	for i := range names {
		names[i] = "e" + strconv.Itoa(i)
		if ints {
			names[i] = strconv.Itoa(i)
		}
		switch cmd {
		case "scan":
			p.Set(ctx, names[i], "v", 0)
		case "hscan":
			p.HSet(ctx, key, names[i], "v")
		case "sscan":
			p.SAdd(ctx, key, names[i])
		case "zscan":
			p.ZAdd(ctx, key, redis.Z{Score: float64(i), Member: names[i]})
		}
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return names
}

// engines returns a client of a fresh redis-server 7.0 and one of a fresh
// miniredis, in that order.
func engines(t *testing.T) (real, ours *redis.Client) {
	t.Helper()
	srv := redistest.Start(t)
	m := RunT(t)
	ours = redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true})
	t.Cleanup(func() { _ = ours.Close() })
	return srv.Client(t), ours
}

var scanCmds = []string{"scan", "hscan", "sscan", "zscan"}

// TestScanPagesLikeRedis holds the four commands to redis-server over a
// large collection: both page at COUNT 10, in a number of calls within a
// factor of 2 of each other, and both return every element.
func TestScanPagesLikeRedis(t *testing.T) {
	const n, count = 1000, 10
	for _, cmd := range scanCmds {
		t.Run(cmd, func(t *testing.T) {
			real, ours := engines(t)
			var calls [2]int
			for i, c := range []*redis.Client{real, ours} {
				names := fill(t, c, cmd, "big", n, false)
				seen, k := scanAll(t, c, cmd, "big", count, "", 10*n, nil)
				for _, e := range names {
					if !seen[e] {
						t.Fatalf("engine %d: %s missed %q", i, cmd, e)
					}
				}
				calls[i] = k
			}
			t.Logf("%s of %d at COUNT %d: redis-server %d calls, miniredis %d", cmd, n, count, calls[0], calls[1])
			if calls[1] < n/count/2 || calls[1] > 2*calls[0] || 2*calls[1] < calls[0] {
				t.Errorf("%s: %d calls, redis-server %d", cmd, calls[1], calls[0])
			}
		})
	}
}

// TestScanMatchAfterPage: MATCH filters the page once it is taken, so a
// first page can be empty with a cursor that is not 0, on both.
func TestScanMatchAfterPage(t *testing.T) {
	for _, cmd := range scanCmds {
		t.Run(cmd, func(t *testing.T) {
			real, ours := engines(t)
			for i, c := range []*redis.Client{real, ours} {
				fill(t, c, cmd, "big", 1000, false)
				page, next := scanCall(t, c, cmd, "big", 0, 10, "nothing*")
				if len(page) != 0 || next == 0 {
					t.Errorf("engine %d: %s MATCH nothing*: %d elements, cursor %d; want 0 and a cursor", i, cmd, len(page), next)
				}
			}
		})
	}
}

// TestScanSmallWhole: a listpack or intset comes back whole at cursor 0
// whatever COUNT, on both; a cursor Redis never handed out too.
func TestScanSmallWhole(t *testing.T) {
	cases := []struct {
		cmd  string
		n    int
		ints bool
	}{
		{"hscan", 128, false}, // hash-max-listpack-entries
		{"zscan", 128, false}, // zset-max-listpack-entries
		{"sscan", 512, true},  // set-max-intset-entries
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			real, ours := engines(t)
			for i, c := range []*redis.Client{real, ours} {
				names := fill(t, c, tc.cmd, "small", tc.n, tc.ints)
				for _, cursor := range []uint64{0, 42} {
					page, next := scanCall(t, c, tc.cmd, "small", cursor, 1, "")
					if next != 0 || len(page) != len(names) {
						t.Errorf("engine %d: %s cursor %d COUNT 1 over %d: %d elements, cursor %d; want all, 0",
							i, tc.cmd, cursor, tc.n, len(page), next)
					}
				}
			}
		})
	}
}

// TestScanSurvivesChurn: elements present for the whole scan come back at
// least once, and the scan ends in a bounded number of calls, while other
// elements are added and deleted between calls. Run on both engines; the
// bound for ours is exact: no page but the last holds fewer than COUNT.
func TestScanSurvivesChurn(t *testing.T) {
	const stable, count = 600, 10
	for _, cmd := range scanCmds {
		t.Run(cmd, func(t *testing.T) {
			real, ours := engines(t)
			ctx := context.Background()
			for i, c := range []*redis.Client{real, ours} {
				names := fill(t, c, cmd, "big", stable, false)
				r := rand.New(rand.NewSource(int64(i + 1)))
				added := 0
				churn := func(int) {
					// five new elements in, up to five earlier ones out
					for j := 0; j < 5; j++ {
						name := fmt.Sprintf("c%d", added)
						added++
						switch cmd {
						case "scan":
							c.Set(ctx, name, "v", 0)
							c.Del(ctx, fmt.Sprintf("c%d", r.Intn(added)))
						case "hscan":
							c.HSet(ctx, "big", name, "v")
							c.HDel(ctx, "big", fmt.Sprintf("c%d", r.Intn(added)))
						case "sscan":
							c.SAdd(ctx, "big", name)
							c.SRem(ctx, "big", fmt.Sprintf("c%d", r.Intn(added)))
						case "zscan":
							c.ZAdd(ctx, "big", redis.Z{Score: 1, Member: name})
							c.ZRem(ctx, "big", fmt.Sprintf("c%d", r.Intn(added)))
						}
					}
				}
				seen, calls := scanAll(t, c, cmd, "big", count, "", 1000, churn)
				for _, e := range names {
					if !seen[e] {
						t.Fatalf("engine %d: %s missed %q, present throughout", i, cmd, e)
					}
				}
				if calls < stable/count/2 {
					t.Errorf("engine %d: %s ended after %d calls: it did not page", i, cmd, calls)
				}
				if c == ours && calls > (stable+added)/count+1 {
					t.Errorf("%s: %d calls over at most %d elements at COUNT %d", cmd, calls, stable+added, count)
				}
				t.Logf("engine %d: %s: %d calls, %d added", i, cmd, calls, added)
			}
		})
	}
}

// TestScanPage holds scanPage's own promises without a server: pages
// sorted, the cursor resumes past the page, a cursor nobody handed out
// resumes too, and a cursor past every position ends the scan.
func TestScanPage(t *testing.T) {
	elems := make([]string, 100)
	for i := range elems {
		elems[i] = "k" + strconv.Itoa(i)
	}
	var all []string
	var cursor uint64
	calls := 0
	for {
		calls++
		page, next := scanPage(elems, cursor, 7)
		assert(t, sort.StringsAreSorted(page), "page not sorted: %v", page)
		assert(t, len(page) == 7 || next == 0, "short page %d before the end", len(page))
		all = append(all, page...)
		if next == 0 {
			break
		}
		assert(t, next > cursor, "cursor went back: %d after %d", next, cursor)
		cursor = next
	}
	equals(t, 15, calls)
	sort.Strings(all)
	want := append([]string(nil), elems...)
	sort.Strings(want)
	equals(t, want, all)

	page, _ := scanPage(elems, 12345, 1000)
	assert(t, len(page) > 0, "an unknown cursor resumes, got nothing")
	page, next := scanPage(elems, ^uint64(0), 10)
	equals(t, 0, len(page))
	equals(t, uint64(0), next)
}

// TestScanArgsLikeRedis holds cursor and COUNT reading to redis-server:
// any cursor strtoul takes (a sign, up to 2^64-1) is served, others are
// "invalid cursor"; COUNT below 1 is a syntax error on a key that exists.
func TestScanArgsLikeRedis(t *testing.T) {
	real, ours := engines(t)
	ctx := context.Background()
	args := [][]any{
		{"scan", "-1"}, {"scan", "+5"}, {"scan", "18446744073709551615"}, {"scan", "18446744073709551616"},
		{"scan", "-18446744073709551615"}, {"scan", " 1"}, {"scan", "1 "}, {"scan", "0x10"}, {"scan", "-"},
		{"scan", "0", "count", "0"}, {"scan", "0", "count", "-1"}, {"scan", "0", "count", "x"},
		{"hscan", "h", "18446744073709551615"}, {"hscan", "h", "-1"}, {"hscan", "h", "99999999999999999999"},
		{"hscan", "h", "0", "count", "0"}, {"hscan", "h", "0", "count", "-1"},
		{"sscan", "s", "-7"}, {"sscan", "s", "0", "count", "0"}, {"sscan", "s", "0", "count", "-3"},
		{"zscan", "z", "+1"}, {"zscan", "z", "0", "count", "-1"},
		// COUNT as string2l reads it
		{"scan", "0", "count", "+5"}, {"scan", "0", "count", "05"}, {"scan", "0", "count", " 5"},
		{"hscan", "h", "0", "count", "+5"}, {"sscan", "s", "0", "count", "-0"},
		{"scan", "0", "count", "9223372036854775808"}, {"zscan", "z", "0", "count", "9223372036854775807"},
		// the key is looked up after the cursor and before the options
		{"hscan", "nokey", "0", "count", "-1"}, {"sscan", "nokey", "0", "count", "x"},
		{"zscan", "nokey", "0", "bogus"}, {"sscan", "nokey", "x"}, {"zscan", "h", "0", "count", "0"},
		{"hscan", "s", "0", "match"}, {"sscan", "z", "-1", "count", "x"}, {"hscan", "h", "0", "type", "hash"},
		{"scan", "0", "type"}, {"scan", "0", "type", "nosuchtype"}, {"scan", "0", "match"}, {"scan", "0", "bogus"},
	}
	var replies [2][]string
	for i, c := range []*redis.Client{real, ours} {
		c.HSet(ctx, "h", "f", "v")
		c.SAdd(ctx, "s", "m")
		c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "m"})
		for _, a := range args {
			// the pages differ (positions are not Redis's buckets): compare
			// served or which error
			reply := "served"
			if err := c.Do(ctx, a...).Err(); err != nil {
				reply = err.Error()
			}
			replies[i] = append(replies[i], reply)
		}
	}
	for j, a := range args {
		if replies[0][j] != replies[1][j] {
			t.Errorf("%v: redis-server %q, ours %q", a, replies[0][j], replies[1][j])
		}
	}
}
