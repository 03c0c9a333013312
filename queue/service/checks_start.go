package service

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// keepsPlace reports whether an entry sent back to pending for this reason
// keeps its frozen place in the queue: a restart on request, and a run
// whose checks never started (no fault of the PR).
func keepsPlace(r queue.Reason) bool {
	return r == queue.ReasonRestartedByUser || r == queue.ReasonRestartedChecksMissing || r == queue.ReasonChecksNotStarted ||
		r == queue.ReasonRetryingFailedCheck
}

// checksNotStarted ends a run whose required checks never started, once
// GitHub, read afresh (a lost webhook must not look like an outage),
// confirms that some still have not reported. Its entries go back to
// pending in their place, without blame, and its branch is deleted. The
// first time the engine then plans a new run for them (a new test commit
// with the same tree); the second time in a row the queue pauses
// (PausedReason names the checks and the branch) and alerts: an error log,
// the alert metric, and the entries' notifications and surfaces.
func (s *Service) checksNotStarted(fx *effects, snap *engine.Snapshot, a engine.ChecksNotStarted) error {
	q := snap.Queue
	run := snap.Run(a.RunID)
	if run == nil {
		return fmt.Errorf("run %s is not open", a.RunID)
	}
	var fresh []queue.CheckResult
	var readErr error
	fx.later(func(ctx context.Context) {
		fresh, readErr = s.gh.Checks(ctx, q.Key.Repo, run.SHA)
	})
	fx.then(func(ctx context.Context) error {
		if readErr != nil {
			return fmt.Errorf("failed to read the checks of run %s: %w", run.ID, readErr)
		}
		for _, c := range fresh {
			if err := s.store.RecordCheck(ctx, q.Key.Repo, c); err != nil {
				return fmt.Errorf("failed to record check %s: %w", c.Name, err)
			}
		}
		cur, err := s.store.GetRun(ctx, run.ID)
		if err != nil {
			return fmt.Errorf("failed to load run %s: %w", run.ID, err)
		}
		if cur.Closed || cur.Status != queue.RunInProgress {
			return nil // decided or dropped meanwhile
		}
		checks, err := s.store.ListChecks(ctx, q.Key.Repo, cur.SHA)
		if err != nil {
			return fmt.Errorf("failed to list the checks of run %s: %w", run.ID, err)
		}
		missing := engine.MissingChecks(cur.RequiredChecks, checks)
		if len(missing) == 0 {
			zerolog.Ctx(ctx).Info().Str("run", run.ID).Msg("the required checks had started after all (a webhook was late or lost)")
			return nil
		}
		a.Missing = missing
		a.Detail = engine.ChecksNotStartedDetail(missing, cur.Branch, q.Settings.ChecksStartTimeoutMinutes, a.Outage)
		return s.endChecksNotStarted(ctx, fx, q, cur, a)
	})
	return nil
}

// endChecksNotStarted carries out a confirmed ChecksNotStarted.
func (s *Service) endChecksNotStarted(ctx context.Context, fx *effects, q *queue.Queue, run *queue.TestRun, a engine.ChecksNotStarted) error {
	q, err := s.store.GetQueueByID(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to load queue: %w", err)
	}
	log := zerolog.Ctx(ctx)
	reason := queue.ReasonRestartedChecksMissing
	if a.Outage {
		reason = queue.ReasonChecksNotStarted
		log.Error().Str("run", run.ID).Str("branch", run.Branch).Strs("missing", a.Missing).Ints("prs", run.PRNumbers).
			Msg("required checks never started, twice in a row: CI outage; pausing the queue")
		// The pause first: should the process stop in between, the run is
		// still open and the engine, seeing it again, pauses again.
		q.State = queue.QueuePaused
		q.PausedReason = fmt.Sprintf(queue.ChecksNotStartingPause+"%s, twice in a row. New runs are paused; the PRs keep "+
			"their places. Set the queue running once CI works.",
			engine.MissingChecksText(a.Missing, run.Branch, q.Settings.ChecksStartTimeoutMinutes))
		// The pause raises the queue alert (notifications) with it.
		alert := queue.QueueAlertEvent(q.ID, queue.AlertChecksNotStarting, true, q.PausedReason, s.now())
		if err := s.store.WithTx(ctx, func(tx queue.Store) error {
			if err := tx.UpdateQueue(ctx, q); err != nil {
				return err
			}
			return tx.AddEvent(ctx, &alert)
		}); err != nil {
			return fmt.Errorf("failed to pause queue %s: %w", q.Key, err)
		}
	} else {
		log.Warn().Str("run", run.ID).Str("branch", run.Branch).Strs("missing", a.Missing).Ints("prs", run.PRNumbers).
			Msg("required checks never started; testing again on a new test commit")
	}
	for _, id := range run.EntryIDs {
		e, err := s.store.GetEntryByID(ctx, id)
		if err != nil {
			return fmt.Errorf("failed to load entry %s: %w", id, err)
		}
		if !e.Active() || e.RunID != run.ID {
			continue
		}
		if err := s.transition(ctx, fx, q, engine.Transition{EntryID: id, To: queue.StatePending, Reason: reason,
			Detail: a.Detail, ClearRun: true}); err != nil {
			return err
		}
	}
	// No entry may hold the run any more (they moved on meanwhile): close
	// it anyway, or the engine would find its checks missing again.
	if err := s.closeRunIfUnused(ctx, fx, q, run.ID); err != nil {
		return err
	}
	if s.opts.OnChecksNotStarted != nil {
		s.opts.OnChecksNotStarted(q.Key, a.Outage)
	}
	s.opts.Wake(q.ID)
	return nil
}
