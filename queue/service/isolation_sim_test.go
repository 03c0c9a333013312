package service_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sim"
)

// TestIsolationRunsOnSimulatedGitHub runs a busy queue with broken and
// flaky PRs and isolationRuns on through the real Service: isolation runs
// are test branches CI runs like any other, no broken PR lands, every good
// PR lands or was failed by flakes, and broken PRs leave on their isolation
// runs' word.
func TestIsolationRunsOnSimulatedGitHub(t *testing.T) {
	w := sim.Workload{PRs: 80, RatePerHour: 40, CIMedian: 40 * time.Minute, CISigma: 0.32, FailRate: 0.2, FlakeRate: 0.05}
	settings := queue.DefaultSettings()
	settings.Concurrency = 12
	settings.TestingTimeoutMinutes = 0
	settings.PendingFailureDepth, settings.CanOptimisticallyMerge = 1, true
	settings.IsolationRuns = true
	settings.RequiredStatuses = []string{sim.CICheck}
	settings.CommentsEnabled, settings.StatusCheckEnabled = false, false

	h := newSimHarness(t, w, settings, 3)
	h.run(30 * 24 * time.Hour)

	if v := h.world.Violations(); len(v) > 0 {
		t.Fatalf("invariant violations: %v", v)
	}
	if h.errs != nil {
		t.Fatalf("engine errors: %v", h.errs)
	}
	merged := map[int]bool{}
	for _, n := range h.world.MergedByQueue() {
		merged[n] = true
	}
	var bad, leftAlone, falseRejections int
	for i, pr := range h.prs {
		n := h.number[i]
		e, err := h.store.GetEntry(h.ctx, h.q.ID, n)
		if err != nil {
			t.Fatalf("entry of #%d: %v", n, err)
		}
		switch {
		case pr.Bad && merged[n]:
			t.Errorf("broken #%d was merged", n)
		case pr.Bad:
			bad++
			if e.State == queue.StateFailed && strings.Contains(e.StateReasonDetail, "tested alone on main") {
				leftAlone++
			}
		case !merged[n]:
			falseRejections++
			if e.State != queue.StateFailed {
				t.Errorf("good #%d ended %s (%s: %s)", n, e.State, e.StateReason, e.StateReasonDetail)
			}
		}
	}
	if h.isolationRuns == 0 || leftAlone == 0 {
		t.Errorf("%d isolation runs, %d of %d broken PRs left on their word; want some of each", h.isolationRuns, leftAlone, bad)
	}
	// A good PR fails only by flakes: both its isolation runs, or its
	// chain run and its retest.
	if falseRejections > 2 {
		t.Errorf("%d good PRs failed", falseRejections)
	}
	t.Logf("%d runs (%d isolation) for %d PRs; %d broken, %d left alone; %d good PRs failed", h.runs, h.isolationRuns, w.PRs, bad, leftAlone, falseRejections)
}
