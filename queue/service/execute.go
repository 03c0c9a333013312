package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// transition applies a state change, closes a run nobody uses any more,
// and tells the PR.
func (s *Service) transition(ctx context.Context, fx *effects, q *queue.Queue, t engine.Transition) error {
	e, err := s.store.GetEntryByID(ctx, t.EntryID)
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", t.EntryID, err)
	}
	from, oldDetail := e.State, e.StateReasonDetail
	shown := from != t.To || (oldDetail != t.Detail && !t.Quiet)
	week, err := s.flakyHistory(ctx, q, from, t.To, t.Reason)
	if err != nil {
		return fmt.Errorf("failed to move #%d to %s: %w", e.PRNumber, t.To, err)
	}
	var orphan string
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		now := s.now()
		if from != t.To {
			e.StateChangedAt = now
		}
		e.State, e.StateReason, e.StateReasonDetail = t.To, t.Reason, t.Detail
		if from == queue.StateNotReady && t.To == queue.StatePending {
			e.AdmittedAt = now
			e.Seq = q.NextSeq
			q.NextSeq++
			if err := tx.UpdateQueue(ctx, q); err != nil {
				return err
			}
		}
		if t.To == queue.StatePending && (from == queue.StateTesting || from == queue.StateTestsPassed || from == queue.StatePendingFailure) {
			e.Restarts++
		}
		e.Vouched = t.Reason == queue.ReasonVouched || (e.Vouched && t.To == queue.StateTestsPassed)
		switch t.Reason {
		case queue.ReasonRestartedChecksMissing:
			e.ChecksMissing++
		case queue.ReasonChecksNotStarted:
			e.ChecksMissing = 0 // a fresh start once the queue runs again
		case queue.ReasonRetryingFailedCheck:
			e.ChecksMissing = 0 // its checks did start
			if t.RetryFailure == "" {
				break // counted already (a re-run in place that fell back)
			}
			e.CheckAttempts++
			if e.CheckRetryLog != "" {
				e.CheckRetryLog += "; "
			}
			e.CheckRetryLog += fmt.Sprintf("attempt %d: %s", e.CheckAttempts, t.RetryFailure)
		}
		if from != t.To && e.CheckAttempts > 0 &&
			(t.To == queue.StateTestsPassed || t.To == queue.StateFailed || t.To == queue.StatePendingFailure) {
			t.Detail += fmt.Sprintf(" (attempt %d of %d; earlier %s)", e.CheckAttempts+1, q.Settings.CheckRetries+1, e.CheckRetryLog)
			e.StateReasonDetail = t.Detail
		}
		if t.To.Terminal() {
			e.CheckAttempts, e.CheckRetryLog = 0, ""
		}
		if (t.ClearRun && !keepsPlace(t.Reason)) || t.To.Terminal() {
			e.Position = 0 // its place is no longer frozen
		}
		if t.To.Terminal() {
			e.ConcludedAt = now
			e.MergeIntent = false
			e.BlockedBy = ""
			e.Conflict, e.CancelReason, e.CancelDetail = nil, "", ""
		}
		if t.BlockedBy != "" {
			e.BlockedBy = t.BlockedBy
		}
		if t.ClearConflict {
			e.Conflict = nil
		}
		if t.FlakeRetry {
			e.FlakeRetried = true
		}
		runID := e.RunID
		if t.ClearRun && e.RunID != "" {
			orphan = e.RunID
			e.RunID = ""
		}
		if err := tx.SaveEntry(ctx, e); err != nil {
			return err
		}
		// The log holds state changes, and a new test run of an entry
		// already testing (a bisection, a restart in place).
		var ev *queue.Event
		if from != t.To || (t.To == queue.StateTesting && oldDetail != t.Detail) {
			ev = &queue.Event{QueueID: q.ID, EntryID: e.ID, PRNumber: e.PRNumber, At: now,
				From: from, To: t.To, Reason: t.Reason, Detail: t.Detail, RunID: runID}
			if err := tx.AddEvent(ctx, ev); err != nil {
				return err
			}
		}
		if !shown {
			return nil
		}
		return showChange(ctx, tx, q, e, from, ev, week)
	})
	if err != nil {
		return fmt.Errorf("failed to move #%d to %s: %w", e.PRNumber, t.To, err)
	}
	zerolog.Ctx(ctx).Info().Int("pr", e.PRNumber).Str("from", string(from)).Str("to", string(t.To)).
		Str("reason", string(t.Reason)).Str("detail", t.Detail).Msg("entry state changed")
	if t.To.Terminal() {
		s.polls.forget(e.ID)
		s.rechecks.forget(e.ID)
	}
	if orphan != "" {
		if err := s.closeRunIfUnused(ctx, fx, q, orphan); err != nil {
			return err
		}
	}
	if shown {
		s.rec.Wake()
	}
	return nil
}

// finishRun records a run's result. A failure may end its entries, a
// final decision: it invalidates the queue's last read of their PRs
// (Entry.PRCheckedAt), so the engine reads them again before failing one.
func (s *Service) finishRun(ctx context.Context, snap *engine.Snapshot, f engine.FinishRun) error {
	r := snap.Run(f.RunID)
	if r == nil {
		return fmt.Errorf("run %s is not open", f.RunID)
	}
	r.Status, r.FailureReason, r.FailureDetail, r.FinishedAt = f.Status, f.Reason, f.Detail, s.now()
	err := s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveRun(ctx, r); err != nil {
			return err
		}
		for _, id := range r.EntryIDs {
			e := snap.Entry(id)
			if e == nil {
				continue
			}
			// A run decided by its checks had them start: the next run
			// whose checks never start is a first time again.
			changed := e.ChecksMissing > 0 && f.Reason != queue.ReasonTestTimeout
			if changed {
				e.ChecksMissing = 0
			}
			if f.Status == queue.RunFailed && !e.PRCheckedAt.IsZero() {
				e.PRCheckedAt, changed = time.Time{}, true
			}
			if !changed {
				continue
			}
			if err := tx.SaveEntry(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("failed to save result of run %s: %w", r.ID, err)
	}
	zerolog.Ctx(ctx).Info().Str("run", r.ID).Str("status", string(f.Status)).Str("detail", f.Detail).Msg("test run finished")
	return nil
}

// closeRunIfUnused closes a run once no active entry refers to it.
func (s *Service) closeRunIfUnused(ctx context.Context, fx *effects, q *queue.Queue, runID string) error {
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		if e.RunID == runID {
			return nil
		}
	}
	return s.closeRun(ctx, fx, q, runID)
}

// closeRun marks a run closed (cancelled if undecided) and, once the lock
// is released, deletes its branch, so its CI stops counting against the
// queue's concurrency; a delete that fails is left to the reconciler, which
// deletes every recorded branch no live run owns.
func (s *Service) closeRun(ctx context.Context, fx *effects, q *queue.Queue, runID string) error {
	r, err := s.store.GetRun(ctx, runID)
	if err != nil {
		return fmt.Errorf("failed to load run %s: %w", runID, err)
	}
	if r.Closed {
		return nil
	}
	if !r.Status.Decided() {
		r.Status = queue.RunCancelled
		r.FinishedAt = s.now()
	}
	r.Closed = true
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveRun(ctx, r); err != nil {
			return err
		}
		// A test PR, if the run has one, is closed with it.
		if _, err := tx.GetRunSurface(ctx, r.ID); errors.Is(err, queue.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		return tx.TouchRunSurface(ctx, q.ID, r.ID)
	})
	if err != nil {
		return fmt.Errorf("failed to close run %s: %w", runID, err)
	}
	// Its branch is dead from here on: deleted with the next test branch
	// published in the repository, or by the reconciler in a batch.
	s.rec.Wake()
	return nil
}

// refreshPR reads an entry's PR (no lock held) and stores what it says,
// with the time of the read: the facts a final decision stands on.
func (s *Service) refreshPR(fx *effects, snap *engine.Snapshot, entryID string) {
	e := snap.Entry(entryID)
	if e == nil {
		return
	}
	repo, n := snap.Queue.Key.Repo, e.PRNumber
	var pr *queue.PullRequest
	var readErr error
	fx.later(func(ctx context.Context) {
		pr, readErr = s.gh.GetPullRequest(ctx, repo, n)
	})
	fx.then(func(ctx context.Context) error {
		switch {
		case errors.Is(readErr, queue.ErrPRNotFound):
			// A PR GitHub no longer has counts as unchanged: the engine's
			// own decision stands.
			return s.storeFacts(ctx, entryID, queue.PRFacts{}, true)
		case readErr != nil:
			return fmt.Errorf("failed to read #%d: %w", n, readErr)
		}
		return s.storeFacts(ctx, entryID, pr.PRFacts, true)
	})
}

// mergeTitle finds a "merge-commit-title: <title>" line in a PR body.
func mergeTitle(body string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if len(line) > len("merge-commit-title:") && strings.EqualFold(line[:len("merge-commit-title:")], "merge-commit-title:") {
			return strings.TrimSpace(line[len("merge-commit-title:"):])
		}
	}
	return ""
}

// backoff is the wait before merge attempt n+1 after a transient refusal.
func backoff(n int) time.Duration {
	d := time.Second << min(n, 5)
	return min(d, 30*time.Second)
}

// applyMode ends switching_modes (SPEC §4).
func (s *Service) applyMode(ctx context.Context, q *queue.Queue) error {
	if q.PendingMode != "" {
		q.Settings.Mode = q.PendingMode
	}
	q.PendingMode = ""
	q.State, q.ResumeState = q.ResumeState, ""
	if q.State == "" || q.State == queue.QueueSwitchingModes {
		q.State = queue.QueueRunning
	}
	q.UpdatedAt = s.now()
	if err := s.store.UpdateQueue(ctx, q); err != nil {
		return fmt.Errorf("failed to apply mode %s: %w", q.Settings.Mode, err)
	}
	zerolog.Ctx(ctx).Info().Str("mode", string(q.Settings.Mode)).Str("state", string(q.State)).Msg("queue switched modes")
	return nil
}
