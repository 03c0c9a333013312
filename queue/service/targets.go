package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// SetImpactedTargets stores a PR's impacted targets in a queue, replacing
// earlier ones, and wakes the queue. The PR need not be submitted yet.
// ErrNotFound if the queue is unknown; *InputError for a missing PR number
// or SHA; with VerifyPR, ErrPRNotFound if GitHub does not know the PR (and
// a transient GitHub failure as such), nothing stored in either case.
func (s *Service) SetImpactedTargets(ctx context.Context, u queue.TargetsUpdate) error {
	if u.PRNumber <= 0 {
		return queue.Inputf("pr.number is required")
	}
	if u.SHA == "" {
		return queue.Inputf("pr.sha is required")
	}
	q, err := s.store.GetQueue(ctx, u.Key)
	if err != nil {
		return fmt.Errorf("failed to load queue %s: %w", u.Key, err)
	}
	if u.VerifyPR {
		if _, err := s.gh.GetPullRequest(ctx, q.Key.Repo, u.PRNumber); err != nil {
			return fmt.Errorf("failed to read pull request #%d of %s: %w", u.PRNumber, q.Key.Repo.FullName(), err)
		}
	}
	t := queue.Targets{QueueID: q.ID, PRNumber: u.PRNumber, SHA: u.SHA, All: u.All, UpdatedAt: s.now()}
	if !u.All {
		t.List = u.List
		if t.List == nil {
			t.List = []string{}
		}
	}
	if err := s.store.SetTargets(ctx, t); err != nil {
		return fmt.Errorf("failed to store impacted targets of #%d in %s: %w", u.PRNumber, u.Key, err)
	}
	s.targets.forget(q.ID, u.PRNumber)
	s.opts.Wake(q.ID)
	return nil
}

// ConfirmForkedRun checks the credential of a CI run on a PR from a fork,
// which cannot hold an API token: GitHub must report workflow run runID in
// repo as queued or in progress, for head SHA sha, and sha must be the PR's
// current head. Anything else is ErrRunNotConfirmed (wrapped with why); a
// confirmed run for a PR GitHub does not know also wraps ErrPRNotFound; a
// transient GitHub failure is returned as such (the caller may retry).
func (s *Service) ConfirmForkedRun(ctx context.Context, repo queue.Repo, prNumber int, sha string, runID int64) error {
	wr, ok := s.gh.(queue.WorkflowRuns)
	if !ok {
		return fmt.Errorf("this GitHub port cannot read workflow runs: %w", queue.ErrRunNotConfirmed)
	}
	if runID <= 0 || sha == "" || prNumber <= 0 {
		return fmt.Errorf("incomplete forked run credential: %w", queue.ErrRunNotConfirmed)
	}
	status, head, err := wr.WorkflowRun(ctx, repo, runID)
	if err != nil {
		if errors.Is(err, queue.ErrTransient) {
			return fmt.Errorf("failed to read workflow run %d: %w", runID, err)
		}
		return fmt.Errorf("workflow run %d of %s: %w: %w", runID, repo.FullName(), queue.ErrRunNotConfirmed, err)
	}
	if status != "queued" && status != "in_progress" {
		return fmt.Errorf("workflow run %d is %q, not in progress: %w", runID, status, queue.ErrRunNotConfirmed)
	}
	if head != sha {
		return fmt.Errorf("workflow run %d runs %s, not %s: %w", runID, queue.ShortSHA(head), queue.ShortSHA(sha), queue.ErrRunNotConfirmed)
	}
	pr, err := s.gh.GetPullRequest(ctx, repo, prNumber)
	if err != nil {
		if errors.Is(err, queue.ErrTransient) {
			return fmt.Errorf("failed to read pull request #%d: %w", prNumber, err)
		}
		return fmt.Errorf("pull request #%d of %s: %w: %w", prNumber, repo.FullName(), queue.ErrRunNotConfirmed, err)
	}
	if pr.HeadSHA != sha {
		return fmt.Errorf("pull request #%d head is %s, not %s: %w", prNumber, queue.ShortSHA(pr.HeadSHA), queue.ShortSHA(sha), queue.ErrRunNotConfirmed)
	}
	return nil
}
