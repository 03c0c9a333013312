package autotune

import (
	"testing"
	"time"
)

// TestTunerTakesCheaperBatchesOnlyInARush: plain speculation at k=12 is in
// force, and the estimates put batches of 2 at half its runs per merge but
// 5 % slower (within ChoiceMargin, not SwitchMargin faster). With 6 or 20
// PRs queued the tuner keeps k=12: batches taken for fewer runs per merge
// while not clearly faster cost steady traffic its p95 (PR-head, ten seeds
// in docs/performance.md). With 40 queued (a rush: more than RushFactor
// times the 12 runs at once) it takes the batches.
func TestTunerTakesCheaperBatchesOnlyInARush(t *testing.T) {
	t.Parallel()
	spec := Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true}
	batches := Tuning{Concurrency: 12, PendingFailureDepth: 1, Optimistic: true,
		Batch: true, BatchMin: 2, BatchMax: 2, BisectionConcurrency: 12}
	ev := table{f: func(tu Tuning) Estimate {
		switch {
		case tu == batches:
			return Estimate{KeptUp: true, P95: 105 * time.Minute, RunsPerMerge: 0.6}
		case tu.Batch:
			return Estimate{KeptUp: true, P95: 110 * time.Minute, RunsPerMerge: 0.65}
		case tu.Concurrency == 12:
			return Estimate{KeptUp: true, P95: 100 * time.Minute, RunsPerMerge: 1.2}
		}
		return Estimate{KeptUp: true, P95: 99 * time.Minute, RunsPerMerge: 1.3}
	}}
	for _, tc := range []struct {
		queued int
		want   Tuning
	}{{6, spec}, {20, spec}, {40, batches}} {
		o := NewObserver(4 * time.Hour)
		feed(o, newRng(), t0, 4, 17, 0.05, 0.02, 20*time.Minute, 0)
		tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, spec)
		tu.Queued = func() (int, error) { return tc.queued, nil }
		if _, _, err := tu.Retune(t0.Add(4 * time.Hour)); err != nil {
			t.Fatal(err)
		}
		if tu.Current() != tc.want {
			t.Errorf("%d PRs queued: %s in force, want %s", tc.queued, tu.Current(), tc.want)
		}
	}
}
