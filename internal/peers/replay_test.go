package peers

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// This file is the contract between the two halves of peers-txn: the proxy
// (proxy_test.go, txn_test.go), which runs the peers' suites with every
// script swapped for its transactional bundle and hands each script call it
// forwards to a recorder, and the replay (this file and replay_*_test.go),
// which runs the recorded calls again from their recorded keyspace, plain
// and wrapped, with failures injected, and measures server time.

var (
	replayPerScript = flag.Int("peers.replay.calls", 25,
		"calls the replay keeps per script (by SHA-1 of its text), preferring calls that differ")
	replayRounds = flag.Int("peers.replay.rounds", 5,
		"rounds of each call, plain and shipped, whose least server time counts")
	replayBudget = flag.Duration("peers.replay.budget", 15*time.Minute,
		"time one suite's replay may take; calls left then are counted as not replayed")
)

// scriptCall is one script call the proxy forwards: the script's own text
// (as the client sent it with EVAL or SCRIPT LOAD, not the bundle), its
// keys and arguments, and the database the connection had selected.
type scriptCall struct {
	Src  string
	Keys []string
	Args []string
	DB   int
}

// recorder takes the script calls of one suite's run through the proxy.
// record is called before the proxy forwards the call, with the address of
// the server behind the proxy, from many connections at once; it may read
// that server on a connection of its own (a snapshot of the keyspace).
type recorder interface {
	record(addr string, c scriptCall)
}

// replayResult is what replaying one suite's recorded calls found.
type replayResult struct {
	Calls      int                // recorded calls replayed
	Injected   int                // runs failed by an injected error, all targets
	Diffs      []string           // keyspace differences, each described in a line
	Ratios     map[string]float64 // per script (SHA-1 of its text): server time wrapped/plain
	SuiteRatio float64            // the suite's summed server time, wrapped/plain

	// What else the replay met, none of it a difference.
	Recorded   int                       // calls the recorder kept, of Offered
	Offered    int                       // calls the suite made
	Beyond     int                       // injected runs after a final write ran: outside the proof's model
	BeyondLeft int                       // of those, runs whose keyspace then differed (expected: the write stays)
	Clock      []string                  // differences that two plain runs show too: the script reads the clock
	Unordered  []string                  // replies equal but for the order of an array's elements or pairs (unorderedReply)
	Drift      int                       // expiries equal but for the time between the two runs
	Unreached  int                       // injections the shipped run did not reach (it made fewer calls)
	Left       int                       // calls not replayed within the budget
	Names      map[string]string         // per script: its first words, to name it in a log
	Replayed   map[string]int            // per script: calls replayed
	Extra      map[string]map[string]int // per script: commands the shipped runs made beyond the plain runs', by name, summed over Replayed
}

// newRecorder returns an empty recorder for one suite.
func newRecorder() recorder {
	return &callRecorder{perScript: *replayPerScript, clients: map[string]*redis.Client{}, scripts: map[string]*scriptLog{}}
}

// keySnap is one key as the snapshot read it: DUMP's payload and
// PEXPIRETIME (-1: none).
type keySnap struct {
	key, dump string
	at        int64
}

// recordedCall is a call and the keyspace of its database before it ran,
// read from taken on (Unix ms).
type recordedCall struct {
	scriptCall
	pre   []keySnap
	taken int64
}

// at returns the call with its keys' expiries as far from now as they
// were from the snapshot: a lock the suite held for 30 s is held when the
// call is replayed, minutes later. All runs of a replayed call restore the
// same absolute expiries, so they compare to the millisecond.
func (c recordedCall) at(now time.Time) recordedCall {
	shift := now.UnixMilli() - c.taken
	pre := make([]keySnap, len(c.pre))
	for i, k := range c.pre {
		if k.at > 0 {
			k.at += shift
		}
		pre[i] = k
	}
	c.pre = pre
	return c
}

// scriptLog is what is kept of one script: its text, the calls, and how
// many kept calls each shape (keyspace size, key and argument counts) has.
type scriptLog struct {
	sha, src string
	shapes   map[string]int
	calls    []recordedCall
	pending  int
}

// callRecorder keeps, per script, at most perScript calls: the first of
// each shape, and any until half the budget is used, so that a suite's
// thousands of calls of one script cost a few snapshots.
type callRecorder struct {
	perScript int
	mu        sync.Mutex
	clients   map[string]*redis.Client // by address and DB
	scripts   map[string]*scriptLog
	offered   int
}

// snapshotKeys bounds one snapshot: a keyspace larger is not kept.
const snapshotKeys = 20000

func (r *callRecorder) record(addr string, c scriptCall) {
	sha := sha1Hex(c.Src)
	r.mu.Lock()
	r.offered++
	s := r.scripts[sha]
	if s == nil {
		s = &scriptLog{sha: sha, src: c.Src, shapes: map[string]int{}}
		r.scripts[sha] = s
	}
	if len(s.calls)+s.pending >= r.perScript {
		r.mu.Unlock()
		return
	}
	s.pending++
	cl := r.client(addr, c.DB)
	r.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var pre []keySnap
	size, err := cl.DBSize(ctx).Result()
	shape := fmt.Sprintf("%d/%d/%d", bits.Len64(uint64(size)), len(c.Keys), len(c.Args))
	r.mu.Lock()
	keep := err == nil && (s.shapes[shape] == 0 || len(s.calls)+s.pending <= r.perScript/2)
	if keep {
		s.shapes[shape]++
	}
	r.mu.Unlock()
	taken := time.Now().UnixMilli()
	if keep {
		pre, err = snapshot(ctx, cl)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s.pending--
	if keep && err == nil && len(s.calls) < r.perScript {
		c.Keys, c.Args = append([]string(nil), c.Keys...), append([]string(nil), c.Args...)
		s.calls = append(s.calls, recordedCall{scriptCall: c, pre: pre, taken: taken})
	}
}

// client is the recorder's own connection to addr's database db; r.mu held.
func (r *callRecorder) client(addr string, db int) *redis.Client {
	id := fmt.Sprintf("%s/%d", addr, db)
	if c, ok := r.clients[id]; ok {
		return c
	}
	c := redis.NewClient(&redis.Options{Addr: addr, DB: db, Protocol: 2, PoolSize: 4, ReadTimeout: 30 * time.Second})
	r.clients[id] = c
	return c
}

// close drops the recorder's connections.
func (r *callRecorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, c := range r.clients {
		_ = c.Close()
		delete(r.clients, id)
	}
}

// logs returns the scripts with kept calls, by SHA-1.
func (r *callRecorder) logs() []*scriptLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*scriptLog
	for _, s := range r.scripts {
		if len(s.calls) > 0 {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].sha < out[j].sha })
	return out
}

// snapshot reads every key of c's database: SCAN, then DUMP and
// PEXPIRETIME per key, pipelined. It is not atomic with other clients; a
// key gone between SCAN and DUMP is left out.
func snapshot(ctx context.Context, c *redis.Client) ([]keySnap, error) {
	var keys []string
	var cursor uint64
	for {
		ks, next, err := c.Scan(ctx, cursor, "", 1000).Result()
		if err != nil {
			return nil, fmt.Errorf("SCAN: %w", err)
		}
		keys = append(keys, ks...)
		if len(keys) > snapshotKeys {
			return nil, fmt.Errorf("more than %d keys", snapshotKeys)
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	sort.Strings(keys)
	keys = dedupe(keys)
	out := make([]keySnap, 0, len(keys))
	for i := 0; i < len(keys); i += 500 {
		batch := keys[i:min(i+500, len(keys))]
		dumps := make([]*redis.StringCmd, len(batch))
		ats := make([]*redis.DurationCmd, len(batch))
		if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for j, k := range batch {
				dumps[j], ats[j] = p.Dump(ctx, k), p.PExpireTime(ctx, k)
			}
			return nil
		}); err != nil && err != redis.Nil {
			return nil, fmt.Errorf("DUMP: %w", err)
		}
		for j, k := range batch {
			d, err := dumps[j].Result()
			if err != nil {
				continue // gone since SCAN
			}
			at := ats[j].Val()
			ms := int64(-1)
			if at > 0 {
				ms = at.Milliseconds()
			}
			out = append(out, keySnap{key: k, dump: d, at: ms})
		}
	}
	return out, nil
}

// dedupe drops repeats from sorted keys: SCAN may return a key twice.
func dedupe(keys []string) []string {
	out := keys[:0]
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			out = append(out, k)
		}
	}
	return out
}

// scriptName is the first words of src that say what it is: the first
// line of its leading comment, else its first line.
func scriptName(src string) string {
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-[=!"))
		if len(l) > 48 {
			l = l[:48]
		}
		if l != "" {
			return l
		}
	}
	return ""
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// replay runs what rec recorded on a fresh redis-server and on serve.
func replay(t *testing.T, rec recorder) replayResult {
	t.Helper()
	r := rec.(*callRecorder)
	r.close()
	res := replayOn(t, r, []target{startReplayRedis(t), startServe(t)}, shipped)
	logReplay(t, "replay", res)
	return res
}

// startReplayRedis is a redis-server that takes DEBUG from loopback: the
// replay turns active expiry off (DEBUG SET-ACTIVE-EXPIRE 0), so that a
// key the recording saw alive only expires when a run touches it.
func startReplayRedis(t *testing.T) target {
	return target{name: targetRedis, addr: redistest.Start(t, "enable-debug-command local").Addr}
}
