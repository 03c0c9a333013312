package api

import (
	"context"

	"github.com/mergequeue/mq/queue"
)

// Service is the part of *queue.Service the REST API drives. Operations
// added later extend it with the methods they need.
type Service interface {
	// CreateQueue creates a queue; queue.ErrExists if it exists, a
	// *queue.InputError if settings are invalid.
	CreateQueue(ctx context.Context, key queue.QueueKey, settings queue.Settings) (*queue.Queue, error)
	// GetQueue returns a queue and its active admitted entries in queue
	// order; queue.ErrNotFound if the queue is unknown.
	GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error)
	// Submit puts a PR into a queue or updates its active entry.
	Submit(ctx context.Context, req queue.SubmitRequest) (*queue.Entry, error)
	// Cancel cancels the PR's active entry in a queue; queue.ErrNotFound
	// (no queue) or queue.ErrNotActive.
	Cancel(ctx context.Context, key queue.QueueKey, prNumber int, reason queue.Reason, detail string) (*queue.Entry, error)
	// GetSubmitted returns a PR's entry, active or ended; queue.ErrNotFound
	// if the queue is unknown or the PR was never submitted to it.
	GetSubmitted(ctx context.Context, key queue.QueueKey, prNumber int) (*queue.SubmittedPR, error)
}
