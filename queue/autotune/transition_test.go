package autotune

import (
	"strings"
	"testing"
	"time"
)

// TestTunerKeepsTheBoundWhileOldRunsEnd: moving the runs outside the chain
// into it is applied as far as the runs still in progress leave room for,
// and completed once they ended; never more than MaxRuns at once.
func TestTunerKeepsTheBoundWhileOldRunsEnd(t *testing.T) {
	t.Parallel()
	o := NewObserver(2 * time.Hour)
	feed(o, newRng(), t0, 2, 20, 0.05, 0.01, 20*time.Minute, 0)
	// Speculation at 18 runs is the fastest by far.
	ev := table{f: func(t Tuning) Estimate {
		if !t.Batch && !t.Isolation && t.Concurrency == 18 {
			return Estimate{KeptUp: true, P95: time.Hour, RunsPerMerge: 1.5}
		}
		return Estimate{KeptUp: true, P95: 3 * time.Hour, RunsPerMerge: 1.5}
	}}
	batches := Tuning{Concurrency: 12, Batch: true, BatchMin: 2, BatchMax: 8, BisectionConcurrency: 12, BisectionParts: 8, PendingFailureDepth: 1, Optimistic: true}
	tu := NewTuner(o, ev, Bounds{MaxRuns: 24}, batches)
	chain, outside := 12, 10 // ten bisections in progress
	tu.InFlight = func() (int, int) { return chain, outside }
	c, ok, err := tu.Retune(t0.Add(2 * time.Hour))
	if err != nil || !ok {
		t.Fatalf("no change: %v", err)
	}
	if c.To.Concurrency != 14 || c.To.Batch || !strings.Contains(c.Reason, "on the way to k=18") {
		t.Fatalf("first step %s (%q), want k=14: 10 bisections still run", c.To, c.Reason)
	}
	if got := max(chain, c.To.Concurrency) + max(outside, c.To.outside()); got > 24 {
		t.Fatalf("%d runs at once", got)
	}
	// Nothing ended: no further step.
	if c, ok, _ := tu.Retune(t0.Add(2*time.Hour + time.Minute)); ok {
		t.Fatalf("stepped to %s with the bisections still running", c.To)
	}
	outside = 0
	k18 := Tuning{Concurrency: 18, PendingFailureDepth: 1, Optimistic: true}
	c, ok, err = tu.Retune(t0.Add(2*time.Hour + 2*time.Minute))
	if err != nil || !ok || c.To != k18 || !strings.HasPrefix(c.Reason, "completing the change") {
		t.Fatalf("once they ended: %+v %v %v", c, ok, err)
	}
	if tu.Current() != k18 {
		t.Errorf("in force: %s", tu.Current())
	}
}
