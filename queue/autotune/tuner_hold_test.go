package autotune

import (
	"slices"
	"testing"
	"time"
)

// TestTunerKeepsItsRunsAtOnceThroughARush: plain speculation at 18 runs at
// once is in force and the estimates cannot tell 12 from it (the chooser
// takes the leaner 12). While 40 PRs are queued, more than RushFactor
// times 12, the tuner keeps 18: going down mid-rush leaves the backlog to
// fewer runs (on the drifting preset it went from 18 to 12 with 41 PRs
// queued in a release rush, docs/performance.md). Once the backlog is
// down to 10 it takes 12; without a rush it takes 12 at once.
func TestTunerKeepsItsRunsAtOnceThroughARush(t *testing.T) {
	t.Parallel()
	wide := Tuning{Concurrency: 18, PendingFailureDepth: 1, Optimistic: true}
	lean := Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}
	if grid := Grid(Bounds{MaxRuns: 24}); !slices.Contains(grid, wide) || !slices.Contains(grid, lean) {
		t.Fatalf("the grid of 24 runs at once has no %s or %s", wide, lean)
	}
	setup := func() (*Tuner, *int, *time.Time) {
		o := NewObserver(4 * time.Hour)
		feed(o, newRng(), t0, 4, 17, 0.05, 0.02, 20*time.Minute, 0)
		ev := table{f: func(tu Tuning) Estimate {
			switch {
			case tu.Batch || tu.Isolation:
				return Estimate{KeptUp: true, P95: 300 * time.Minute, RunsPerMerge: 0.9}
			case tu.Concurrency > 12:
				return Estimate{KeptUp: true, P95: 95 * time.Minute, RunsPerMerge: 1.6}
			}
			return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.5}
		}}
		queued, at := 0, t0.Add(4*time.Hour)
		tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, wide)
		tu.Queued = func() (int, error) { return queued, nil }
		return tu, &queued, &at
	}
	retune := func(tu *Tuner, queued *int, at *time.Time, q int) (Change, bool) {
		t.Helper()
		*queued, *at = q, at.Add(time.Minute)
		c, ok, err := tu.Retune(*at)
		if err != nil {
			t.Fatal(err)
		}
		return c, ok
	}

	tu, queued, at := setup()
	if c, ok := retune(tu, queued, at, 40); ok {
		t.Fatalf("40 PRs queued: went from %s to %s (%q)", wide, c.To, c.Reason)
	}
	if c, ok := retune(tu, queued, at, 10); !ok || c.To != lean {
		t.Fatalf("backlog down to 10: %s (%v), want %s", c.To, ok, lean)
	}

	tu, queued, at = setup()
	if c, ok := retune(tu, queued, at, 10); !ok || c.To != lean {
		t.Fatalf("no rush: %s (%v), want %s", c.To, ok, lean)
	}
}
