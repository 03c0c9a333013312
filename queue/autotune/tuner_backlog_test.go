package autotune

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// byObservation is an Evaluator whose estimates depend on the observation.
type byObservation func(Observation, Tuning) Estimate

func (f byObservation) Evaluate(o Observation, t Tuning) (Estimate, error) { return f(o, t), nil }

// TestTunerChoosesOnTheBacklog: the traffic's rates do not move, but the
// queue's backlog grows from nothing to 40 PRs (a rush the four-hour window
// has not caught up with yet). The backlog is a move, the estimates see it
// (Observation.Queued) and the tuner takes what drains it faster; a backlog
// that cannot be read stands at the last choice's and moves nothing.
func TestTunerChoosesOnTheBacklog(t *testing.T) {
	t.Parallel()
	o := NewObserver(4 * time.Hour)
	feed(o, newRng(), t0, 4, 17, 0.05, 0.02, 20*time.Minute, 0)
	var seen []int
	ev := byObservation(func(obs Observation, tu Tuning) Estimate {
		seen = append(seen, obs.Queued)
		e := shopifyLike(tu)
		if tu.Concurrency < 12 {
			e.P95 = 10 * time.Hour // the defaults fall far behind
		}
		if obs.Queued >= 30 && tu.Concurrency == 18 {
			e.P95 = 50 * time.Minute // drains the backlog clearly faster
		}
		return e
	})
	queued, fail := 2, false
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, Tuning{Concurrency: 1})
	tu.Queued = func() (int, error) {
		if fail {
			return 0, errors.New("store down")
		}
		return queued, nil
	}
	first := t0.Add(4 * time.Hour)
	c, ok, err := tu.Retune(first)
	if want := (Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}); err != nil || !ok || c.To != want {
		t.Fatalf("first choice %s (%v, %v), want %s", c.To, ok, err, want)
	}
	if c.Observed.Queued != 2 {
		t.Errorf("observed backlog %d, want 2", c.Observed.Queued)
	}
	queued = 5
	if _, ok, _ := tu.Retune(first.Add(time.Minute)); ok {
		t.Errorf("a backlog of 5 instead of 2 changed the tuning to %s", tu.Current())
	}
	fail = true
	if _, ok, _ := tu.Retune(first.Add(2 * time.Minute)); ok {
		t.Errorf("an unreadable backlog changed the tuning to %s", tu.Current())
	}
	fail, queued = false, 40
	seen = nil
	c, ok, err = tu.Retune(first.Add(3 * time.Minute))
	if want := (Tuning{Concurrency: 18, PendingFailureDepth: 1, Optimistic: true}); err != nil || !ok || c.To != want {
		t.Fatalf("backlog of 40: chose %s (%v, %v), want %s", c.To, ok, err, want)
	}
	if !strings.Contains(c.Reason, "backlog rose to 40 PRs") {
		t.Errorf("reason %q does not say the backlog rose", c.Reason)
	}
	want := (Observation{Queued: 40}).Fitted().Queued
	for _, q := range seen {
		if q != want {
			t.Fatalf("an estimate saw a backlog of %d, want the fitted 40 (%d)", q, want)
		}
	}
}

// TestFittedBacklog: the fitted backlog is none for the few PRs of the
// runs in progress, within about 20 % otherwise, and at most
// MaxFittedQueued.
func TestFittedBacklog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ q, lo, hi int }{
		{0, 0, 0}, {3, 0, 0}, {4, 4, 5}, {40, 33, 48}, {41, 33, 48}, {100, 83, 120}, {1000, MaxFittedQueued, MaxFittedQueued},
	} {
		if got := (Observation{Queued: tc.q}).Fitted().Queued; got < tc.lo || got > tc.hi {
			t.Errorf("backlog %d fits as %d, want %d..%d", tc.q, got, tc.lo, tc.hi)
		}
	}
	if (Observation{Queued: 38}).Fitted() != (Observation{Queued: 40}).Fitted() {
		t.Errorf("backlogs of 38 and 40 fit apart")
	}
}
