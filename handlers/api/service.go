package api

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// Service is what the REST API asks of the queue's use cases
// (*service.Service): every operation that changes something.
type Service interface {
	// CreateQueueFrom creates a queue from the default settings changed by
	// an update; queue.ErrExists if it exists, a *queue.InputError if the
	// update is invalid.
	CreateQueueFrom(ctx context.Context, key queue.QueueKey, u queue.QueueUpdate) (*queue.Queue, error)
	// UpdateQueue applies a partial update; queue.ErrNotFound or a
	// *queue.InputError.
	UpdateQueue(ctx context.Context, key queue.QueueKey, u queue.QueueUpdate) (*queue.Queue, error)
	// DeleteQueue deletes an empty queue (nil if absent); a
	// *queue.InputError while active entries remain.
	DeleteQueue(ctx context.Context, key queue.QueueKey) error

	// Submit puts a PR into a queue or updates its active entry.
	Submit(ctx context.Context, req queue.SubmitRequest) (*queue.Entry, error)
	// Cancel cancels the PR's active entry in a queue; queue.ErrNotFound
	// (no queue) or queue.ErrNotActive.
	Cancel(ctx context.Context, key queue.QueueKey, prNumber int, reason queue.Reason, detail string) (*queue.Entry, error)
	// Restart restarts the tests of an active admitted entry;
	// queue.ErrNotFound (no queue), queue.ErrNotActive or a
	// *queue.InputError (not admitted yet).
	Restart(ctx context.Context, key queue.QueueKey, prNumber int) (*queue.Entry, error)

	// SetImpactedTargets stores a PR's impacted targets;
	// queue.ErrNotFound if the queue is unknown.
	SetImpactedTargets(ctx context.Context, u queue.TargetsUpdate) error
	// ConfirmForkedRun checks an x-forked-workflow-run-id credential;
	// queue.ErrRunNotConfirmed when GitHub does not confirm it.
	ConfirmForkedRun(ctx context.Context, repo queue.Repo, prNumber int, sha string, runID int64) error
	// QueueExists is nil if the queue exists, else queue.ErrNotFound; it
	// asks nothing of GitHub.
	QueueExists(ctx context.Context, key queue.QueueKey) error
}

// Reads is what the REST API shows (*readside.Reads): the operations that
// change nothing.
type Reads interface {
	// GetQueue returns a queue and its active admitted entries in queue
	// order; queue.ErrNotFound if the queue is unknown. The API does not
	// modify them.
	GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error)
	// ListQueues returns every queue.
	ListQueues(ctx context.Context) ([]*queue.Queue, error)
	// GetSubmitted returns a PR's entry, active or ended; queue.ErrNotFound
	// if the queue is unknown or the PR was never submitted to it. The API
	// does not modify it.
	GetSubmitted(ctx context.Context, key queue.QueueKey, prNumber int) (*queue.SubmittedPR, error)
	// ListPullRequests lists a queue's entries newest first;
	// queue.ErrNotFound if the queue is unknown.
	ListPullRequests(ctx context.Context, key queue.QueueKey, query queue.EntryQuery) ([]*queue.SubmittedPR, error)
	// TestingDetails returns a run of a queue; queue.ErrNotFound if the
	// queue or the run (in that queue) is unknown.
	TestingDetails(ctx context.Context, key queue.QueueKey, runID string) (*readside.TestingDetails, error)
	// QueueMetrics computes a queue's metrics over the last window.
	QueueMetrics(ctx context.Context, q *queue.Queue, window time.Duration) (*readside.QueueMetrics, error)
}

// QueueSnapshots is what Reads may also offer for getQueue: the queue and
// its admitted active entries in queue order as one immutable snapshot,
// the same one while nothing changed (so its encoded answer is kept with
// it), no older than any write that returned before the call;
// queue.ErrNotFound if the queue is unknown.
type QueueSnapshots interface {
	QueueSnapshot(ctx context.Context, key queue.QueueKey) (*readside.QueueSnapshot, error)
}

var (
	_ Reads          = (*readside.Reads)(nil)
	_ QueueSnapshots = (*readside.Reads)(nil)
)
