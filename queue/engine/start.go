package engine

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// start starts a run for the first units without one, at most concurrency
// in progress, forming batches when batching is on (SPEC §5.2, §5.4).
func (p *planner) start() Action {
	q, s := p.q, p.s
	if !q.StartsRuns() || s.TargetHead == "" {
		return nil
	}
	if s.Required == nil {
		p.wakeAt(p.now.Add(NotReadyPoll)) // the required checks could not be read yet
		return nil
	}
	inFlight := 0
	for _, r := range s.Runs {
		if !r.Bisection && !r.Isolation && (r.Status == queue.RunInProgress || r.Status == queue.RunBuilding) {
			inFlight++
		}
	}
	_, _, units := p.layout()
	heldFailed, heldIso := p.heldBehindFailures(units), p.heldBehindIsolation(units)
	held := func(u unit) *queue.Entry {
		if f := heldFailed(u); f != nil {
			return f
		}
		return heldIso(u)
	}
	for i, u := range units {
		if u.run != nil || u.entries[0].State != queue.StatePending {
			continue
		}
		if inFlight >= max(q.Settings.Concurrency, 1) {
			return nil
		}
		if f := held(u); f != nil {
			// Say why it is not testing although a slot is free: in the API
			// and on the dashboard, not on the PR (the PR still reads
			// "Queued", and a failure can hold dozens of entries: one
			// GitHub call each, twice, would spend the rate limit).
			detail := heldDetail(f)
			if heldFailed(u) == nil {
				detail = isolationHeldDetail(u, f)
			}
			for _, e := range u.entries {
				if e.StateReasonDetail != detail {
					return Transition{EntryID: e.ID, To: queue.StatePending, Reason: e.StateReason, Detail: detail, Quiet: true}
				}
			}
			continue
		}
		if s.Required.Unset {
			return p.fail(u.entries[0], queue.ReasonNoRequiredStatuses, fmt.Sprintf("branch protection of %s requires no status checks "+
				"and the queue sets no requiredStatuses: refusing to merge untested code", q.Key.Branch), time.Time{})
		}
		batch := p.batch(units[i:], held)
		if batch == nil {
			return nil // a batch is filling up: nothing behind it starts first
		}
		ahead := p.withoutAwaiting(u.aheadEntries())
		if s.Parallel() {
			// A batch's dependencies are its members' (SPEC §5.5).
			ahead = batchAhead(units[i : i+len(batch)])
		}
		return startRun(s, ahead, batch)
	}
	return nil
}

// batchAhead is the union of the units' dependencies (in queue order),
// without the units' own entries.
func batchAhead(us []unit) []*queue.Entry {
	own := map[string]bool{}
	for _, u := range us {
		for _, e := range u.entries {
			own[e.ID] = true
		}
	}
	seen := map[string]bool{}
	var all []*queue.Entry
	for _, u := range us {
		for _, e := range u.aheadEntries() {
			if !own[e.ID] && !seen[e.ID] {
				seen[e.ID] = true
				all = append(all, e)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return queue.AheadOf(all[i], all[j]) })
	return all
}

// heldBehindFailures returns, for a unit without a run, the failed entry
// whose decision it must wait for (nil if none): the first entry of a
// failed unit not decided yet (or of a part of a failed batch being
// bisected) that it would be tested on top of. Such a run most likely
// contains the culprit and would be rebuilt once the culprit leaves, so
// only the pendingFailureDepth successor runs that the failure handling
// waits for (SPEC §5.3) start; the others wait for the decision (vouched,
// bisected, or culprit removed). With canOptimisticallyMerge on, a lone
// entry's failure is bet to be a flake and holds nothing back.
func (p *planner) heldBehindFailures(units []unit) func(unit) *queue.Entry {
	var failed []*queue.Entry // first entries of undecided failed units
	for _, u := range units {
		switch {
		case u.run == nil:
		case u.run.Status == queue.RunFailed && len(u.entries) == 1 && !u.run.Bisection && p.q.Settings.CanOptimisticallyMerge:
			// Optimistic merging bets that a lone failure is a flake a
			// successor will vouch for: speculation goes on past it.
		case u.run.Status == queue.RunFailed && !u.run.Bisection && p.q.Settings.CanOptimisticallyMerge && allPassedAlone(p.q.Settings, u.entries):
			// So is a batch's whose every PR passed alone (isolation runs):
			// what fails it is most likely a flake.
		case u.run.Status == queue.RunFailed && !allVouched(u.entries),
			u.run.Bisection && u.run.Status != queue.RunSucceeded: // part of a failed batch
			failed = append(failed, u.entries[0])
		}
	}
	if len(failed) == 0 {
		return func(unit) *queue.Entry { return nil }
	}
	have := map[string]int{} // successor runs containing each failed unit
	for _, u := range units {
		if u.run == nil {
			continue
		}
		for _, f := range failed {
			if slices.Contains(u.run.Ahead, f.ID) {
				have[f.ID]++
			}
		}
	}
	depth := p.q.Settings.PendingFailureDepth
	return func(u unit) *queue.Entry {
		for _, f := range failed {
			if have[f.ID] >= depth && u.dependsOn(f.ID) {
				return f
			}
		}
		return nil
	}
}

// heldDetail tells a user why an entry waits behind failed entry f.
func heldDetail(f *queue.Entry) string {
	return fmt.Sprintf("waiting until the failure of #%d ahead is decided: a test run now would most likely include its culprit", f.PRNumber)
}

func allVouched(es []*queue.Entry) bool {
	for _, e := range es {
		if !e.Vouched {
			return false
		}
	}
	return true
}

// batch picks the entries the next run tests, from the run-less units at
// the front of `rest`: one entry, or with batching on, consecutive entries
// of the same priority without noBatch and not held behind a failure, up
// to batchingMaxSize. It returns
// nil while a batch below batchingMinSize waits for more entries (until its
// oldest entry waited batchingMaxWaitTimeMinutes).
func (p *planner) batch(rest []unit, held func(unit) *queue.Entry) []*queue.Entry {
	st := p.q.Settings
	first := rest[0].entries[0]
	if !st.Batch || first.NoBatch {
		return []*queue.Entry{first}
	}
	out := []*queue.Entry{first}
	oldest := first.AdmittedAt
	for _, u := range rest[1:] {
		e := u.entries[0]
		if p.skipsAwaiting(u) {
			continue
		}
		if len(out) >= st.EffectiveBatchingMaxSize() || u.run != nil || e.State != queue.StatePending ||
			e.NoBatch || e.PriorityValue != first.PriorityValue || held(u) != nil {
			break
		}
		out = append(out, e)
		if e.AdmittedAt.Before(oldest) {
			oldest = e.AdmittedAt
		}
	}
	if len(out) < st.BatchingMinSize {
		deadline := oldest.Add(st.BatchingMaxWait())
		if p.now.Before(deadline) {
			p.wakeAt(deadline)
			return nil
		}
	}
	return out
}

// startRun tests `unit` on the target head plus every unit ahead, building
// on the commit of the run just ahead when there is one.
func startRun(s *Snapshot, ahead, unit []*queue.Entry) StartRun {
	if n := len(ahead); n > 0 {
		if prev := s.Run(ahead[n-1].RunID); prev != nil && prev.SHA != "" {
			seq := append(append([]string{}, prev.Ahead...), prev.EntryIDs...)
			// Only when prev's base plus its merged entries is the target
			// head: in parallel mode prev may stay valid across merges of PRs
			// independent of it that this unit depends on.
			if head, rest, ok := s.walkMerges(prev.BaseSHA, seq); ok && head == s.TargetHead && slices.Equal(rest, ids(ahead)) {
				return StartRun{Unit: ids(unit), Ahead: seq, BaseSHA: prev.BaseSHA, From: prev.SHA, Merge: ids(unit)}
			}
		}
	}
	return StartRun{Unit: ids(unit), Ahead: ids(ahead), BaseSHA: s.TargetHead, From: s.TargetHead,
		Merge: append(ids(ahead), ids(unit)...)}
}

// allPassedAlone reports whether, with isolation runs on, every entry
// passed its isolation run.
func allPassedAlone(st queue.Settings, es []*queue.Entry) bool {
	if !st.IsolationRuns {
		return false
	}
	for _, e := range es {
		if !e.IsolationPassed {
			return false
		}
	}
	return true
}
