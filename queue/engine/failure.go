package engine

import (
	"fmt"
	"slices"

	"github.com/mergequeue/mq/queue"
)

// failedUnit handles a unit whose (still valid) run failed (SPEC §5.3,
// §5.4): while a unit ahead is undecided its entries wait in
// pending_failure; then the unit waits for pendingFailureDepth successor
// runs and is vouched for by a passing one (canOptimisticallyMerge);
// otherwise a batch is bisected and a single entry is the culprit.
func (p *planner) failedUnit(ahead []*queue.Entry, u unit) Action {
	r := u.run
	if allVouched(u.entries) {
		return nil
	}
	// A run that tested more than this unit (the rest of a bisected batch)
	// stands for a test of the unit on top of the halves split off ahead of
	// it. Without the skip-redundant-tests optimisation the rest is tested
	// again on top of the first half, at once, like any speculative unit.
	exact := len(r.EntryIDs) == len(u.entries)
	if !exact && p.q.Settings.OptimizationMode != queue.OptimizationBisectionSkipTests {
		return p.startBisection(ahead, u.entries[:min(p.bisectionChunk(len(r.EntryIDs)), len(u.entries))], r)
	}
	for _, a := range ahead {
		if a.State != queue.StateTestsPassed {
			return p.waitFailed(u, fmt.Sprintf("tests failed; waiting for #%d ahead to decide whether it caused the failure", a.PRNumber))
		}
	}
	// Everything ahead passed, so the failure is this unit's own.
	return p.culprit(ahead, u)
}

// bisectionChunk is the size of the parts a failed unit of n entries is
// split into: n / bisectionParts rounded up (halves by default).
func (p *planner) bisectionChunk(n int) int {
	parts := min(p.q.Settings.EffectiveBisectionParts(), n)
	return (n + parts - 1) / parts
}

// waitFailed puts the unit's entries in pending_failure with detail.
func (p *planner) waitFailed(u unit, detail string) Action {
	for _, e := range u.entries {
		if e.State != queue.StatePendingFailure || e.StateReasonDetail != detail {
			return Transition{EntryID: e.ID, To: queue.StatePendingFailure, Reason: u.run.FailureReason, Detail: detail}
		}
	}
	return nil
}

// startBisection tests part of a failed unit as a bisection run, within
// bisectionConcurrency.
func (p *planner) startBisection(ahead, part []*queue.Entry, parent *queue.TestRun) Action {
	if !p.q.StartsRuns() {
		return p.waitFailed(unit{entries: part, run: parent}, fmt.Sprintf("the batch failed; bisection waits while the queue is %s", p.q.State))
	}
	if p.sideRunsInFlight() >= max(p.q.Settings.EffectiveBisectionConcurrency(), 1) {
		return p.waitFailed(unit{entries: part, run: parent}, "the batch failed; waiting for a bisection slot to find the culprit")
	}
	a := startRun(p.s, ahead, part)
	a.Bisection, a.Parent = true, parent.ID
	return a
}

// culprit decides a failed unit whose units ahead all passed: it waits for
// pendingFailureDepth successor runs containing it, is vouched for by a
// passing one (canOptimisticallyMerge: a flake absorbed, batch or not), or
// is the culprit: a batch is bisected, a single entry fails.
// Only runs still valid on the current target head count as evidence: a
// run built on a base that moved (or on units that left, or before a mode
// switch) says nothing about the tree the unit would land in.
func (p *planner) culprit(ahead []*queue.Entry, u unit) Action {
	st := p.q.Settings
	r, first := u.run, u.entries[0]
	var finished, running int
	var voucher *queue.TestRun
	_, _, units := p.layout()
	for _, v := range units {
		o := v.run
		if o == nil || !v.dependsOn(first.ID) || !slices.Contains(o.Ahead, first.ID) {
			continue
		}
		if ok, _ := p.s.unitValid(o, v.aheadEntries(), v.entries); !ok {
			continue
		}
		switch o.Status {
		case queue.RunSucceeded:
			finished++
			if voucher == nil {
				voucher = o
			}
		case queue.RunFailed:
			finished++
		case queue.RunInProgress, queue.RunBuilding:
			running++
		}
	}
	if voucher != nil && st.CanOptimisticallyMerge {
		for _, e := range u.entries {
			if !e.Vouched {
				return Transition{EntryID: e.ID, To: queue.StateTestsPassed, Reason: queue.ReasonVouched,
					Detail: fmt.Sprintf("its own run failed (%s), but a later run containing it passed (%s): treated as a flake", r.FailureDetail, queue.PRList(voucher.PRNumbers))}
			}
		}
		return nil
	}
	if len(u.entries) == 1 && st.IsolationRuns && first.IsolationFailures > 0 {
		// Failed in the queue and alone: two independent failures.
		return p.fail(first, r.FailureReason, fmt.Sprintf("%s; it also failed alone on %s", r.FailureDetail, p.q.Key.Branch), r.FinishedAt)
	}
	if want := st.PendingFailureDepth; finished < want && (running > 0 || p.successorsCanStart(first)) {
		return p.waitFailed(u, fmt.Sprintf("tests failed (%s); waiting for %d more run(s) behind it before deciding", r.FailureDetail, want-finished))
	}
	if len(u.entries) > 1 {
		return p.startBisection(ahead, u.entries[:p.bisectionChunk(len(u.entries))], r)
	}
	if a := p.isolationVouch(u); a != nil {
		return a
	}
	return p.fail(first, r.FailureReason, r.FailureDetail, r.FinishedAt)
}

// successorsCanStart reports whether some admitted entry whose tests would
// include e has no run yet (so a successor run containing e may start).
func (p *planner) successorsCanStart(e *queue.Entry) bool {
	_, _, units := p.layout()
	for _, u := range units {
		if u.run == nil && u.entries[0].State == queue.StatePending && u.dependsOn(e.ID) {
			return true
		}
	}
	return false
}
