package transactional

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// DefaultLuaMemoryLimit is how much a running script may grow the heap
// before it fails with Lua's "not enough memory" (WithLuaMemoryLimit).
const DefaultLuaMemoryLimit = 1 << 30

// WithLuaMemoryLimit makes a script that grows the heap by more than n
// bytes fail with Lua's "not enough memory", as Redis's Lua fails when its
// allocator does, instead of taking the process down; 0 sets no limit.
// The default is DefaultLuaMemoryLimit.
func WithLuaMemoryLimit(n int64) Option { return func(o *options) { o.memoryLimit = n } }

// memoryEvery is how often a running script's heap growth is looked at.
// Reading the heap's size costs about a microsecond, too much for every
// run or every few instructions; a script cannot allocate much in 10 ms.
const memoryEvery = 10 * time.Millisecond

// memWatch samples the heap while scripts run. It is armed and fires as
// the time limit does (armLimit): one timer per engine, re-armed by its
// own firing while a script runs, so that a run costs one atomic load.
type memWatch struct {
	t     *time.Timer
	armed atomic.Bool
	// mu guards run and base, the run the last firing saw and the heap's
	// size when it first saw it: a run that starts while a firing is
	// collecting garbage arms the timer again, and two firings may overlap.
	mu   sync.Mutex
	run  *run
	base uint64
}

// armMemory arms the heap watch for the run just stored in e.running.
func (e *Engine) armMemory() {
	if e.mem.t == nil || e.mem.armed.Load() || !e.mem.armed.CompareAndSwap(false, true) {
		return
	}
	e.mem.t.Reset(memoryEvery)
}

// memoryCheck stops the running script when the heap has grown by more
// than the limit since the watch first saw it, garbage collected first.
func (e *Engine) memoryCheck() {
	e.mem.armed.Store(false)
	r := e.running.Load()
	if r == nil {
		return
	}
	e.mem.mu.Lock()
	defer e.mem.mu.Unlock()
	heap := heapBytes()
	switch {
	case r != e.mem.run:
		e.mem.run, e.mem.base = r, heap
	case e.overLimit(heap):
		// Most of what a script made may be garbage already.
		runtime.GC()
		if e.overLimit(heapBytes()) {
			r.kill(killMemory)
		}
	}
	e.armMemory()
}

func (e *Engine) overLimit(heap uint64) bool {
	return heap > e.mem.base && heap-e.mem.base > uint64(e.opts.memoryLimit)
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapBytes is the size of the heap's objects, live and not yet collected.
// Only memoryCheck calls it, under memWatch.mu.
func heapBytes() uint64 {
	metrics.Read(heapSample)
	return heapSample[0].Value.Uint64()
}

// outOfMemory fails the running script as Lua does when its allocator
// fails: Redis replies "Error running script …, not enough memory".
func (s *sandbox) outOfMemory(L *lua.LState) {
	if s.run != nil {
		s.run.kill(killMemory)
	}
	L.RaiseError("not enough memory")
}

// maxStringSize is the largest string string.rep builds: Redis's
// proto-max-bulk-len, as no reply or argument can be longer.
const maxStringSize = 512 << 20

// repChunk is how much string.rep writes between looks at the kill flag.
const repChunk = 1 << 20

// stringRep is string.rep, bounded by the memory limit and by the largest
// string Redis takes (proto-max-bulk-len), and stoppable while it copies:
// one strings.Repeat of half a gigabyte takes longer than a time limit.
func (s *sandbox) stringRep(L *lua.LState) int {
	str := L.CheckString(1)
	n := L.CheckCInt(2)
	if n <= 0 || str == "" {
		L.Push(lua.LString(""))
		return 1
	}
	most := maxStringSize
	if lim := s.e.opts.memoryLimit; lim > 0 && lim < int64(most) {
		most = int(lim)
	}
	if n > most/len(str) {
		s.outOfMemory(L)
	}
	size := n * len(str)
	if size <= repChunk {
		L.Push(lua.LString(strings.Repeat(str, n)))
		return 1
	}
	var b strings.Builder
	b.Grow(size)
	unit := strings.Repeat(str, max(1, repChunk/len(str)))
	for b.Len()+len(unit) <= size {
		L.CheckDone()
		b.WriteString(unit)
	}
	for b.Len() < size {
		b.WriteString(str)
	}
	L.Push(lua.LString(b.String()))
	return 1
}
