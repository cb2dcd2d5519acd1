package lua

import (
	"math"
	"unsafe"
)

// iface is an internal representation of the go-interface.
type iface struct {
	itab unsafe.Pointer
	word unsafe.Pointer
}

const preloadLimit LNumber = 128

var preloads [int(preloadLimit)]LValue

func init() {
	for i := 0; i < int(preloadLimit); i++ {
		preloads[i] = LNumber(i)
	}
}

// allocator is a fast bulk memory allocator for the LValue.
//
// scriptgen: it hands out the slots of a fixed block by index and builds the
// interface from the slot's address. Upstream appended to a slice and
// returned a scratch interface it had patched through a reflect header:
// about 50 instructions a number with two write-barrier checks, against 20.
type allocator struct {
	size  int
	block []float64 // the current block; slots below next are handed out
	next  int
}

// numberItab is the interface table of an LNumber held as an LValue.
var numberItab = func() unsafe.Pointer {
	var v LValue = LNumber(0)
	return (*iface)(unsafe.Pointer(&v)).itab
}()

func newAllocator(size int) *allocator {
	return &allocator{size: size, block: make([]float64, size)}
}

// LNumber2I takes a number value and returns an interface LValue representing the same number.
// Converting an LNumber to a LValue naively, by doing:
// `var val LValue = myLNumber`
// will result in an individual heap alloc of 8 bytes for the float value. LNumber2I amortizes the cost and memory
// overhead of these allocs by allocating blocks of floats instead.
// The downside of this is that all of the floats on a given block have to become eligible for gc before the block
// as a whole can be gc-ed.
func (al *allocator) LNumber2I(v LNumber) LValue {
	// first check for shared preloaded numbers
	// scriptgen: not for -0, which is not the preloaded 0 (1 / -0 is -inf).
	if i := int64(v); uint64(i) < uint64(preloadLimit) && float64(i) == float64(v) && (i != 0 || math.Float64bits(float64(v)) == 0) {
		return preloads[i]
	}
	if al.next >= len(al.block) {
		al.block, al.next = make([]float64, al.size), 0
	}
	p := &al.block[al.next]
	al.next++
	*p = float64(v)
	var lv LValue
	*(*iface)(unsafe.Pointer(&lv)) = iface{itab: numberItab, word: unsafe.Pointer(p)}
	return lv
}
