package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue/crashpoint"
)

// merge merges the head of the chain into the target branch with the tested
// head SHA, records the merge, and verifies the landed tree.
func (s *Service) merge(ctx context.Context, snap *Snapshot, m Merge, head *string) error {
	q := snap.Queue
	e, r := snap.entry(m.EntryID), snap.run(m.RunID)
	if e != nil && m.RunID == "" {
		// A direct merge: what lands must be the PR head's own tree.
		r = &TestRun{SHA: e.PRSHA, BaseSHA: m.Before, Status: RunSucceeded, EntryIDs: []string{e.ID}, PRSHAs: []string{e.PRSHA}}
	}
	if e == nil || r == nil {
		return fmt.Errorf("merge of entry %s / run %s: not active", m.EntryID, m.RunID)
	}
	// A fresh read right before merging: if the branch moved, re-plan.
	fresh, err := s.gh.BranchHead(ctx, q.Key.Repo, q.Key.Branch)
	if err != nil {
		return fmt.Errorf("failed to read head of %s before merging: %w", q.Key.Branch, err)
	}
	if fresh != m.Before {
		*head = fresh
		return nil
	}
	// And a fresh read of the PR: one merged by hand whose webhook has not
	// arrived must end merged_manually, not be merged (or claimed) again.
	pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
	if err != nil {
		return fmt.Errorf("failed to read #%d before merging: %w", e.PRNumber, err)
	}
	if pr.Merged || !pr.Open || pr.HeadSHA != e.PRSHA {
		return s.storeFacts(ctx, e.ID, pr.PRFacts)
	}
	e.MergeIntent, e.MergeBase = true, m.Before
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to record merge intent: %w", err)
	}
	sha, mergeErr := s.gh.MergePullRequest(ctx, q.Key.Repo, e.PRNumber, MergeRequest{
		SHA: e.PRSHA, Method: q.Settings.MergeMethod, Title: mergeTitle(e.PR.Body)})
	var rejected *RejectedError
	switch {
	case mergeErr == nil:
		crashpoint.Hit("merge-applied")
		return s.recordMerge(ctx, q, e, r, m.Before, sha, head)
	case errors.Is(mergeErr, ErrHeadMoved):
		return s.transition(ctx, q, Transition{EntryID: e.ID, To: StateCancelled, Reason: ReasonPRPushed,
			Detail: "the pull request's head moved before it could be merged; the tested head was not merged", ClearRun: true})
	case errors.Is(mergeErr, ErrBaseModified):
		return s.retryMerge(ctx, q, e, "GitHub said the base branch was modified")
	case errors.As(mergeErr, &rejected):
		return s.transition(ctx, q, Transition{EntryID: e.ID, To: StateFailed, Reason: ReasonGitHubAPIFailed,
			Detail: "GitHub refused the merge: " + rejected.Message, ClearRun: true})
	default:
		// Unknown outcome: the engine's ResolveMerge reads the PR back.
		zerolog.Ctx(ctx).Warn().Err(mergeErr).Int("pr", e.PRNumber).Msg("merge outcome unknown; will read it back")
		return nil
	}
}

// retryMerge clears the intent and schedules another attempt with backoff,
// failing the entry after MaxMergeAttempts.
func (s *Service) retryMerge(ctx context.Context, q *Queue, e *Entry, why string) error {
	e.MergeIntent = false
	e.MergeAttempts++
	if e.MergeAttempts >= MaxMergeAttempts {
		if err := s.store.SaveEntry(ctx, e); err != nil {
			return fmt.Errorf("failed to save merge attempt: %w", err)
		}
		return s.transition(ctx, q, Transition{EntryID: e.ID, To: StateFailed, Reason: ReasonGitHubAPIFailed,
			Detail: fmt.Sprintf("merge failed %d times: %s", e.MergeAttempts, why), ClearRun: true})
	}
	e.NextAttemptAt = s.now().Add(backoff(e.MergeAttempts))
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to save merge attempt: %w", err)
	}
	return nil
}

// resolveMerge settles a merge whose outcome was not recorded.
func (s *Service) resolveMerge(ctx context.Context, snap *Snapshot, m ResolveMerge, head *string) error {
	q := snap.Queue
	e := snap.entry(m.EntryID)
	pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
	if err != nil {
		return fmt.Errorf("failed to read back #%d after a merge attempt: %w", e.PRNumber, err)
	}
	if pr.Merged {
		e.PR = mergeFacts(e.PR, pr.PRFacts)
		return s.recordMerge(ctx, q, e, snap.run(m.RunID), m.Before, pr.MergeCommitSHA, head)
	}
	return s.retryMerge(ctx, q, e, "the merge did not complete")
}

// recordMerge stores a queue merge, ends the entry, and checks that the
// target tree equals the tested tree; a mismatch pauses the queue.
func (s *Service) recordMerge(ctx context.Context, q *Queue, e *Entry, r *TestRun, before, after string, head *string) error {
	runID := ""
	if r != nil {
		runID = r.ID
	}
	err := s.store.WithTx(ctx, func(tx Store) error {
		if err := tx.AddMerge(ctx, MergeRecord{QueueID: q.ID, EntryID: e.ID, PRNumber: e.PRNumber, RunID: runID,
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
	// The landed tree must equal the tested tree once every entry the run
	// tested has landed (a batch merges PR by PR; a vouched entry's own run
	// failed and the run that vouched for it is checked when it lands). In
	// parallel mode each entry's own paths are checked as it lands.
	var mismatch error
	if r != nil && r.SHA != "" && r.Status == RunSucceeded {
		k := -1
		for i, id := range r.EntryIDs {
			if id == e.ID {
				k = i
			}
		}
		if k >= 0 && (q.Settings.Mode == ModeParallel || k == len(r.EntryIDs)-1) {
			mismatch = s.verifyTree(ctx, q, e, r, k, before, after)
		}
	}
	detail := fmt.Sprintf("merged into %s as %s", q.Key.Branch, short(after))
	if err := s.transition(ctx, q, Transition{EntryID: e.ID, To: StateMerged, Reason: ReasonMergedByQueue, Detail: detail, ClearRun: true}); err != nil {
		return err
	}
	return mismatch
}

// verifyTree checks the landing (SPEC §5.10); a mismatch pauses the queue,
// comments on the PR, logs an error and feeds the alert metric.
func (s *Service) verifyTree(ctx context.Context, q *Queue, e *Entry, r *TestRun, k int, before, landed string) error {
	mismatch, err := s.landedMismatch(ctx, q, r, k, before, landed)
	if err != nil || mismatch == "" {
		return err
	}
	msg := fmt.Sprintf("after merging #%d, %s; the queue is paused until an admin checks %s", e.PRNumber, mismatch, q.Key.Branch)
	zerolog.Ctx(ctx).Error().Int("pr", e.PRNumber).Str("landed", landed).Str("tested", r.SHA).Msg("landed tree differs from tested tree")
	q.State, q.PausedReason = QueuePaused, msg
	if err := s.store.UpdateQueue(ctx, q); err != nil {
		return fmt.Errorf("failed to pause queue: %w", err)
	}
	if s.opts.OnTreeMismatch != nil {
		s.opts.OnTreeMismatch(q.Key)
	}
	alert := Notice{Key: fmt.Sprintf("alert:%s:%s", e.ID, landed), Repo: q.Key.Repo, PRNumber: e.PRNumber,
		Kind: NoticeComment, Body: "⚠️ Merge queue alert: " + msg}
	return s.AddNotice(ctx, alert)
}
