package engine

import (
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// MaxIsolationFailures is how many isolation runs of an entry must fail
// for it to leave the queue: the first failure may be a flake, so it is
// retried once.
const MaxIsolationFailures = 2

// isolation settles isolation runs (Settings.IsolationRuns): a run whose
// entry left, moved to another head or no longer refers to it is closed;
// a decided one is recorded on its entry (IsolationResult); and an entry
// whose isolation runs failed MaxIsolationFailures times fails, before its
// chain run can fail the runs built on it (unless its chain tests passed
// meanwhile: the tree it would land in passed). This applies whatever the
// setting says now: a failure alone is evidence either way.
func (p *planner) isolation() Action {
	for _, r := range p.s.Runs {
		if !r.Isolation || len(r.EntryIDs) != 1 {
			continue
		}
		e := p.s.Entry(r.EntryIDs[0])
		if e == nil || e.IsolationRunID != r.ID || len(r.PRSHAs) != 1 || e.PRSHA != r.PRSHAs[0] {
			return CloseRun{RunID: r.ID}
		}
		if r.Status == queue.RunSucceeded || r.Status == queue.RunFailed {
			return IsolationResult{EntryID: e.ID, RunID: r.ID, Passed: r.Status == queue.RunSucceeded}
		}
	}
	for _, e := range p.s.Entries {
		chainUndecided := e.State == queue.StatePending || e.State == queue.StateTesting || e.State == queue.StatePendingFailure
		if chainUndecided && e.IsolationFailures >= MaxIsolationFailures && !e.MergeIntent {
			return p.fail(e, queue.ReasonTestsFailed, fmt.Sprintf("tested alone on %s, its tests failed %d times: "+
				"it would fail every test run it is part of, so it leaves the queue before it does", p.q.Key.Branch, e.IsolationFailures), time.Time{})
		}
	}
	return nil
}

// startIsolation starts the isolation run of the first admitted entry, in
// queue order, that needs one: not tested alone yet (or once, failed), not
// a direct merge, its chain tests not passed yet. Isolation runs share
// bisectionConcurrency's slots with bisection runs, so the CI in flight
// stays within concurrency + bisectionConcurrency.
func (p *planner) startIsolation() Action {
	q, s := p.q, p.s
	if !q.Settings.IsolationRuns || !q.StartsRuns() || s.TargetHead == "" || s.Required == nil || s.Required.Unset {
		return nil
	}
	ordered, _, _ := p.layout()
	for _, e := range ordered {
		if !needsIsolation(s, e) {
			continue
		}
		if p.sideRunsInFlight() >= max(q.Settings.EffectiveBisectionConcurrency(), 1) {
			return nil
		}
		return StartRun{Unit: []string{e.ID}, Ahead: []string{}, BaseSHA: s.TargetHead, From: s.TargetHead,
			Merge: []string{e.ID}, Isolation: true}
	}
	return nil
}

// needsIsolation reports whether an admitted entry waits for an isolation run.
func needsIsolation(s *Snapshot, e *queue.Entry) bool {
	switch {
	case e.Direct, e.IsolationPassed, e.IsolationFailures >= MaxIsolationFailures, e.Conflict != nil, e.MergeIntent:
		return false
	case e.State != queue.StatePending && e.State != queue.StateTesting && e.State != queue.StatePendingFailure:
		return false
	}
	return s.Run(e.IsolationRunID) == nil
}

// sideRunsInFlight counts the bisection and isolation runs in progress.
func (p *planner) sideRunsInFlight() int {
	n := 0
	for _, r := range p.s.Runs {
		if (r.Bisection || r.Isolation) && (r.Status == queue.RunInProgress || r.Status == queue.RunBuilding) {
			n++
		}
	}
	return n
}

// isolationVouch decides a lone entry whose chain run failed with every
// entry ahead of it passed, which would fail it: with isolation runs, while
// its isolation run is in progress the decision waits for it; if it passed
// (the PR alone on the target head is fine) the chain failure is treated
// as a flake and the entry is tested again, once (Entry.FlakeRetried).
// Nothing merges on that word: the retest must pass like any run.
func (p *planner) isolationVouch(u unit) Action {
	e, r := u.entries[0], u.run
	if !p.q.Settings.IsolationRuns || e.FlakeRetried {
		return nil
	}
	if ir := p.s.Run(e.IsolationRunID); ir != nil && (ir.Status == queue.RunInProgress || ir.Status == queue.RunBuilding) {
		return p.waitFailed(u, fmt.Sprintf("tests failed (%s); waiting for its isolation run to tell a flake from a broken pull request", r.FailureDetail))
	}
	if !e.IsolationPassed {
		return nil
	}
	return Transition{EntryID: e.ID, To: queue.StatePending, Reason: r.FailureReason, ClearRun: true, FlakeRetry: true,
		Detail: fmt.Sprintf("its tests failed in the queue (%s) but passed alone on %s: treated as a flake, testing again once", r.FailureDetail, p.q.Key.Branch)}
}

// awaitsIsolation reports whether an entry must pass its isolation run
// before a test run of the chain may contain it (Settings.IsolationRuns):
// it has not passed alone (one that failed alone once waits for its retry:
// letting it in as a suspect cost 0.26 CI runs per merge on the
// Chromium-like preset for no gain in time-to-merge) and has no place in
// the chain yet (no run, no frozen Position). A direct merge, a PR with a
// merge conflict (it fails on its own) and one being merged do not wait.
func awaitsIsolation(st queue.Settings, e *queue.Entry) bool {
	if !st.IsolationRuns || e.IsolationPassed || e.Direct || e.Conflict != nil || e.MergeIntent || e.RunID != "" || e.Position > 0 {
		return false
	}
	return e.State == queue.StatePending
}

// heldBehindIsolation returns, for a unit without a run, the entry
// awaiting its isolation run (awaitsIsolation) that keeps it out of the
// chain (nil if none). With isolation runs on, the chain is built of PRs
// that passed alone: a broken PR leaves after its isolation runs and never
// fails the runs built on it, so what still fails in the chain is a flake
// (absorbed by pendingFailureDepth and canOptimisticallyMerge) or an
// interaction between PRs.
//
// In single mode only the unit's own entries keep it out: a PR that passed
// alone joins the chain past the PRs ahead of it still tested alone (its
// run leaves them out, and its frozen Position puts it ahead of them), so
// the chain is in the order PRs passed alone. In parallel mode a unit also
// waits for the PRs it depends on.
func (p *planner) heldBehindIsolation(units []unit) func(unit) *queue.Entry {
	if !p.q.Settings.IsolationRuns {
		return func(unit) *queue.Entry { return nil }
	}
	var waiting []*queue.Entry
	own := map[string]*queue.Entry{} // unit's first entry → the entry of it that waits
	for _, u := range units {
		if u.run != nil {
			continue
		}
		for _, e := range u.entries {
			if awaitsIsolation(p.q.Settings, e) {
				waiting = append(waiting, e)
				if own[u.entries[0].ID] == nil {
					own[u.entries[0].ID] = e
				}
			}
		}
	}
	if len(waiting) == 0 {
		return func(unit) *queue.Entry { return nil }
	}
	parallel := p.s.Parallel()
	return func(u unit) *queue.Entry {
		if e := own[u.entries[0].ID]; e != nil {
			return e
		}
		if !parallel {
			return nil
		}
		for _, f := range waiting {
			if u.dependsOn(f.ID) {
				return f
			}
		}
		return nil
	}
}

// withoutAwaiting drops from the entries ahead of a unit, in single mode,
// those that await their isolation run: the unit joins the chain past them.
func (p *planner) withoutAwaiting(ahead []*queue.Entry) []*queue.Entry {
	if !p.q.Settings.IsolationRuns || p.s.Parallel() {
		return ahead
	}
	out := ahead[:0:0]
	for _, e := range ahead {
		if !awaitsIsolation(p.q.Settings, e) {
			out = append(out, e)
		}
	}
	return out
}

// skipsAwaiting reports whether a batch, in single mode with isolation
// runs, goes on past unit u that awaits its isolation run (its members
// join the chain ahead of it).
func (p *planner) skipsAwaiting(u unit) bool {
	if !p.q.Settings.IsolationRuns || p.s.Parallel() || u.run != nil {
		return false
	}
	for _, e := range u.entries {
		if awaitsIsolation(p.q.Settings, e) {
			return true
		}
	}
	return false
}

// isolationHeldDetail tells a user why the entries of u wait although a
// slot is free: f, in u or ahead of it, has not passed alone yet. The
// entries behind are not named so that their detail does not change
// (a store write each) whenever the first waiting PR does.
func isolationHeldDetail(u unit, f *queue.Entry) string {
	for _, e := range u.entries {
		if e.ID == f.ID {
			return "tested alone on the target branch first: joins the test runs of the queue once that run passed"
		}
	}
	return "waiting for pull requests ahead to pass their isolation runs before joining the test runs of the queue"
}
