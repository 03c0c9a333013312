package engine

import "github.com/mergequeue/mq/queue"

// direct merges the head of the chain without a test run when the mode
// allows it, its head contains the target head and its own required checks
// passed (SPEC §5.8); it first has that checked on the current target head.
func (p *planner) direct() Action {
	q, s := p.q, p.s
	if q.Settings.DirectMergeMode != queue.DirectMergeAlways || !q.StartsRuns() || !q.Merges() || s.TargetHead == "" {
		return nil
	}
	_, chain, _ := p.layout()
	if len(chain) == 0 {
		return nil
	}
	e := chain[0]
	if e.State != queue.StatePending || e.RunID != "" {
		return nil
	}
	if e.DirectBase != s.TargetHead {
		return CheckDirect{EntryID: e.ID, Before: s.TargetHead}
	}
	if !directEligible(s, e) {
		return nil // tested like any other entry
	}
	return Merge{EntryID: e.ID, Before: s.TargetHead}
}

// directEligible reports whether an entry checked on the current target
// head may merge directly: its head contained the target head, something
// is required (the queue's requiredStatuses or branch protection), and
// every required check passed on its head.
func directEligible(s *Snapshot, e *queue.Entry) bool {
	if !e.DirectContains || s.Required == nil || s.Required.Unset {
		return false
	}
	status, _ := EvaluateChecks(s.Required.Names, s.Checks[e.PRSHA])
	return status == queue.RunSucceeded
}
