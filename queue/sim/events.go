package sim

import (
	"container/heap"
	"time"
)

// Epoch is the virtual wall-clock time at which every simulation starts
// (a Monday, 00:00 UTC). Virtual times are offsets from it.
var Epoch = time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)

// Sim is the discrete-event core: a virtual clock and a heap of pending
// events. Events run in time order; events scheduled for the same instant
// run in the order they were scheduled (ties are broken by a sequence
// number), so a simulation is a deterministic function of its inputs.
// A Sim is not safe for concurrent use: one simulation runs on one
// goroutine.
type Sim struct {
	now    time.Duration
	seq    uint64
	events eventHeap
	steps  uint64
}

// Event is a scheduled callback. Cancel removes it before it runs.
type Event struct {
	at        time.Duration
	seq       uint64
	fn        func()
	index     int // position in the heap; -1 once popped or cancelled
	cancelled bool
}

// At is the virtual time the event is due.
func (e *Event) At() time.Duration { return e.at }

// NewSim returns a simulation at virtual time 0 with nothing scheduled.
func NewSim() *Sim { return &Sim{} }

// Now is the current virtual time as a wall-clock time (Epoch + elapsed).
func (s *Sim) Now() time.Time { return Epoch.Add(s.now) }

// Elapsed is the current virtual time as an offset from Epoch.
func (s *Sim) Elapsed() time.Duration { return s.now }

// Steps is the number of events run so far.
func (s *Sim) Steps() uint64 { return s.steps }

// Pending is the number of events scheduled and not yet run or cancelled.
func (s *Sim) Pending() int { return len(s.events) }

// At schedules fn at virtual offset at. A time in the past runs at the
// current time (after everything already due now).
func (s *Sim) At(at time.Duration, fn func()) *Event {
	if at < s.now {
		at = s.now
	}
	s.seq++
	e := &Event{at: at, seq: s.seq, fn: fn}
	heap.Push(&s.events, e)
	return e
}

// After schedules fn d after the current virtual time.
func (s *Sim) After(d time.Duration, fn func()) *Event { return s.At(s.now+d, fn) }

// AtTime schedules fn at the wall-clock time t (see Now).
func (s *Sim) AtTime(t time.Time, fn func()) *Event { return s.At(t.Sub(Epoch), fn) }

// Cancel removes e if it has not run yet; cancelling twice is harmless.
func (s *Sim) Cancel(e *Event) {
	if e == nil || e.cancelled || e.index < 0 {
		return
	}
	e.cancelled = true
	heap.Remove(&s.events, e.index)
}

// Step runs the next event, advancing the clock to its time. It reports
// false when nothing is scheduled.
func (s *Sim) Step() bool {
	if len(s.events) == 0 {
		return false
	}
	e := heap.Pop(&s.events).(*Event)
	s.now = e.at
	s.steps++
	e.fn()
	return true
}

// RunUntil runs events due at or before limit, in order, and stops early
// when stop (if non-nil) reports true after an event. It reports whether
// it stopped because of stop.
func (s *Sim) RunUntil(limit time.Duration, stop func() bool) bool {
	for len(s.events) > 0 && s.events[0].at <= limit {
		s.Step()
		if stop != nil && stop() {
			return true
		}
	}
	return false
}

type eventHeap []*Event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *eventHeap) Push(x any) {
	e := x.(*Event)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *eventHeap) Pop() any {
	old := *h
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*h = old[:n-1]
	return e
}
