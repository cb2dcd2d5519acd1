package lua

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestSmallStringKeys holds tables to a map through random writes of
// string keys (and a few others), across the size at which a table starts
// to keep its string keys in strdict: every key's value, the walk of next
// (each live key once), and the slots, which must not move as the table
// grows out of its small form (the inline cache relies on them).
func TestSmallStringKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 400; round++ {
		tb := newLTable(0, rng.IntN(12))
		model := map[string]LValue{}
		slots := map[string]int{}
		nkeys := 1 + rng.IntN(3*smallStrKeys)
		for step := 0; step < 200; step++ {
			k := "k" + strconv.Itoa(rng.IntN(nkeys))
			switch r := rng.IntN(10); {
			case r < 6:
				v := LNumber(rng.IntN(1000))
				tb.RawSetString(k, v)
				model[k] = v
			case r < 8:
				tb.RawSetH(LString(k), LNil)
				delete(model, k)
			case r < 9:
				tb.RawSetH(LNumber(float64(rng.IntN(5))+0.5), LTrue) // a non-string hash key
			default:
				tb.RawSet(LString(k), LString(k))
				model[k] = LString(k)
			}
			if i, ok := tb.strIndex(k); ok {
				if old, seen := slots[k]; seen && old != i {
					t.Fatalf("round %d: %q moved from slot %d to %d", round, k, old, i)
				}
				slots[k] = i
			}
			for i := 0; i < nkeys; i++ {
				k := "k" + strconv.Itoa(i)
				want, ok := model[k]
				if !ok {
					want = LNil
				}
				if got := tb.RawGetString(k); got != want {
					t.Fatalf("round %d step %d: %q is %v, want %v", round, step, k, got, want)
				}
				if got := tb.RawGet(LString(k)); got != want {
					t.Fatalf("round %d step %d: RawGet(%q) is %v, want %v", round, step, k, got, want)
				}
			}
			seen := map[string]bool{}
			for k, v := tb.Next(LNil); k != LNil; k, v = tb.Next(k) {
				s, ok := k.(LString)
				if !ok {
					continue
				}
				if seen[string(s)] || model[string(s)] != v {
					t.Fatalf("round %d step %d: next gave %q = %v (seen %v)", round, step, s, v, seen[string(s)])
				}
				seen[string(s)] = true
			}
			if len(seen) != len(model) {
				t.Fatalf("round %d step %d: next walked %d string keys, want %d", round, step, len(seen), len(model))
			}
		}
	}
}
