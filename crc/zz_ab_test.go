package crc

import (
	"testing"
	"time"
)

func abTime(f func(), n int) time.Duration {
	t0 := time.Now()
	for range n {
		f()
	}
	return time.Since(t0)
}

func TestAB(t *testing.T) {
	for _, n := range []int{10, 32, 100} {
		key := slotKeys[n]
		var best [2]time.Duration
		best[0], best[1] = 1<<62, 1<<62
		for range 200 {
			a := abTime(func() { sinkSlot += int(Slot(key)) }, 20000)
			b := abTime(func() { sinkSlot += goRedisSlot(key) }, 20000)
			best[0], best[1] = min(best[0], a), min(best[1], b)
		}
		t.Logf("key %d: ours %.2f ns, go-redis %.2f ns, ratio %.2f", n, float64(best[0])/20000, float64(best[1])/20000, float64(best[0])/float64(best[1]))
	}
}

func TestABPlain(t *testing.T) {
	for _, n := range []int{10, 32, 100} {
		key := slotKeysNoTag[n]
		var best [2]time.Duration
		best[0], best[1] = 1<<62, 1<<62
		for range 200 {
			a := abTime(func() { sinkSlot += int(Slot(key)) }, 20000)
			b := abTime(func() { sinkSlot += goRedisSlot(key) }, 20000)
			best[0], best[1] = min(best[0], a), min(best[1], b)
		}
		t.Logf("plain key %d: ours %.2f ns, go-redis %.2f ns, ratio %.2f", n, float64(best[0])/20000, float64(best[1])/20000, float64(best[0])/float64(best[1]))
	}
}
