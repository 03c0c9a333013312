package engine

import (
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Readiness polling and retry bounds.
const (
	// NotReadyPoll is how often a not_ready entry's PR is re-read.
	NotReadyPoll = 5 * time.Second
	// MaxMergeAttempts bounds retries of "base branch was modified".
	MaxMergeAttempts = 6
	// PRFreshness is how recent the queue's own read of a PR must be for a
	// final decision (failing it) to stand on it, when the decision has no
	// moment of its own to be read after.
	PRFreshness = 5 * time.Second
)

// Next is the engine: from a snapshot and the current time it returns the
// next action to take (nil when the queue is settled) and the time at which
// the queue must be looked at again even if nothing happens (zero = never).
//
// Guarantees, for every snapshot:
//   - Merge is only returned for the first entry of the chain, when its run
//     passed (or, with optimistic merging, a later run containing it
//     passed), tested the entry's submitted head, and is still valid: the
//     target head equals the run's base plus the queue's own merges since.
//   - StartRun never brings the runs in progress above the queue's
//     concurrency (bisection runs: above bisectionConcurrency).
//   - A run is never used once a unit it was built on left the queue or the
//     target branch moved outside the queue: its entries restart.
func Next(s *Snapshot, now time.Time) (Action, time.Time) {
	s.idx = nil
	p := &planner{s: s, q: s.Queue, now: now}
	for _, step := range []func() Action{p.facts, p.unusedRuns, p.runResults, p.isolation, p.conflicts, p.admission, p.switchMode, p.preempt, p.cancelDoomed, p.keepUnits, p.merge, p.direct, p.start, p.startIsolation} {
		if a := step(); a != nil {
			return a, time.Time{}
		}
	}
	return nil, p.wake
}

// planner carries one call of Next. The snapshot does not change during
// a call, so the queue's layout is computed once and shared by the steps.
type planner struct {
	s    *Snapshot
	q    *queue.Queue
	now  time.Time
	wake time.Time

	ordered, chainEntries []*queue.Entry
	unitList              []unit
	laidOut               bool
}

// layout returns the ordered admitted entries, the chain and its units,
// computing them on first use.
func (p *planner) layout() (ordered, chain []*queue.Entry, units []unit) {
	if !p.laidOut {
		p.ordered = p.s.Ordered()
		p.chainEntries = p.s.chainOf(p.ordered)
		p.unitList = p.s.units(p.chainEntries)
		p.laidOut = true
	}
	return p.ordered, p.chainEntries, p.unitList
}

func (p *planner) wakeAt(t time.Time) { p.wake = minTime(p.wake, t) }

// testingTimeout is the queue's testing timeout: fixed, or from its recent
// runs (Settings.TestingTimeoutFromHistory).
func (p *planner) testingTimeout() queue.TestingTimeout {
	return queue.TestingTimeoutFor(p.q.Settings, p.s.Recent)
}

// facts ends or settles entries from what GitHub says about their PRs,
// whatever the queue state.
func (p *planner) facts() Action {
	for _, e := range p.s.Entries {
		if a := factAction(p.s, e); a != nil {
			return a
		}
	}
	return nil
}

// unusedRuns closes a plain run of the chain (not an isolation or
// bisection run, not one being built, not the parent of an open run) that
// no active entry refers to (Entry.RunID). The service closes such a run
// as soon as its last entry moves on, in a step of its own after the
// entries are saved: a replica that dies or loses its lease between the
// two left the run open for good, its branch live (never deleted) and its
// CI counted, unless the engine closes it here.
func (p *planner) unusedRuns() Action {
	used := make(map[string]bool, len(p.s.Entries)+len(p.s.Runs))
	for _, e := range p.s.Entries {
		used[e.RunID] = true
	}
	for _, r := range p.s.Runs {
		used[r.Parent] = true
	}
	for _, r := range p.s.Runs {
		if r.Isolation || r.Bisection || r.Status == queue.RunBuilding || used[r.ID] {
			continue
		}
		return CloseRun{RunID: r.ID}
	}
	return nil
}

// runResults decides runs in progress from their checks or their timeout.
func (p *planner) runResults() Action {
	for _, r := range p.s.Runs {
		switch r.Status {
		case queue.RunBuilding:
			// Only left behind by a crash mid-build: start over.
			return CloseRun{RunID: r.ID}
		case queue.RunInProgress:
			status, detail := EvaluateChecks(r.RequiredChecks, p.s.Checks[r.SHA])
			if status != queue.RunInProgress {
				reason := queue.Reason("")
				if status == queue.RunFailed {
					reason = queue.ReasonTestsFailed
					if a := p.checkRetry(r, detail); a != nil {
						return a
					}
				}
				return FinishRun{RunID: r.ID, Status: status, Reason: reason, Detail: detail}
			}
			if a := p.checksStart(r); a != nil {
				return a
			}
			if t := p.testingTimeout(); t.Limit > 0 {
				deadline := t.TimesOutAt(r)
				if !p.now.Before(deadline) {
					return FinishRun{RunID: r.ID, Status: queue.RunFailed, Reason: queue.ReasonTestTimeout,
						Detail: "tests did not finish within " + t.Describe()}
				}
				p.wakeAt(deadline)
			}
		}
	}
	return nil
}

// admission admits ready not_ready entries and cancels those that waited
// too long.
func (p *planner) admission() Action {
	q := p.q
	for _, e := range p.s.Entries {
		if e.State != queue.StateNotReady {
			continue
		}
		if limit := q.Settings.NotReadyTimeout(); limit > 0 {
			h := q.Settings.NotReadyTimeoutHours
			deadline := e.SubmittedAt.Add(limit) // time.Add saturates too
			if !p.now.Before(deadline) {
				return Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: queue.ReasonNotReadyTimeout,
					Detail: fmt.Sprintf("not ready within %s: %s", queue.Count(h, "hour"), e.StateReasonDetail)}
			}
			p.wakeAt(deadline)
		}
		ready, why := Ready(q, e)
		if ready && p.s.Parallel() && !e.Direct && p.s.targetsOf(e) == nil {
			ready, why = false, fmt.Sprintf("waiting for impacted targets for head %s (setImpactedTargets)", queue.ShortSHA(e.PRSHA))
		}
		switch {
		case ready && q.Admits():
			return Transition{EntryID: e.ID, To: queue.StatePending, Reason: queue.ReasonAdmitted, Detail: "admitted to the queue"}
		case ready:
			why = fmt.Sprintf("the queue is %s", q.State)
		}
		if why != e.StateReasonDetail {
			return Transition{EntryID: e.ID, To: queue.StateNotReady, Reason: e.StateReason, Detail: why}
		}
		p.wakeAt(p.now.Add(NotReadyPoll))
	}
	return nil
}

// switchMode applies a pending mode change once no run is in progress.
func (p *planner) switchMode() Action {
	if p.q.State != queue.QueueSwitchingModes {
		return nil
	}
	for _, r := range p.s.Runs {
		if r.Status == queue.RunInProgress || r.Status == queue.RunBuilding {
			return nil
		}
	}
	return ApplyMode{}
}

// keepUnits keeps every unit's run valid and its entries' states in step
// with it; failed units wait, are bisected, or yield their culprit.
func (p *planner) keepUnits() Action {
	ordered, chain, units := p.layout()
	for _, u := range units {
		if a := p.keepUnit(u); a != nil {
			return a
		}
	}
	// Entries waiting on a conflicting entry ahead lose any run they had.
	inChain := map[string]bool{}
	for _, e := range chain {
		inChain[e.ID] = true
	}
	for _, e := range ordered {
		if !inChain[e.ID] && e.RunID != "" {
			return Transition{EntryID: e.ID, To: queue.StatePending, Reason: e.StateReason, Detail: e.StateReasonDetail, ClearRun: true}
		}
	}
	return nil
}

func (p *planner) keepUnit(u unit) Action {
	first := u.entries[0]
	r := u.run
	if r == nil {
		for _, e := range u.entries {
			if e.RunID != "" || e.State != queue.StatePending {
				return Transition{EntryID: e.ID, To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved,
					Detail: "its test run ended; testing again", ClearRun: true}
			}
		}
		return nil
	}
	if r.Status == queue.RunCancelled {
		return Transition{EntryID: first.ID, To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved,
			Detail: "its test run was cancelled; testing again", ClearRun: true}
	}
	ahead := u.aheadEntries()
	if ok, why := p.s.unitValid(r, ahead, u.entries); !ok {
		detail := "the target branch moved outside the queue"
		if why == queue.ReasonRestartedDependencyRemoved {
			detail = "the pull requests tested with or ahead of it changed"
		}
		return Transition{EntryID: first.ID, To: queue.StatePending, Reason: why, Detail: detail + "; testing again", ClearRun: true}
	}
	switch r.Status {
	case queue.RunSucceeded:
		for _, e := range u.entries {
			if e.State != queue.StateTestsPassed {
				return Transition{EntryID: e.ID, To: queue.StateTestsPassed, Reason: queue.ReasonTestsPassed, Detail: r.FailureDetail}
			}
		}
	case queue.RunFailed:
		return p.failedUnit(ahead, u)
	}
	return nil
}

// merge merges the first unit with nothing left ahead of it (the head of
// the chain; in parallel mode, any unit whose dependencies all merged) once
// its run passed or it was vouched for.
func (p *planner) merge() Action {
	if !p.q.Merges() {
		return nil
	}
	_, _, units := p.layout()
	for _, u := range units {
		if u.hasAhead() {
			continue
		}
		e, r := u.entries[0], u.run
		if e.State != queue.StateTestsPassed || r == nil || !(r.Status == queue.RunSucceeded || (r.Status == queue.RunFailed && e.Vouched)) {
			continue
		}
		if p.now.Before(e.NextAttemptAt) {
			p.wakeAt(e.NextAttemptAt)
			continue
		}
		return Merge{EntryID: e.ID, RunID: r.ID, Before: p.s.TargetHead}
	}
	return nil
}

// factAction ends or settles an entry from what GitHub says about its PR,
// or from a cancellation asked for while its merge was in flight.
func factAction(s *Snapshot, e *queue.Entry) Action {
	if e.MergeIntent {
		return ResolveMerge{EntryID: e.ID, RunID: e.RunID, Before: e.MergeBase}
	}
	if e.CancelReason != "" {
		return Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: e.CancelReason, Detail: e.CancelDetail, ClearRun: true}
	}
	pr := e.PR
	switch {
	case pr.Merged:
		return Transition{EntryID: e.ID, To: queue.StateMerged, Reason: queue.ReasonMergedManually,
			Detail: "the pull request was merged outside the queue", ClearRun: true}
	case !pr.Open && !pr.ReadAt.IsZero():
		return Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: queue.ReasonPRClosed,
			Detail: "the pull request was closed", ClearRun: true}
	case pr.HeadSHA != "" && pr.HeadSHA != e.PRSHA:
		return Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: queue.ReasonPRPushed,
			Detail: fmt.Sprintf("new commits were pushed (head %s, submitted %s); submit again to test them", queue.ShortSHA(pr.HeadSHA), queue.ShortSHA(e.PRSHA)), ClearRun: true}
	case pr.BaseBranch != "" && pr.BaseBranch != s.Queue.Key.Branch:
		return Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: queue.ReasonBaseBranchChanged,
			Detail: fmt.Sprintf("the base branch changed to %s", pr.BaseBranch), ClearRun: true}
	case pr.Draft && e.State != queue.StateNotReady:
		// A draft submitted waits in not_ready until it is ready for
		// review (Ready); only a PR converted to a draft once admitted
		// is cancelled (SPEC §3).
		return Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: queue.ReasonPRDraft,
			Detail: "the pull request was converted to a draft", ClearRun: true}
	}
	return nil
}

// fail fails an entry (a final decision) once the queue has read its PR
// itself at or after `since`, the moment the failure was seen (zero: within
// PRFreshness), and not before (a failed run or conflict invalidates the
// last read: Entry.PRCheckedAt is zero); otherwise it asks for a read. A
// PR merged, closed or pushed whose webhook is late then ends for that
// reason instead.
func (p *planner) fail(e *queue.Entry, reason queue.Reason, detail string, since time.Time) Action {
	if since.IsZero() {
		since = p.now.Add(-PRFreshness)
	}
	if e.PRCheckedAt.IsZero() || e.PRCheckedAt.Before(since) {
		return RefreshPR{EntryID: e.ID}
	}
	return Transition{EntryID: e.ID, To: queue.StateFailed, Reason: reason, Detail: detail, ClearRun: true}
}

// Ready reports whether a not_ready entry may be admitted (SPEC §3), and
// if not, why, in words for the user.
func Ready(q *queue.Queue, e *queue.Entry) (bool, string) {
	if e.Direct {
		return true, ""
	}
	pr := e.PR
	switch {
	case pr.ReadAt.IsZero():
		return false, "waiting to read the pull request from GitHub"
	case !pr.Open:
		return false, "the pull request is closed"
	case pr.Draft:
		return false, "the pull request is a draft"
	case pr.BaseBranch != q.Key.Branch:
		return false, fmt.Sprintf("the pull request targets %s, not %s", pr.BaseBranch, q.Key.Branch)
	}
	switch pr.MergeableState {
	case "clean", "unstable", "has_hooks", "behind":
		return true, ""
	case "dirty":
		return false, fmt.Sprintf("the pull request conflicts with %s", q.Key.Branch)
	case "blocked":
		return false, "branch protection is not satisfied (reviews or required checks)"
	case "draft":
		return false, "the pull request is a draft"
	default:
		return false, "waiting for GitHub to compute mergeability"
	}
}
