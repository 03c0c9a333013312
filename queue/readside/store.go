package readside

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Store is what the read side reads: methods of queue.Store, which
// queue/sqlite and queue/memstore implement. It never writes.
type Store interface {
	EstimateStore

	GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error)
	GetQueueByID(ctx context.Context, id int64) (*queue.Queue, error)
	ListQueues(ctx context.Context) ([]*queue.Queue, error)

	GetEntry(ctx context.Context, queueID int64, prNumber int) (*queue.Entry, error)
	GetEntryByID(ctx context.Context, id string) (*queue.Entry, error)
	FindActiveEntries(ctx context.Context, repo queue.Repo, prNumber int) ([]*queue.Entry, error)
	ListEntries(ctx context.Context, q queue.EntryQuery) ([]*queue.Entry, error)

	GetRun(ctx context.Context, id string) (*queue.TestRun, error)
	GetRunSurface(ctx context.Context, runID string) (*queue.RunSurface, error)
	ListChecks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error)
	GetTargets(ctx context.Context, queueID int64, prNumber int) (*queue.Targets, error)

	ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error)
	LastEvent(ctx context.Context, queueID int64, entryID string) (*queue.Event, error)
}

var _ Store = (queue.Store)(nil)

// QueueVersions is implemented by a store that counts its committed writes
// per queue (queue/sqlite and queue/memstore do). QueueVersion must grow
// with every write that may change what a queue's reads return — its row,
// entries, runs, impacted targets or events, or the creation or deletion
// of any queue — before that write returns to its caller, and must never
// block. With it Reads answers GetQueue, QueueSnapshot and GetSubmitted
// from a view of the queue kept in memory for as long as the queue's
// version stays the same; without it, it reads the store every time.
type QueueVersions interface {
	QueueVersion(queueID int64) uint64
}
