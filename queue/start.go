package queue

import "time"

// start starts a run for the first units without one, at most concurrency
// in progress, forming batches when batching is on (SPEC §5.2, §5.4).
func (p *planner) start() Action {
	q, s := p.q, p.s
	if !q.StartsRuns() || s.TargetHead == "" {
		return nil
	}
	inFlight := 0
	for _, r := range s.Runs {
		if !r.Bisection && (r.Status == RunInProgress || r.Status == RunBuilding) {
			inFlight++
		}
	}
	_, _, units := p.layout()
	for i, u := range units {
		if u.run != nil || u.entries[0].State != StatePending {
			continue
		}
		if inFlight >= max(q.Settings.Concurrency, 1) {
			return nil
		}
		if s.parallel() {
			return startRun(s, u.ahead, u.entries) // batches are single-mode only
		}
		batch := p.batch(units[i:])
		if batch == nil {
			return nil // a batch is filling up: nothing behind it starts first
		}
		return startRun(s, u.ahead, batch)
	}
	return nil
}

// batch picks the entries the next run tests, from the run-less units at
// the front of `rest`: one entry, or with batching on, consecutive entries
// of the same priority without noBatch, up to batchingMaxSize. It returns
// nil while a batch below batchingMinSize waits for more entries (until its
// oldest entry waited batchingMaxWaitTimeMinutes).
func (p *planner) batch(rest []unit) []*Entry {
	st := p.q.Settings
	first := rest[0].entries[0]
	if !st.Batch || first.NoBatch {
		return []*Entry{first}
	}
	out := []*Entry{first}
	oldest := first.AdmittedAt
	for _, u := range rest[1:] {
		e := u.entries[0]
		if len(out) >= st.EffectiveBatchingMaxSize() || u.run != nil || e.State != StatePending ||
			e.NoBatch || e.PriorityValue != first.PriorityValue {
			break
		}
		out = append(out, e)
		if e.AdmittedAt.Before(oldest) {
			oldest = e.AdmittedAt
		}
	}
	if len(out) < st.BatchingMinSize {
		deadline := oldest.Add(time.Duration(st.BatchingMaxWaitTimeMinutes) * time.Minute)
		if p.now.Before(deadline) {
			p.wakeAt(deadline)
			return nil
		}
	}
	return out
}

// startRun tests `unit` on the target head plus every unit ahead, building
// on the commit of the run just ahead when there is one.
func startRun(s *Snapshot, ahead, unit []*Entry) StartRun {
	if n := len(ahead); n > 0 {
		if prev := s.run(ahead[n-1].RunID); prev != nil && prev.SHA != "" {
			seq := append(append([]string{}, prev.Ahead...), prev.EntryIDs...)
			// Only when prev's base plus its merged entries is the target
			// head: in parallel mode prev may stay valid across merges of PRs
			// independent of it that this unit depends on.
			if head, rest, ok := s.walkMerges(prev.BaseSHA, seq); ok && head == s.TargetHead && equalIDs(rest, ids(ahead)) {
				return StartRun{Unit: ids(unit), Ahead: seq, BaseSHA: prev.BaseSHA, From: prev.SHA, Merge: ids(unit)}
			}
		}
	}
	return StartRun{Unit: ids(unit), Ahead: ids(ahead), BaseSHA: s.TargetHead, From: s.TargetHead,
		Merge: append(ids(ahead), ids(unit)...)}
}

func equalIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
