package handlers

import (
	"context"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// Service is what the handlers ask of the queue's use cases
// (*service.Service): recording facts, commands and replies.
type Service interface {
	// Submit puts a PR into a queue or updates its active entry, reading
	// both; it refuses with a *queue.Refusal (no queue, an invalid
	// priority, a PR GitHub does not know, one of the queue's test PRs).
	Submit(ctx context.Context, req queue.SubmitRequest) (*queue.Entry, error)
	// CommandTarget reads, once each, what a PR-comment command acts on:
	// the PR and the queue of its base branch (nil if none). It refuses
	// with a *queue.Refusal a PR GitHub does not know, a queue with
	// commands disabled and one of the queue's own test PRs.
	CommandTarget(ctx context.Context, repo queue.Repo, prNumber int) (*queue.CommandTarget, error)
	// SubmitTarget submits a CommandTarget's PR to its queue without
	// reading either again; it refuses with a *queue.Refusal a target
	// without a queue and an invalid priority.
	SubmitTarget(ctx context.Context, t *queue.CommandTarget, req queue.SubmitRequest) (*queue.Entry, error)
	// CancelPR cancels the PR's active entries in every queue of repo.
	CancelPR(ctx context.Context, repo queue.Repo, prNumber int, reason queue.Reason, detail string) ([]*queue.Entry, error)
	// Restart re-tests an active admitted entry (queue.ErrNotActive if the
	// PR is not active in the queue; *queue.InputError if not admitted).
	Restart(ctx context.Context, key queue.QueueKey, prNumber int) (*queue.Entry, error)
	// OnPullRequest reports new facts about a PR.
	OnPullRequest(ctx context.Context, repo queue.Repo, pr queue.PullRequest) error
	// OnCheck reports a commit status or check run.
	OnCheck(ctx context.Context, repo queue.Repo, c queue.CheckResult) error
	// OnPush reports that a branch moved from before to sha.
	OnPush(ctx context.Context, repo queue.Repo, branch, before, sha string) error
	// AddNotice records a reply or reaction for the reconciler to write
	// (a notice whose key exists changes nothing).
	AddNotice(ctx context.Context, n queue.Notice) error
	// ClaimCommand claims a comment command for a delivery, durably: false
	// if another delivery already acted on it (queue.CommandClaims).
	ClaimCommand(ctx context.Context, c queue.CommandClaim) (bool, error)
}

// Reads is what the handlers look up and show (*readside.Reads): a
// queue's settings, and where a PR stands for /mq status.
type Reads interface {
	// GetQueue returns a queue and its active admitted entries
	// (queue.ErrNotFound if absent).
	GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error)
	// ActiveEntries returns the PR's active entries in every queue of repo.
	ActiveEntries(ctx context.Context, repo queue.Repo, prNumber int) ([]*queue.Entry, error)
	// QueueByID finds a queue by its ID.
	QueueByID(ctx context.Context, id int64) (*queue.Queue, error)
	// Estimates returns the positions and expected merge times of a
	// queue's admitted entries.
	Estimates(ctx context.Context, q *queue.Queue) (map[string]readside.Estimate, error)
}

var _ Reads = (*readside.Reads)(nil)

// GitHub is the part of queue.GitHub the handlers use (same signatures):
// whether a user may act. What they act on the service reads.
type GitHub interface {
	// Permission returns "admin", "maintain", "write", "triage", "read" or "none".
	Permission(ctx context.Context, repo queue.Repo, user string) (string, error)
}

var _ GitHub = (queue.GitHub)(nil)
