package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/crashpoint"
	"github.com/mergequeue/mq/queue/engine"
	"github.com/mergequeue/mq/queue/textsafe"
)

// mergeOutcome is what happened on GitHub when the queue went to merge.
type mergeOutcome struct {
	readErr error              // the fresh reads failed: nothing was attempted
	head    string             // the target head moved to this: nothing was attempted
	pr      *queue.PullRequest // the PR moved on (merged, closed, pushed): nothing was attempted
	sha     string             // the merge commit, when the merge went through
	err     error              // the merge call's error
	// mismatch describes a landed tree that differs from the tested one
	// ("" when verified, or not due yet); verifyErr says why it could not
	// be checked.
	mismatch  string
	verifyErr error
}

// merge merges an entry whose run passed (or, with no run, a direct merge)
// into the target branch with the tested head SHA. The intent is recorded
// under the lock; then, without it, the target head and the PR are read
// fresh (a branch that moved, or a PR merged by hand whose webhook has not
// arrived, stops the merge), GitHub merges, and the landed tree is
// verified; then the outcome is recorded.
func (s *Service) merge(ctx context.Context, fx *effects, snap *engine.Snapshot, m engine.Merge, head *string) error {
	if landing, err := s.fastForwardUnit(ctx, fx, snap, m, head); landing {
		return err
	}
	q := snap.Queue
	e, r := snap.Entry(m.EntryID), snap.Run(m.RunID)
	if e != nil && m.RunID == "" {
		// A direct merge: what lands must be the PR head's own tree.
		r = &queue.TestRun{SHA: e.PRSHA, BaseSHA: m.Before, Status: queue.RunSucceeded, EntryIDs: []string{e.ID}, PRSHAs: []string{e.PRSHA}}
	}
	if e == nil || r == nil {
		return fmt.Errorf("merge of entry %s / run %s: not active", m.EntryID, m.RunID)
	}
	e.MergeIntent, e.MergeBase = true, m.Before
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to record merge intent: %w", err)
	}
	var o mergeOutcome
	fx.later(func(ctx context.Context) { o = s.tryMerge(ctx, q, e, r, m.Before) })
	// The outcome is GitHub's: a record that finds the entry saved since
	// settleMerge read it (another replica stored the PR's webhook) is
	// redone on fresh state at once.
	fx.then(func(ctx context.Context) error {
		return retryOnConflict(ctx, func() error { return s.settleMerge(ctx, fx, q.ID, e.ID, r, m.Before, o, head) })
	})
	return nil
}

// tryMerge reads fresh, merges and verifies; it holds no lock.
func (s *Service) tryMerge(ctx context.Context, q *queue.Queue, e *queue.Entry, r *queue.TestRun, before string) (o mergeOutcome) {
	repo := q.Key.Repo
	fresh, err := s.gh.BranchHead(ctx, repo, q.Key.Branch)
	if err != nil {
		o.readErr = fmt.Errorf("failed to read head of %s before merging: %w", q.Key.Branch, err)
		return o
	}
	if fresh != before {
		o.head = fresh
		return o
	}
	pr, err := s.gh.GetPullRequest(ctx, repo, e.PRNumber)
	if err != nil {
		o.readErr = fmt.Errorf("failed to read #%d before merging: %w", e.PRNumber, err)
		return o
	}
	if pr.Merged || !pr.Open || pr.HeadSHA != e.PRSHA {
		o.pr = pr
		return o
	}
	o.sha, o.err = s.gh.MergePullRequest(ctx, repo, e.PRNumber, queue.MergeRequest{
		SHA: e.PRSHA, Method: q.Settings.MergeMethod, Title: mergeTitle(e.PR.Body)})
	if o.err == nil {
		crashpoint.Hit(crashpoint.MergeApplied)
		o.mismatch, o.verifyErr = s.verifyLanding(ctx, q, e, r, before, o.sha)
	}
	return o
}

// settleMerge records a merge's outcome; the caller holds the lock.
func (s *Service) settleMerge(ctx context.Context, fx *effects, queueID int64, entryID string, r *queue.TestRun, before string, o mergeOutcome, head *string) error {
	q, err := s.store.GetQueueByID(ctx, queueID)
	if err != nil {
		return fmt.Errorf("failed to load queue: %w", err)
	}
	e, err := s.store.GetEntryByID(ctx, entryID)
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", entryID, err)
	}
	clearIntent := func() error {
		e.MergeIntent = false
		if err := s.store.SaveEntry(ctx, e); err != nil {
			return fmt.Errorf("failed to clear the merge intent of #%d: %w", e.PRNumber, err)
		}
		return nil
	}
	var rejected *queue.RejectedError
	switch {
	case o.readErr != nil:
		return errors.Join(o.readErr, clearIntent())
	case o.head != "":
		*head = o.head // the engine plans again on the new head
		return clearIntent()
	case o.pr != nil:
		if err := clearIntent(); err != nil {
			return err
		}
		return s.storeFacts(ctx, e.ID, o.pr.PRFacts, true)
	case o.err == nil:
		return s.recordMerge(ctx, fx, q, e, r, before, o, head)
	case errors.Is(o.err, queue.ErrHeadMoved):
		return s.transition(ctx, fx, q, engine.Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: queue.ReasonPRPushed,
			Detail: "the pull request's head moved before it could be merged; the tested head was not merged", ClearRun: true})
	case errors.Is(o.err, queue.ErrBaseModified):
		return s.retryMerge(ctx, fx, q, e, "GitHub said the base branch was modified")
	case errors.As(o.err, &rejected):
		return s.transition(ctx, fx, q, engine.Transition{EntryID: e.ID, To: queue.StateFailed, Reason: queue.ReasonGitHubAPIFailed,
			Detail: "GitHub refused the merge: " + rejected.Message, ClearRun: true})
	default:
		// Unknown outcome: the intent stays, and the engine's ResolveMerge
		// reads the PR back.
		zerolog.Ctx(ctx).Warn().Err(o.err).Int("pr", e.PRNumber).Msg("merge outcome unknown; will read it back")
		return nil
	}
}

// retryMerge clears the intent and schedules another attempt with backoff,
// failing the entry after MaxMergeAttempts.
func (s *Service) retryMerge(ctx context.Context, fx *effects, q *queue.Queue, e *queue.Entry, why string) error {
	e.MergeIntent = false
	e.MergeAttempts++
	if e.MergeAttempts >= engine.MaxMergeAttempts {
		if err := s.store.SaveEntry(ctx, e); err != nil {
			return fmt.Errorf("failed to save merge attempt: %w", err)
		}
		return s.transition(ctx, fx, q, engine.Transition{EntryID: e.ID, To: queue.StateFailed, Reason: queue.ReasonGitHubAPIFailed,
			Detail: fmt.Sprintf("merge failed %d times: %s", e.MergeAttempts, why), ClearRun: true})
	}
	e.NextAttemptAt = s.now().Add(backoff(e.MergeAttempts))
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to save merge attempt: %w", err)
	}
	return nil
}

// resolveMerge settles a merge whose outcome was not recorded (a crash, an
// ambiguous answer): the PR is read back without the lock; merged, the
// merge is recorded (and verified), else another attempt is scheduled.
func (s *Service) resolveMerge(fx *effects, snap *engine.Snapshot, m engine.ResolveMerge, head *string) {
	q := snap.Queue
	e, r := snap.Entry(m.EntryID), snap.Run(m.RunID)
	if e == nil {
		return
	}
	var o mergeOutcome
	merged := false
	fx.later(func(ctx context.Context) {
		pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
		if err != nil {
			o.readErr = fmt.Errorf("failed to read back #%d after a merge attempt: %w", e.PRNumber, err)
			return
		}
		if merged = pr.Merged; merged {
			o.sha, o.pr = pr.MergeCommitSHA, pr
			o.mismatch, o.verifyErr = s.verifyLanding(ctx, q, e, r, m.Before, o.sha)
		}
	})
	fx.then(func(ctx context.Context) error {
		if o.readErr != nil {
			return o.readErr
		}
		cur, err := s.store.GetEntryByID(ctx, e.ID)
		if err != nil {
			return fmt.Errorf("failed to load entry %s: %w", e.ID, err)
		}
		if !cur.MergeIntent {
			return nil
		}
		if merged {
			cur.PR = mergeFacts(cur.PR, o.pr.PRFacts)
			return s.recordMerge(ctx, fx, q, cur, r, m.Before, o, head)
		}
		return s.retryMerge(ctx, fx, q, cur, "the merge did not complete")
	})
}

// recordMerge stores a queue merge and ends the entry; a landed tree that
// differs from the tested one pauses the queue (SPEC §5.10).
func (s *Service) recordMerge(ctx context.Context, fx *effects, q *queue.Queue, e *queue.Entry, r *queue.TestRun, before string, o mergeOutcome, head *string) error {
	runID := ""
	if r != nil {
		runID = r.ID
	}
	after := o.sha
	err := s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.AddMerge(ctx, queue.MergeRecord{QueueID: q.ID, EntryID: e.ID, PRNumber: e.PRNumber, RunID: runID,
			Before: before, After: after, At: s.now()}); err != nil {
			return err
		}
		e.MergeIntent = false
		return tx.SaveEntry(ctx, e)
	})
	if err != nil {
		return fmt.Errorf("failed to record merge of #%d: %w", e.PRNumber, err)
	}
	*head = after
	zerolog.Ctx(ctx).Info().Int("pr", e.PRNumber).Str("before", before).Str("after", after).Msg("merged")
	detail := fmt.Sprintf("merged into %s as %s", q.Key.Branch, queue.ShortSHA(after))
	if err := s.transition(ctx, fx, q, engine.Transition{EntryID: e.ID, To: queue.StateMerged, Reason: queue.ReasonMergedByQueue, Detail: detail, ClearRun: true}); err != nil {
		return err
	}
	if o.verifyErr != nil {
		return o.verifyErr
	}
	if o.mismatch != "" {
		return s.pauseOnMismatch(ctx, q, e, r, o.mismatch, after)
	}
	return nil
}

// verifyLanding checks what landed against what was tested (SPEC §5.10),
// once every entry the run tested has landed (a batch merges PR by PR; a
// vouched entry's own run failed and the run that vouched for it is checked
// when it lands); in parallel mode each entry's own paths as it lands. It
// reads GitHub and holds no lock.
func (s *Service) verifyLanding(ctx context.Context, q *queue.Queue, e *queue.Entry, r *queue.TestRun, before, landed string) (string, error) {
	if r == nil || r.SHA == "" || r.Status != queue.RunSucceeded {
		return "", nil
	}
	k := -1
	for i, id := range r.EntryIDs {
		if id == e.ID {
			k = i
		}
	}
	if k < 0 || (q.Settings.Mode != queue.ModeParallel && k != len(r.EntryIDs)-1) {
		return "", nil
	}
	return s.landedMismatch(ctx, q, r, k, before, landed)
}

// pauseOnMismatch pauses the queue after a landing that differs from what
// was tested, and tells: a comment on the PR (in the same transaction),
// an error log, the alert metric.
func (s *Service) pauseOnMismatch(ctx context.Context, q *queue.Queue, e *queue.Entry, r *queue.TestRun, mismatch, landed string) error {
	msg := fmt.Sprintf("after merging #%d, %s; the queue is paused until an admin checks %s", e.PRNumber, mismatch, q.Key.Branch)
	zerolog.Ctx(ctx).Error().Int("pr", e.PRNumber).Str("landed", landed).Str("tested", r.SHA).Msg("landed tree differs from tested tree")
	cur, err := s.store.GetQueueByID(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to load queue: %w", err)
	}
	cur.State, cur.PausedReason = queue.QueuePaused, msg
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.UpdateQueue(ctx, cur); err != nil {
			return err
		}
		_, err := tx.AddNotice(ctx, &queue.Notice{Key: fmt.Sprintf("alert:%s:%s", e.ID, landed), Repo: q.Key.Repo,
			PRNumber: e.PRNumber, Kind: queue.NoticeComment, Body: "⚠️ Merge queue alert: " + textsafe.MarkdownKeepingRefs(msg), CreatedAt: s.now()})
		return err
	})
	if err != nil {
		return fmt.Errorf("failed to pause queue: %w", err)
	}
	s.rec.Wake()
	if s.opts.OnTreeMismatch != nil {
		s.opts.OnTreeMismatch(q.Key)
	}
	return nil
}
