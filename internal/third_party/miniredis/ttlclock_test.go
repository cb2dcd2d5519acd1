package miniredis

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"
)

// TestTTLClock holds the deadline heap to a model of what upstream's TTLs
// did (durations left, each cut by every clock move, a key deleted when
// its TTL reaches 0) and of Redis's rule with RedisExpiry (deleted once
// past its deadline; at it, left a nanosecond): random SETs, TTLs set and
// set again (stale heap entries), deletes, renames and clock moves, some
// of them exactly onto a deadline or by nothing, each followed by every
// key's existence and TTL, and the heap's size.
func TestTTLClock(t *testing.T) {
	for _, redisExpiry := range []bool{false, true} {
		t.Run(fmt.Sprintf("redisExpiry=%v", redisExpiry), func(t *testing.T) {
			testTTLClock(t, redisExpiry, rand.New(rand.NewSource(7)))
		})
	}
}

func testTTLClock(t *testing.T, redisExpiry bool, r *rand.Rand) {
	type key struct {
		present, expires bool
		at               time.Duration // on the model's clock
	}
	m := NewMiniRedis()
	m.RedisExpiry(redisExpiry)
	const nkeys = 40
	model := make([]key, nkeys)
	name := func(i int) string { return fmt.Sprintf("k%d", i) }
	var now time.Duration
	advance := func(d time.Duration) {
		now += d
		m.FastForward(d)
		for i := range model {
			k := &model[i]
			switch {
			case !k.present || !k.expires || k.at > now:
			case k.at == now && redisExpiry:
				k.at = now + 1
			default:
				*k = key{}
			}
		}
	}
	for step := 0; step < 20000; step++ {
		i := r.Intn(nkeys)
		k := &model[i]
		switch op := r.Intn(10); {
		case op < 2:
			if err := m.Set(name(i), "v"); err != nil {
				t.Fatal(err)
			}
			*k = key{present: true}
		case op < 5 && k.present:
			d := time.Duration(1+r.Intn(100)) * time.Millisecond
			m.SetTTL(name(i), d)
			k.expires, k.at = true, now+d
		case op == 7 && k.present: // long, and set again and again: stale entries pile up
			d := time.Hour + time.Duration(r.Intn(1000))*time.Millisecond
			m.SetTTL(name(i), d)
			k.expires, k.at = true, now+d
		case op == 5:
			m.Del(name(i))
			*k = key{}
		case op == 6 && k.present:
			j := r.Intn(nkeys)
			if j == i {
				break
			}
			m.Lock()
			m.db(0).rename(name(i), name(j))
			m.Unlock()
			model[j], *k = *k, key{}
		default:
			d := time.Duration(r.Intn(30)) * time.Millisecond
			if r.Intn(3) == 0 { // exactly onto the next deadline
				for _, k := range model {
					if k.present && k.expires && k.at >= now && k.at-now < d {
						d = k.at - now
					}
				}
			}
			advance(d)
		}
		for i, k := range model {
			if got := m.Exists(name(i)); got != k.present {
				t.Fatalf("step %d, %v in: %s exists %v, want %v", step, now, name(i), got, k.present)
			}
			want := time.Duration(0)
			if k.present && k.expires {
				want = k.at - now
			}
			if got := m.TTL(name(i)); got != want {
				t.Fatalf("step %d, %v in: TTL %s = %v, want %v", step, now, name(i), got, want)
			}
		}
		db := m.DB(0)
		if n, live := len(db.ttlHeap), len(db.ttl); n > 64 && n > 2*live+1 {
			t.Fatalf("step %d: %d heap entries for %d keys with a TTL", step, n, live)
		}
	}
}

// TestTTLHeapOrder holds the typed heap to a sort: random pushes, pops and
// rebuilds must give the deadlines back in order, every one of them.
func TestTTLHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var h ttlHeap
	var want []time.Duration
	check := func(pop int) {
		sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
		for range pop {
			if len(h) == 0 {
				return
			}
			e := h.pop()
			if e.at != want[0] {
				t.Fatalf("popped %v, want %v", e.at, want[0])
			}
			want = want[1:]
		}
	}
	for round := range 2000 {
		for range rng.Intn(8) {
			at := time.Duration(rng.Intn(50))
			h.push(ttlEntry{at: at})
			want = append(want, at)
		}
		if round%97 == 0 {
			rng.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] })
			h.init()
		}
		check(rng.Intn(6))
	}
	check(len(h))
	if len(h) != 0 || len(want) != 0 {
		t.Fatalf("%d entries left, want %d", len(h), len(want))
	}
}
