package service

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// retryFailedCheck ends a run that failed on a check and sends its entries
// back to pending in their place (retrying_failed_check, counting the
// attempt): the engine then builds the unit again, on a new test commit
// with the same tree (startRun names the attempt in the merge message, so
// the commit differs from the failed one).
func (s *Service) retryFailedCheck(ctx context.Context, fx *effects, snap *engine.Snapshot, a engine.RetryFailedCheck) error {
	q := snap.Queue
	run := snap.Run(a.RunID)
	if run == nil {
		return fmt.Errorf("run %s is not open", a.RunID)
	}
	zerolog.Ctx(ctx).Info().Str("run", run.ID).Ints("prs", run.PRNumbers).Str("failure", a.Failure).
		Msg("run failed on a check; trying again on a new test commit")
	run.Status, run.FailureReason, run.FailureDetail, run.FinishedAt = queue.RunFailed, queue.ReasonTestsFailed, a.Failure, s.now()
	if err := s.store.SaveRun(ctx, run); err != nil {
		return fmt.Errorf("failed to record the failure of run %s: %w", run.ID, err)
	}
	for _, id := range run.EntryIDs {
		e := snap.Entry(id)
		if e == nil || e.RunID != run.ID {
			continue
		}
		if err := s.transition(ctx, fx, q, engine.Transition{EntryID: id, To: queue.StatePending,
			Reason: queue.ReasonRetryingFailedCheck, Detail: a.Detail, ClearRun: true, RetryFailure: a.Failure}); err != nil {
			return err
		}
	}
	return nil
}

// retryBudget is how many more failed runs of q may be tried again now:
// CheckRetryBudgetPercent of the runs started in the last hour (at least
// one run counted), rounded up, less the retries made in it.
func (s *Service) retryBudget(ctx context.Context, q *queue.Queue) (int, error) {
	events, err := s.store.ListEvents(ctx, q.ID, s.now().Add(-time.Hour))
	if err != nil {
		return 0, fmt.Errorf("failed to list the events of the last hour: %w", err)
	}
	started, retried := map[string]bool{}, map[string]bool{}
	for _, ev := range events {
		switch {
		case ev.Reason == queue.ReasonRetryingFailedCheck:
			retried[ev.RunID] = true
		case ev.To == queue.StateTesting && ev.RunID != "":
			started[ev.RunID] = true // the run the entry joined (attachRun sets it first)
		}
	}
	pct := q.Settings.EffectiveCheckRetryBudgetPercent()
	allowed := (pct*max(len(started), 1) + 99) / 100
	return allowed - len(retried), nil
}

// failingRun reports whether a run in progress of snap has failed on its
// checks (the only time the retry budget matters).
func failingRun(snap *engine.Snapshot) bool {
	for _, r := range snap.Runs {
		if r.Status != queue.RunInProgress {
			continue
		}
		if st, _ := engine.EvaluateChecks(r.RequiredChecks, snap.Checks[r.SHA]); st == queue.RunFailed {
			return true
		}
	}
	return false
}
