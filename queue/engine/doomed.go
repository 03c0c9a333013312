package engine

import (
	"fmt"
	"slices"

	"github.com/mergequeue/mq/queue"
)

// cancelDoomed cancels, when pendingFailureDepth is 0 (without optimistic
// merging or isolation runs), the runs in progress that contain a failed
// unit not decided yet: its entries restart and wait for the decision
// (start holds them), as GitHub's merge queue and Zuul do.
//
// With those settings such a run is doomed: nothing vouches for the failed
// unit, so it leaves the queue (a lone entry is the culprit once the units
// ahead are decided; a batch is bisected until its culprit is found), or a
// unit ahead of it fails; either way the run was built on what leaves.
// Only a batch whose failure was a flake, every part of which then passes,
// keeps such a run valid: a rare loss, against every run behind every
// failure left to finish while the units ahead of it and its bisection are
// decided (issue #20). With pendingFailureDepth > 0 the runs behind are
// the evidence the failure handling waits for; with canOptimisticallyMerge
// or isolation runs one may vouch for the failed unit or its retest.
// Bisection and isolation runs are never cancelled here.
func (p *planner) cancelDoomed() Action {
	st := p.q.Settings
	if st.PendingFailureDepth != 0 || st.CanOptimisticallyMerge || st.IsolationRuns {
		return nil
	}
	_, _, units := p.layout()
	var failed []unit // undecided failed units whose runs are still valid
	for _, u := range units {
		r := u.run
		if r == nil || r.Isolation || r.Status != queue.RunFailed || allVouched(u.entries) {
			continue
		}
		if ok, _ := p.s.unitValid(r, u.aheadEntries(), u.entries); ok {
			failed = append(failed, u)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	for _, u := range units {
		r := u.run
		if r == nil || r.Bisection || r.Isolation || (r.Status != queue.RunInProgress && r.Status != queue.RunBuilding) {
			continue
		}
		for _, f := range failed {
			first := f.entries[0]
			if !u.dependsOn(first.ID) || !slices.Contains(r.Ahead, first.ID) {
				continue
			}
			return Transition{EntryID: u.entries[0].ID, To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved, ClearRun: true,
				Detail: fmt.Sprintf("the tests of #%d ahead failed: this run contains it, so it is cancelled; testing again once #%d is decided", first.PRNumber, first.PRNumber)}
		}
	}
	return nil
}
