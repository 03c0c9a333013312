package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// ClaimCommand claims a PR-comment command for the webhook delivery acting
// on it (queue.CommandClaims), durably: true if the delivery may act (the
// first to claim it, or a retry of that delivery), false if another
// delivery did — a replayed webhook, which must change nothing. A zero
// ClaimedAt is now.
func (s *Service) ClaimCommand(ctx context.Context, c queue.CommandClaim) (bool, error) {
	if c.ClaimedAt.IsZero() {
		c.ClaimedAt = s.now()
	}
	ok, err := s.store.ClaimCommand(ctx, c)
	if err != nil {
		return false, fmt.Errorf("failed to claim the command of comment %d in %s: %w", c.CommentID, c.Repo.FullName(), err)
	}
	return ok, nil
}

// CommandTarget reads what a PR-comment command on pull request number of
// repo acts on, each once: the PR from GitHub, then the queue of its base
// branch (none is no refusal: a command may answer that). It refuses
// (*queue.Refusal) a PR GitHub does not know (RefusedUnknownPR), a queue
// that takes no commands (RefusedCommandsDisabled) and one of the queue's
// own test PRs (RefusedTestPR); commands are ignored there.
func (s *Service) CommandTarget(ctx context.Context, repo queue.Repo, number int) (*queue.CommandTarget, error) {
	pr, err := s.gh.GetPullRequest(ctx, repo, number)
	if err != nil {
		return nil, prRefusal(number, err)
	}
	pr.Number = number
	t := &queue.CommandTarget{Repo: repo, PR: *pr}
	q, err := s.store.GetQueue(ctx, t.Key())
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("failed to load queue %s: %w", t.Key(), err)
	}
	t.Queue = q
	if !q.Settings.CommandsEnabled {
		return nil, &queue.Refusal{Reason: queue.RefusedCommandsDisabled, Msg: fmt.Sprintf("the merge queue for branch %s takes no commands", q.Key.Branch)}
	}
	if err := testPRRefusal(q.Settings, number, pr.HeadRef); err != nil {
		return nil, err
	}
	return t, nil
}

// SubmitTarget submits the PR of t, a CommandTarget, to t's queue as
// Submit does, reading neither again (req.Key and req.PRNumber are t's).
// It refuses (*queue.Refusal) a target without a queue (RefusedNoQueue,
// wrapping queue.ErrNotFound) and an unknown priority (RefusedInvalid).
func (s *Service) SubmitTarget(ctx context.Context, t *queue.CommandTarget, req queue.SubmitRequest) (*queue.Entry, error) {
	req.Key, req.PRNumber = t.Key(), t.PR.Number
	if t.Queue == nil {
		return nil, queueRefusal(req.Key, queue.ErrNotFound)
	}
	prio, err := parsePriority(req.Priority)
	if err != nil {
		return nil, err
	}
	pr := t.PR
	return s.submit(ctx, t.Queue, &pr, req, prio)
}
