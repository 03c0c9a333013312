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
//
// Concurrency also caps the speculation depth: a run starts only for a unit
// with fewer than concurrency units ahead of it (in single mode the first
// units of the chain, in parallel mode of its lane), whether the runs ahead
// are in progress or have passed. Without the cap, every run that passed
// behind a head still testing frees a slot for a run further back, which a
// failure ahead then throws away (issue #20: it cost Shopify-like traffic
// more runs per merge than GitHub-style speculation at the same k).
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
	failures, heldIso := p.heldBehindFailures(units), p.heldBehindIsolation(units)
	held := func(u unit) *queue.Entry {
		if f := failures.held(u); f != nil {
			return f
		}
		return heldIso(u)
	}
	k := max(q.Settings.Concurrency, 1)
	awaiting := 0 // units ahead that the chain goes on past (isolation runs)
	for i, u := range units {
		depth := u.depth() - awaiting
		if p.skipsAwaiting(u) {
			awaiting++
		}
		if u.run != nil || u.entries[0].State != queue.StatePending {
			continue
		}
		if inFlight >= k {
			return nil
		}
		if depth >= k && !failures.successor(u) {
			if !s.Parallel() {
				return nil // the chain is tested in order
			}
			p.passedOver = true
			continue // another lane may be shallower
		}
		if !p.dependsOnlyOnStarted(u, nil) {
			continue // behind a unit passed over: it waits for it
		}
		if f := held(u); f != nil {
			// Say why it is not testing although a slot is free: in the API
			// and on the dashboard, not on the PR (the PR still reads
			// "Queued", and a failure can hold dozens of entries: one
			// GitHub call each, twice, would spend the rate limit).
			detail := heldDetail(f)
			if failures.held(u) == nil {
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

// failureHold is what undecided failures ahead mean for the units without
// a run (heldBehindFailures).
type failureHold struct {
	undecided []*queue.Entry  // first entries of undecided failed units
	holds     map[string]bool // those whose decision the units behind wait for
	have      map[string]int  // successor runs containing each of them
	depth     int             // pendingFailureDepth
}

// heldBehindFailures finds the failed units not decided yet (or parts of a
// failed batch being bisected) and which of them hold back the units
// without a run that would be tested on top of them. Such a run most
// likely contains the culprit and would be rebuilt once the culprit
// leaves, so only the pendingFailureDepth successor runs that the failure
// handling waits for (SPEC §5.3) start; the others wait for the decision
// (vouched, bisected, or culprit removed). With canOptimisticallyMerge on,
// a lone entry's failure is bet to be a flake and holds nothing back.
func (p *planner) heldBehindFailures(units []unit) *failureHold {
	st := p.q.Settings
	h := &failureHold{depth: st.PendingFailureDepth}
	for _, u := range units {
		r := u.run
		if r == nil || !(r.Status == queue.RunFailed && !allVouched(u.entries) || r.Bisection && r.Status != queue.RunSucceeded) {
			continue
		}
		f := u.entries[0]
		h.undecided = append(h.undecided, f)
		switch {
		case r.Status == queue.RunFailed && len(u.entries) == 1 && !r.Bisection && st.CanOptimisticallyMerge:
			// Optimistic merging bets that a lone failure is a flake a
			// successor will vouch for: speculation goes on past it.
		case r.Status == queue.RunFailed && !r.Bisection && st.CanOptimisticallyMerge && allPassedAlone(st, u.entries):
			// So is a batch's whose every PR passed alone (isolation runs):
			// what fails it is most likely a flake.
		default:
			if h.holds == nil {
				h.holds = map[string]bool{}
			}
			h.holds[f.ID] = true
		}
	}
	if len(h.undecided) == 0 {
		return h
	}
	h.have = map[string]int{}
	for _, u := range units {
		if u.run == nil {
			continue
		}
		for _, f := range h.undecided {
			if slices.Contains(u.run.Ahead, f.ID) {
				h.have[f.ID]++
			}
		}
	}
	return h
}

// held returns the failed entry whose decision unit u must wait for (nil
// if none): u would contain it, and its pendingFailureDepth successor runs
// exist.
func (h *failureHold) held(u unit) *queue.Entry {
	for _, f := range h.undecided {
		if h.holds[f.ID] && h.have[f.ID] >= h.depth && u.dependsOn(f.ID) {
			return f
		}
	}
	return nil
}

// successor reports whether a run of u would be one of the
// pendingFailureDepth successor runs an undecided failure waits for: such
// a run is the failure handling's evidence, so it starts even past the
// speculation depth cap (with concurrency 1, the run right behind a failed
// head is already one unit too deep).
func (h *failureHold) successor(u unit) bool {
	for _, f := range h.undecided {
		if h.have[f.ID] < h.depth && u.dependsOn(f.ID) {
			return true
		}
	}
	return false
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
			e.NoBatch || e.PriorityValue != first.PriorityValue || held(u) != nil || !p.dependsOnlyOnStarted(u, out) {
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

// dependsOnlyOnStarted reports whether, in parallel mode, every unit that
// u depends on has a run or is in the batch being formed, once start passed
// over a unit too deep in its lane: that unit has no run, and a run of one
// of its dependants would contain it untested. (A unit held behind a
// failure or an isolation run holds its dependants too.)
func (p *planner) dependsOnlyOnStarted(u unit, batch []*queue.Entry) bool {
	if !p.passedOver {
		return true
	}
	for _, e := range u.aheadEntries() {
		if e.RunID == "" && !slices.Contains(batch, e) {
			return false
		}
	}
	return true
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
