package autotune

import (
	"testing"
	"time"
)

// drainFixture is a tuner with batches of 2..8 in force (a candidate of
// the grid of 24 runs at once) on Shopify-like evidence, whose evaluator
// prefers batches or plain speculation as the test says, and whose
// backlog the test sets.
type drainFixture struct {
	tu      *Tuner
	batches Tuning
	queued  int
	// spec: plain speculation at 12 is the clear choice, batches far
	// behind; else batches are the fastest.
	spec bool
	at   time.Time
}

func newDrainFixture(t *testing.T, b Bounds) *drainFixture {
	t.Helper()
	o := NewObserver(4 * time.Hour)
	feed(o, newRng(), t0, 4, 17, 0.05, 0.02, 20*time.Minute, 0)
	f := &drainFixture{at: t0.Add(4 * time.Hour)}
	for _, c := range Grid(Bounds{MaxRuns: 24}) {
		if c.Batch && c.BatchMax == 8 {
			f.batches = c
		}
	}
	if !f.batches.Batch {
		t.Fatal("no batches of 2..8 in the grid")
	}
	ev := table{f: func(tu Tuning) Estimate {
		switch {
		case f.spec && (tu.Batch || tu.Isolation):
			return Estimate{KeptUp: true, P95: 200 * time.Minute, RunsPerMerge: 0.9}
		case f.spec:
			return Estimate{KeptUp: true, P95: 50 * time.Minute, RunsPerMerge: 1.7}
		case tu.Batch || tu.Isolation:
			return Estimate{KeptUp: true, P95: 60 * time.Minute, RunsPerMerge: 0.9}
		}
		return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.7}
	}}
	f.tu = NewTuner(o, ev, b, f.batches)
	f.tu.Queued = func() (int, error) { return f.queued, nil }
	return f
}

// retune retunes a minute after the last time, with queued PRs.
func (f *drainFixture) retune(t *testing.T, queued int) (Change, bool) {
	t.Helper()
	f.queued = queued
	f.at = f.at.Add(time.Minute)
	c, ok, err := f.tu.Retune(f.at)
	if err != nil {
		t.Fatal(err)
	}
	return c, ok
}

// TestTunerKeepsBatchesWhileTheyDrainABacklog: batches were chosen on a
// backlog of 50 PRs. While it drains (20 PRs left, more than plain
// speculation at 12 would test at once) the tuner keeps them though the
// estimates now prefer speculation: leaving them would restart the runs
// in flight PR by PR. Once the backlog is down to 5 it changes.
func TestTunerKeepsBatchesWhileTheyDrainABacklog(t *testing.T) {
	t.Parallel()
	f := newDrainFixture(t, Bounds{MaxRuns: 24})
	if c, ok := f.retune(t, 50); ok {
		t.Fatalf("batches in force and the fastest: changed to %s", c.To)
	}
	f.spec = true
	if c, ok := f.retune(t, 20); ok {
		t.Fatalf("20 PRs still queued: left the batches for %s (%q)", c.To, c.Reason)
	}
	if f.tu.Current() != f.batches {
		t.Fatalf("in force: %s", f.tu.Current())
	}
	c, ok := f.retune(t, 5)
	if want := (Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}); !ok || c.To != want {
		t.Fatalf("backlog down to 5: %s (%v), want %s", c.To, ok, want)
	}
}

// TestTunerLeavesBatchesWhenTheBacklogGrows: batches that let the backlog
// grow (10 PRs at the last choice, 40 now) give way to the speculation the
// estimates prefer; so do batches beyond the user's bounds, whatever the
// backlog.
func TestTunerLeavesBatchesWhenTheBacklogGrows(t *testing.T) {
	t.Parallel()
	f := newDrainFixture(t, Bounds{MaxRuns: 24})
	if c, ok := f.retune(t, 10); ok {
		t.Fatalf("batches in force and the fastest: changed to %s", c.To)
	}
	f.spec = true
	if c, ok := f.retune(t, 40); !ok || c.To.Batch {
		t.Fatalf("the backlog grew from 10 to 40: kept %s (%v)", f.tu.Current(), ok)
	}

	f = newDrainFixture(t, Bounds{MaxRuns: 24})
	f.retune(t, 50)
	f.tu.Bounds = Bounds{MaxRuns: 16} // the user lowered the bound: 24 runs at once are too many
	f.spec = true
	if c, ok := f.retune(t, 20); !ok || c.To.Runs() > 16 {
		t.Fatalf("batches of %d runs at once kept under a bound of 16 (%v)", f.tu.Current().Runs(), ok)
	}
}

// TestTunerKeepsCheaperSettingsAgainstAChoiceNotClearlyFaster: the tuning
// in force (batches of 2..4, set by hand, not a candidate) is estimated at
// half the runs per merge of the choice, plain speculation at 12 runs at
// once, which is only 5 % faster: it stays, though the choice has fewer
// runs at once. The chooser's own ranking (clearly fewer runs per merge
// first) decides whether a choice is leaner, not the runs at once alone.
func TestTunerKeepsCheaperSettingsAgainstAChoiceNotClearlyFaster(t *testing.T) {
	t.Parallel()
	o := NewObserver(4 * time.Hour)
	feed(o, newRng(), t0, 4, 17, 0.05, 0.02, 20*time.Minute, 0)
	byHand := Tuning{Concurrency: 12, Batch: true, BatchMin: 2, BatchMax: 4, BisectionConcurrency: 12, BisectionParts: 2, PendingFailureDepth: 1, Optimistic: true}
	ev := table{f: func(tu Tuning) Estimate {
		switch {
		case tu == byHand:
			return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 0.8}
		case tu.Batch || tu.Isolation:
			return Estimate{KeptUp: true, P95: 300 * time.Minute, RunsPerMerge: 0.8}
		}
		return Estimate{KeptUp: true, P95: 95 * time.Minute, RunsPerMerge: 1.6}
	}}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, byHand)
	if c, ok, err := tu.Retune(t0.Add(4 * time.Hour)); err != nil || ok {
		t.Fatalf("left %s for %s, 5 %% faster at twice the runs per merge (%v)", byHand, c.To, err)
	}
}
