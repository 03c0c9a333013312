package githubx

import (
	"context"
	"sync"
	"time"
)

// cost is what one request takes from the budget.
type cost struct {
	points int
	write  bool // content-generating
}

// use is one granted request in the installation's windows: it counts
// from its grant until a window's length after done (zero while in flight,
// or while a reservation waits to be used).
type use struct {
	cost
	done  time.Time
	epoch int // the pause epoch it was granted in
}

// occupies reports whether u still counts in a window of length w at now.
func (u *use) occupies(now time.Time, w time.Duration) bool {
	return u.done.IsZero() || u.done.Add(w).After(now)
}

// Reasons a request waited for budget (BudgetWait.Reason).
const (
	WaitPause       = "pause"
	WaitConcurrency = "concurrency"
	WaitPoints      = "points"
	WaitWrites      = "writes"
)

// waiter is one request waiting for a grant.
type waiter struct {
	class WriteClass
	cost  cost
	// held is a reservation's use: its budget is held, it needs only a
	// concurrency slot and the end of any pause.
	held *use
	// reserve asks for window budget without a concurrency slot
	// (ReserveWrite).
	reserve bool
	ready   chan struct{}
	granted *use
	since   time.Time
	reason  string // the last thing it waited for
}

// scheduler is one installation's budget: it grants requests in class
// order, FIFO within a class, as the windows, the concurrency bound and
// any pause GitHub asked for allow. Waiting requests are never refused;
// one whose context ends stops waiting.
type scheduler struct {
	lim   Budget
	clock Clock
	obs   BudgetObserver // nil: none

	mu          sync.Mutex
	inflight    int
	uses        []*use
	pausedUntil time.Time
	epoch       int // pauses so far
	strikes     int // consecutive secondary limits
	waiting     [numClasses][]*waiter
	timerAt     time.Time
	stopTimer   func() bool
}

func newScheduler(lim Budget, clock Clock, obs BudgetObserver) *scheduler {
	return &scheduler{lim: lim.WithDefaults(), clock: clock, obs: obs}
}

// acquire waits until the request may be sent and returns its use, to be
// passed to complete once the answer came back. held, when set, is a
// reservation made by ReserveWrite: only a concurrency slot and the end of
// a pause are waited for.
func (s *scheduler) acquire(ctx context.Context, class WriteClass, c cost, held *use) (*use, error) {
	return s.wait(ctx, &waiter{class: class, cost: c, held: held})
}

// reserve waits for a write's window budget without taking a concurrency
// slot; the use is held until acquired with it or given back by unreserve.
func (s *scheduler) reserve(ctx context.Context, class WriteClass) (*use, error) {
	return s.wait(ctx, &waiter{class: class, cost: cost{points: writePoints, write: true}, reserve: true})
}

func (s *scheduler) wait(ctx context.Context, w *waiter) (*use, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w.ready = make(chan struct{})
	s.mu.Lock()
	w.since = s.clock.Now()
	s.waiting[w.class] = append(s.waiting[w.class], w)
	s.scheduleLocked()
	s.mu.Unlock()
	select {
	case <-w.ready:
		return w.granted, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.ready: // granted as ctx ended: give it back
		s.undoLocked(w)
	default:
		s.removeLocked(w)
	}
	s.scheduleLocked()
	return nil, ctx.Err()
}

// complete records that u's answer came back (or that it failed without
// one) and frees its concurrency slot.
func (s *scheduler) complete(u *use) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.done = s.clock.Now()
	s.inflight--
	s.scheduleLocked()
}

// unreserve gives a reservation nothing was sent with back to the budget.
func (s *scheduler) unreserve(u *use) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(u)
	s.scheduleLocked()
}

// undoLocked gives back what w was granted (its context ended as it was).
func (s *scheduler) undoLocked(w *waiter) {
	if !w.reserve {
		s.inflight--
	}
	if w.held == nil {
		s.dropLocked(w.granted)
	}
}

func (s *scheduler) dropLocked(u *use) {
	for i, x := range s.uses {
		if x == u {
			s.uses = append(s.uses[:i], s.uses[i+1:]...)
			return
		}
	}
}

func (s *scheduler) removeLocked(w *waiter) {
	q := s.waiting[w.class]
	for i, x := range q {
		if x == w {
			s.waiting[w.class] = append(q[:i], q[i+1:]...)
			return
		}
	}
}

// pause stops every request of the installation until at least until.
// GitHub refused u (nil: unknown) with a limit; a secondary limit hit by a
// request granted since the last pause is a repeat and counts a strike,
// which the caller turns into a longer wait. It returns the pause's end.
func (s *scheduler) pause(u *use, wait time.Duration, secondary bool) (time.Time, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if secondary && (u == nil || u.epoch == s.epoch) {
		s.strikes++
		if s.strikes > 1 {
			wait = max(wait, min(wait<<min(s.strikes-1, 16), s.lim.MaxPause))
		}
	}
	until := now.Add(wait)
	if until.After(s.pausedUntil) {
		s.pausedUntil = until
		s.epoch++
	}
	s.scheduleLocked()
	return s.pausedUntil, s.strikes
}

// succeeded records an answer that was no rate limit: the next secondary
// limit is a first one again.
func (s *scheduler) succeeded(u *use) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.epoch == s.epoch {
		s.strikes = 0
	}
}

// usage is what the windows hold at now.
type usage struct {
	points, writesMinute, writesHour int
	// The earliest moment a finished use leaves each window (zero: none
	// finished; a completion will run the schedule again).
	pointsFreeAt, minuteFreeAt, hourFreeAt time.Time
}

// usageLocked prunes uses no window counts any more and sums the rest.
func (s *scheduler) usageLocked(now time.Time) usage {
	longest := max(s.lim.Minute, s.lim.Hour)
	var u usage
	kept := s.uses[:0]
	for _, x := range s.uses {
		if !x.occupies(now, longest) {
			continue
		}
		kept = append(kept, x)
		inMinute, inHour := x.occupies(now, s.lim.Minute), x.occupies(now, s.lim.Hour)
		finished := !x.done.IsZero()
		if inMinute {
			u.points += x.points
			if finished {
				u.pointsFreeAt = earliest(u.pointsFreeAt, x.done.Add(s.lim.Minute))
			}
		}
		if x.write && inMinute {
			u.writesMinute++
			if finished {
				u.minuteFreeAt = earliest(u.minuteFreeAt, x.done.Add(s.lim.Minute))
			}
		}
		if x.write && inHour {
			u.writesHour++
			if finished {
				u.hourFreeAt = earliest(u.hourFreeAt, x.done.Add(s.lim.Hour))
			}
		}
	}
	clear(s.uses[len(kept):])
	s.uses = kept
	return u
}

// writesFreeAt is when a write may fit again: the later of the moments
// the full windows free a place.
func (u usage) writesFreeAt(lim Budget) time.Time {
	var at time.Time
	if u.writesMinute >= lim.WritesPerMinute {
		at = u.minuteFreeAt
	}
	if u.writesHour >= lim.WritesPerHour && u.hourFreeAt.After(at) {
		at = u.hourFreeAt
	}
	return at
}

// earliest is the earlier of a and b, a zero time meaning none.
func earliest(a, b time.Time) time.Time {
	if b.IsZero() {
		return a
	}
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// scheduleLocked grants what can be granted, in class order and FIFO
// within a class. A request that lacks a resource blocks that resource for
// the requests after it, so none overtakes it there; a request that needs
// only what is free (a read while writes wait for the hour window) goes
// ahead. It arms a timer for the moment a blocked request may fit.
func (s *scheduler) scheduleLocked() {
	now := s.clock.Now()
	if now.Before(s.pausedUntil) {
		for _, q := range s.waiting {
			for _, w := range q {
				w.reason = WaitPause
			}
		}
		s.armLocked(now, s.pausedUntil)
		return
	}
	u := s.usageLocked(now)
	var blockConc, blockPoints, blockWrites bool
	var wake time.Time
	for class := range s.waiting {
		kept := s.waiting[class][:0]
		for _, w := range s.waiting[class] {
			needConc := !w.reserve
			needPoints, needWrite := w.held == nil && w.cost.points > 0, w.held == nil && w.cost.write
			if needConc && blockConc || needPoints && blockPoints || needWrite && blockWrites {
				kept = append(kept, w)
				continue
			}
			lackConc := needConc && s.inflight >= s.lim.Concurrent
			lackPoints := needPoints && u.points+w.cost.points > s.lim.PointsPerMinute
			lackWrite := needWrite && (u.writesMinute >= s.lim.WritesPerMinute || u.writesHour >= s.lim.WritesPerHour)
			if lackConc || lackPoints || lackWrite {
				switch {
				case lackWrite:
					w.reason = WaitWrites
					wake = earliest(wake, u.writesFreeAt(s.lim))
				case lackPoints:
					w.reason = WaitPoints
					wake = earliest(wake, u.pointsFreeAt)
				default:
					w.reason = WaitConcurrency
				}
				blockConc, blockPoints, blockWrites = blockConc || lackConc, blockPoints || lackPoints, blockWrites || lackWrite
				kept = append(kept, w)
				continue
			}
			s.grantLocked(w, now, &u)
		}
		clear(s.waiting[class][len(kept):])
		s.waiting[class] = kept
	}
	if !wake.IsZero() {
		s.armLocked(now, wake)
	}
}

// grantLocked gives w what it asked for and wakes it.
func (s *scheduler) grantLocked(w *waiter, now time.Time, u *usage) {
	if !w.reserve {
		s.inflight++
	}
	g := w.held
	if g == nil {
		g = &use{cost: w.cost}
		s.uses = append(s.uses, g)
		u.points += w.cost.points
		if w.cost.write {
			u.writesMinute++
			u.writesHour++
		}
	}
	g.epoch = s.epoch
	w.granted = g
	close(w.ready)
	if s.obs != nil {
		reason := w.reason
		waited := now.Sub(w.since)
		if waited <= 0 {
			reason = ""
		}
		s.obs.ObserveBudgetWait(BudgetWait{Class: w.class, Write: w.cost.write, Reserved: w.held != nil, Waited: max(waited, 0), Reason: reason})
		s.obs.ObserveBudgetUse(BudgetUse{InFlight: s.inflight, Points: u.points, WritesPerMinute: u.writesMinute,
			WritesPerHour: u.writesHour, Budget: s.lim})
	}
}

// armLocked makes sure the schedule runs again at at.
func (s *scheduler) armLocked(now, at time.Time) {
	if !s.timerAt.IsZero() && !s.timerAt.After(at) {
		return
	}
	if s.stopTimer != nil {
		s.stopTimer()
	}
	s.timerAt = at
	s.stopTimer = s.clock.AfterFunc(at.Sub(now), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.timerAt.Equal(at) {
			s.timerAt, s.stopTimer = time.Time{}, nil
		}
		s.scheduleLocked()
	})
}

// headroom is the share of the write windows free now (see
// Client.WriteHeadroom).
func (s *scheduler) headroom() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if now.Before(s.pausedUntil) {
		return 0
	}
	for _, ws := range s.waiting {
		if len(ws) > 0 {
			return 0
		}
	}
	u := s.usageLocked(now)
	used := max(float64(u.writesMinute)/float64(s.lim.WritesPerMinute), float64(u.writesHour)/float64(s.lim.WritesPerHour))
	return max(0, 1-used)
}
