package sim

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"time"
)

// Workload is what the callers send and how results are binned.
type Workload struct {
	Duration time.Duration // virtual time simulated
	Interval time.Duration // width of a reporting bin (default: Duration/10)
	Window   time.Duration // width of the worst-case burst window (default: 1s)
	// Shared makes every caller use the same keys, one resource for all;
	// otherwise each caller has keys of its own. Only used for limiters
	// without explicit key templates.
	Shared  bool
	Callers []Caller
	// Seed makes Poisson arrivals reproducible: the same seed, the same
	// requests at the same instants.
	Seed uint64
}

// Caller is one client. Its requests are a steady stream of Rate per second
// and, on top, Burst requests at once every Every, all between Start and Stop.
type Caller struct {
	Name  string
	Rate  float64
	Burst int
	Every time.Duration // 0 with Burst > 0: one burst, at Start
	Start time.Duration
	Stop  time.Duration // 0: the end of the workload
	// Skew is added to the caller's clock: scripts that take now_ms get
	// the caller's idea of the time, not the server's.
	Skew time.Duration
	// Poisson spaces the steady requests randomly (exponential gaps of
	// mean 1/Rate) instead of exactly: independent clients are not in
	// lockstep, and exactly periodic callers can phase-lock with a
	// limiter's refill so that one of them wins every contested token.
	Poisson bool
}

func (w *Workload) normalize() error {
	if w.Duration <= 0 {
		return fmt.Errorf("sim: workload duration must be positive")
	}
	if w.Interval <= 0 {
		w.Interval = w.Duration / 10
	}
	if w.Interval <= 0 {
		w.Interval = w.Duration
	}
	if w.Window <= 0 {
		w.Window = time.Second
	}
	if len(w.Callers) == 0 {
		return fmt.Errorf("sim: workload has no callers")
	}
	seen := map[string]bool{}
	for i := range w.Callers {
		c := &w.Callers[i]
		if c.Name == "" {
			c.Name = fmt.Sprintf("c%d", i+1)
		}
		if seen[c.Name] {
			return fmt.Errorf("sim: caller name %q used twice", c.Name)
		}
		seen[c.Name] = true
		switch {
		case c.Rate < 0:
			return fmt.Errorf("sim: caller %s: rate must not be negative", c.Name)
		case c.Burst < 0:
			return fmt.Errorf("sim: caller %s: burst must not be negative", c.Name)
		case c.Every < 0 || c.Start < 0 || c.Stop < 0:
			return fmt.Errorf("sim: caller %s: every, start and stop must not be negative", c.Name)
		case c.Rate == 0 && c.Burst == 0:
			return fmt.Errorf("sim: caller %s sends nothing: give it a rate or a burst", c.Name)
		}
		if c.Stop == 0 || c.Stop > w.Duration {
			c.Stop = w.Duration
		}
	}
	return nil
}

// Intervals is the number of reporting bins.
func (w *Workload) Intervals() int {
	return int((w.Duration + w.Interval - 1) / w.Interval)
}

// stream is one periodic source of requests: n requests at start,
// start+step, … before stop. Times are computed from the index, not by
// adding steps, so that a fractional period does not drift over millions
// of requests.
type stream struct {
	caller int
	order  int // tie-break between streams at one instant: deterministic
	start  time.Duration
	period float64 // ns between ticks; 0: a single tick
	stop   time.Duration
	n      int // requests per tick
	tick   int64
	left   int // requests left in the current tick
	at     time.Duration
	rng    *rand.Rand // Poisson gaps; nil: exact ticks
	next   float64    // the Poisson stream's next instant, in ns
}

func (s *stream) advance() bool {
	if s.left > 0 {
		s.left--
		return true
	}
	if s.period == 0 && s.tick > 0 {
		return false
	}
	at := s.start + time.Duration(float64(s.tick)*s.period)
	if s.rng != nil {
		if s.tick == 0 {
			s.next = float64(s.start)
		}
		s.next += s.rng.ExpFloat64() * s.period
		at = time.Duration(s.next)
	}
	if at >= s.stop {
		return false
	}
	s.at, s.left = at, s.n-1
	s.tick++
	return true
}

// arrivals yields every request of the workload in time order; requests at
// one instant come in caller order.
type arrivals []*stream

func (a arrivals) Len() int { return len(a) }
func (a arrivals) Less(i, j int) bool {
	if a[i].at != a[j].at {
		return a[i].at < a[j].at
	}
	return a[i].order < a[j].order
}
func (a arrivals) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *arrivals) Push(x any)   { *a = append(*a, x.(*stream)) }
func (a *arrivals) Pop() any {
	old := *a
	s := old[len(old)-1]
	*a = old[:len(old)-1]
	return s
}

func newArrivals(w *Workload) *arrivals {
	a := &arrivals{}
	for i, c := range w.Callers {
		if c.Rate > 0 {
			s := &stream{caller: i, order: 2 * i, start: c.Start, period: 1e9 / c.Rate, stop: c.Stop, n: 1}
			if c.Poisson {
				s.rng = rand.New(rand.NewPCG(w.Seed, uint64(i)))
			}
			if s.advance() {
				*a = append(*a, s)
			}
		}
		if c.Burst > 0 {
			s := &stream{caller: i, order: 2*i + 1, start: c.Start, period: float64(c.Every), stop: c.Stop, n: c.Burst}
			if s.advance() {
				*a = append(*a, s)
			}
		}
	}
	heap.Init(a)
	return a
}

// next returns the next request's caller and time; ok is false at the end.
func (a *arrivals) next() (caller int, at time.Duration, ok bool) {
	if len(*a) == 0 {
		return 0, 0, false
	}
	s := (*a)[0]
	caller, at = s.caller, s.at
	if s.advance() {
		heap.Fix(a, 0)
	} else {
		heap.Pop(a)
	}
	return caller, at, true
}
