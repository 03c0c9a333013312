package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// retryFailedCheck tries again a run that failed on a check: in place
// when every failed required check is a check run GitHub can re-run
// (retryInPlace), else on a new test commit (retryOnNewCommit).
func (s *Service) retryFailedCheck(ctx context.Context, fx *effects, snap *engine.Snapshot, a engine.RetryFailedCheck) error {
	run := snap.Run(a.RunID)
	if run == nil {
		return fmt.Errorf("run %s is not open", a.RunID)
	}
	if rr, ok := s.gh.(queue.CheckRerunner); ok {
		if failed := rerunnable(run, snap.Checks[run.SHA]); failed != nil {
			return s.retryInPlace(ctx, fx, snap, run, a, rr, failed)
		}
	}
	return s.retryOnNewCommit(ctx, fx, snap.Queue, run, a.Failure, a.Detail, a.Failure)
}

// rerunnable are the failed required check runs of run that GitHub can
// re-run in place, one per check suite (a suite re-runs all its failed
// checks at once); nil when one of the failed required checks cannot be
// (a commit status: a new test commit is needed).
func rerunnable(run *queue.TestRun, checks []queue.CheckResult) []queue.CheckResult {
	var out []queue.CheckResult
	suites := map[int64]bool{}
	for _, c := range queue.ChecksOfAttempt(run, checks) {
		if c.State != queue.CheckFailure || !slices.Contains(run.RequiredChecks, c.Name) {
			continue
		}
		if c.Kind != queue.KindCheckRun || c.CheckRunID == 0 || c.SuiteID == 0 {
			return nil
		}
		if !suites[c.SuiteID] {
			suites[c.SuiteID] = true
			out = append(out, c)
		}
	}
	return out
}

// retryInPlace keeps the run and its test commit and asks GitHub to run
// the failed checks again: the run forgets the failed check runs
// (TestRun.RerunChecks: their results are the earlier attempt's) and
// starts its attempt now, and its entries stay testing in their place,
// counting the attempt (retrying_failed_check, "attempt 2 of 3"). If
// GitHub does not re-run them (the App lacks actions: write or checks:
// write, or the call fails), the run is tried again on a new test commit
// instead, the attempt already counted.
func (s *Service) retryInPlace(ctx context.Context, fx *effects, snap *engine.Snapshot, run *queue.TestRun, a engine.RetryFailedCheck,
	rr queue.CheckRerunner, failed []queue.CheckResult) error {
	q := snap.Queue
	var names []string
	for _, c := range queue.ChecksOfAttempt(run, snap.Checks[run.SHA]) {
		if c.State == queue.CheckFailure && c.Kind == queue.KindCheckRun && c.CheckRunID != 0 && slices.Contains(run.RequiredChecks, c.Name) {
			run.RerunChecks = append(run.RerunChecks, c.CheckRunID)
			names = append(names, c.Name)
		}
	}
	zerolog.Ctx(ctx).Info().Str("run", run.ID).Ints("prs", run.PRNumbers).Str("failure", a.Failure).Strs("checks", names).
		Msg("run failed on a check; re-running the failed checks on the same test commit")
	run.StartedAt = s.now()
	if err := s.store.SaveRun(ctx, run); err != nil {
		return fmt.Errorf("failed to record the re-run of run %s: %w", run.ID, err)
	}
	detail := fmt.Sprintf("%s; re-running the failed check on the same test commit: attempt %d of %d", a.Failure, a.Attempt, a.Of)
	for _, id := range run.EntryIDs {
		if e := snap.Entry(id); e == nil || e.RunID != run.ID {
			continue
		}
		if err := s.transition(ctx, fx, q, engine.Transition{EntryID: id, To: queue.StateTesting,
			Reason: queue.ReasonRetryingFailedCheck, Detail: detail, RetryFailure: a.Failure}); err != nil {
			return err
		}
	}
	var rerunErr error
	fx.later(func(ctx context.Context) {
		for _, c := range failed {
			if err := rr.RerunFailedCheck(ctx, q.Key.Repo, c); err != nil {
				rerunErr = err
				return
			}
		}
	})
	fx.then(func(ctx context.Context) error {
		if rerunErr == nil {
			return nil
		}
		log := zerolog.Ctx(ctx).Warn().Err(rerunErr).Str("run", run.ID)
		if errors.Is(rerunErr, queue.ErrRerunRefused) {
			log = zerolog.Ctx(ctx).Info().Err(rerunErr).Str("run", run.ID)
		}
		log.Msg("the failed checks were not re-run in place; trying again on a new test commit")
		cur, err := s.store.GetRun(ctx, run.ID)
		if err != nil {
			return fmt.Errorf("failed to load run %s: %w", run.ID, err)
		}
		if cur.Status != queue.RunInProgress || cur.Closed {
			return nil // decided meanwhile
		}
		why := "re-running it on the same test commit failed"
		if errors.Is(rerunErr, queue.ErrRerunRefused) {
			why = "the App may not re-run it (actions: write, checks: write)"
		}
		return s.retryOnNewCommit(ctx, fx, q, cur, a.Failure,
			fmt.Sprintf("%s; %s, so trying again on a new test commit: attempt %d of %d", a.Failure, why, a.Attempt, a.Of), "")
	})
	return nil
}

// retryOnNewCommit ends a run that failed on a check and sends its entries
// back to pending in their place (retrying_failed_check): the engine then
// builds the unit again, on a new test commit with the same tree
// (startRun names the attempt in the merge message, so the commit differs
// from the failed one). count is the failure the entries count as an
// attempt ("" when the attempt was counted already).
func (s *Service) retryOnNewCommit(ctx context.Context, fx *effects, q *queue.Queue, run *queue.TestRun, failure, detail, count string) error {
	zerolog.Ctx(ctx).Info().Str("run", run.ID).Ints("prs", run.PRNumbers).Str("failure", failure).
		Msg("run failed on a check; trying again on a new test commit")
	run.Status, run.FailureReason, run.FailureDetail, run.FinishedAt = queue.RunFailed, queue.ReasonTestsFailed, failure, s.now()
	if err := s.store.SaveRun(ctx, run); err != nil {
		return fmt.Errorf("failed to record the failure of run %s: %w", run.ID, err)
	}
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		if e.RunID != run.ID || !slices.Contains(run.EntryIDs, e.ID) {
			continue
		}
		if err := s.transition(ctx, fx, q, engine.Transition{EntryID: e.ID, To: queue.StatePending,
			Reason: queue.ReasonRetryingFailedCheck, Detail: detail, ClearRun: true, RetryFailure: count}); err != nil {
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
			retried[ev.RunID+"\x00"+ev.Detail] = true // each attempt, on a new commit or in place
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
