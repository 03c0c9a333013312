package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

// maxPendingRuns bounds the runs a queue's observer waits on the result
// of (a run forgotten is one observation fewer, never a wrong one).
const maxPendingRuns = 10000

// maxKnownEntries bounds the entries whose PR a queue's observer
// remembers; past it the memory starts again (a run's tree then lacks the
// PRs of entries seen before, and the run is no flake evidence).
const maxKnownEntries = 50000

// feedLookback is how far before the latest event read the next read
// starts: an event stamped up to this much earlier that commits later
// (another transaction, another replica) is still read, once.
const feedLookback = time.Minute

// feedObserver reads q's events since qt's cursor (never the whole log:
// the store lists them from a time, and those already read are skipped,
// whatever their IDs) and reports to the observer what runner_auto
// reports from the simulated queue: submissions, conclusions (merged or
// failed by the queue, with the head the deciding run tested: a PR
// rejected and merged later at the same head was rejected by a flake),
// in parallel mode the PRs' impacted targets (read on submission, or on
// conclusion when they came later) and the runs the engine decided, with
// the PRs of their trees.
func (s *Service) feedObserver(ctx context.Context, q *queue.Queue, qt *queueTuner) error {
	evs, err := s.store.ListEvents(ctx, q.ID, qt.cursorAt.Add(-feedLookback))
	if err != nil {
		return fmt.Errorf("failed to list the events of %s: %w", q.Key, err)
	}
	runs := runReads{ctx: ctx, st: s.store, got: map[string]runRead{}}
	for _, ev := range evs {
		if _, done := qt.seen[ev.ID]; done {
			continue
		}
		qt.seen[ev.ID] = ev.At
		if ev.At.After(qt.cursorAt) {
			qt.cursorAt = ev.At
		}
		if ev.EntryID == "" {
			continue // the queue's own events (alerts, autoTune)
		}
		if len(qt.prs) >= maxKnownEntries {
			qt.prs = map[string]int{}
		}
		qt.prs[ev.EntryID] = ev.PRNumber
		switch {
		case ev.From == "":
			qt.obs.Arrived(ev.At)
			if err := s.observeTargets(ctx, q, qt, ev.PRNumber); err != nil {
				return err
			}
		case ev.To == queue.StateMerged, ev.To == queue.StateFailed:
			qt.obs.ConcludedHead(ev.At, ev.PRNumber, concludedHead(ev, runs), ev.To == queue.StateMerged)
			if err := s.observeTargets(ctx, q, qt, ev.PRNumber); err != nil {
				return err
			}
		}
		if _, done := qt.reported[ev.RunID]; ev.RunID != "" && !done && len(qt.runs) < maxPendingRuns {
			qt.runs[ev.RunID] = true // later events name decided runs too
		}
	}
	for id, at := range qt.seen {
		if at.Before(qt.cursorAt.Add(-2 * feedLookback)) {
			delete(qt.seen, id) // listed no more
		}
	}
	// A decided run is remembered while events may still name it.
	for id, at := range qt.reported {
		if at.Before(qt.cursorAt.Add(-2 * qt.obs.Window())) {
			delete(qt.reported, id)
		}
	}
	for id := range qt.runs {
		run, err := runs.get(id)
		if errors.Is(err, queue.ErrNotFound) {
			delete(qt.runs, id)
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to read run %s: %w", id, err)
		}
		switch run.Status {
		case queue.RunSucceeded, queue.RunFailed:
			tree := make([]int, 0, len(run.Ahead)+len(run.PRNumbers))
			for _, e := range run.Ahead {
				if pr, ok := qt.prs[e]; ok {
					tree = append(tree, pr)
				}
			}
			tree = append(tree, run.PRNumbers...)
			if !run.StartedAt.IsZero() && !run.FinishedAt.IsZero() {
				qt.obs.RunFinished(autotune.RunResult{Started: run.StartedAt, Finished: run.FinishedAt,
					Passed: run.Status == queue.RunSucceeded, Tree: tree})
			}
			delete(qt.runs, id)
			qt.reported[id] = run.FinishedAt
		case queue.RunCancelled:
			delete(qt.runs, id) // says nothing about CI
		}
	}
	return nil
}

// runReads reads each run once per feed pass: a run named by a
// conclusion is read again for the runs the engine decided.
type runReads struct {
	ctx context.Context
	st  queue.Store
	got map[string]runRead
}

type runRead struct {
	run *queue.TestRun
	err error
}

func (r runReads) get(id string) (*queue.TestRun, error) {
	got, ok := r.got[id]
	if !ok {
		got.run, got.err = r.st.GetRun(r.ctx, id)
		r.got[id] = got
	}
	return got.run, got.err
}

// concludedHead is the head commit of ev's PR that the run deciding it
// tested (the run's PRSHAs), or "" when no run decided it (a conflict, a
// timeout) or the run cannot be read: the conclusion then counts as it is.
func concludedHead(ev queue.Event, runs runReads) string {
	if ev.RunID == "" {
		return ""
	}
	run, err := runs.get(ev.RunID)
	if err != nil {
		return ""
	}
	for i, pr := range run.PRNumbers {
		if pr == ev.PRNumber && i < len(run.PRSHAs) {
			return run.PRSHAs[i]
		}
	}
	return ""
}

// observeTargets reports the impacted targets of PR pr when q is in
// parallel mode (the tuner of a parallel queue needs them:
// autotune.MinTargeted), unless the Observer has them already (read on
// submission). A PR without stored targets is left out.
func (s *Service) observeTargets(ctx context.Context, q *queue.Queue, qt *queueTuner, pr int) error {
	if q.Settings.Mode != queue.ModeParallel || qt.obs.HasTargets(pr) {
		return nil
	}
	t, err := s.store.GetTargets(ctx, q.ID, pr)
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("failed to read the targets of #%d: %w", pr, err)
	}
	qt.obs.Targeted(pr, t.All, t.List)
	return nil
}
