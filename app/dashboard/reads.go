package dashboard

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// QueueReads are the reads the dashboard's pages make of the queues: the
// queues, their entries, runs, checks and decisions, and where each
// admitted entry stands. It is the queue's read side as the dashboard
// needs it (*readside.Reads); the dashboard never writes through it. Errors wrap
// queue.ErrNotFound where a method says so.
type QueueReads interface {
	// ListQueues returns every queue, in ID order.
	ListQueues(ctx context.Context) ([]*queue.Queue, error)
	// Queue returns the queue of key (queue.ErrNotFound).
	Queue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error)
	// ListActiveEntries returns the queue's entries that have not ended.
	ListActiveEntries(ctx context.Context, queueID int64) ([]*queue.Entry, error)
	// Estimates returns where each admitted active entry of q stands, by
	// entry ID: its 1-based position in queue order (the order the queue
	// tests and merges in) and its expected times.
	Estimates(ctx context.Context, q *queue.Queue) (map[string]Estimate, error)
	// Waiting says, by entry ID, what each active entry of q waits for
	// now.
	Waiting(ctx context.Context, q *queue.Queue) (map[string]*queue.Waiting, error)
	// Stalled says why q is stalled: nothing happened in it for its
	// stallAlertMinutes while PRs wait (nil when it is not).
	Stalled(ctx context.Context, q *queue.Queue) (*readside.Stall, error)
	// FlakyChecks returns how each required check's failures of the last
	// week turned out, most failures first.
	FlakyChecks(ctx context.Context, q *queue.Queue) ([]FlakyCheck, error)
	// GetEntry returns the queue's entry of PR number, ended or not
	// (queue.ErrNotFound).
	GetEntry(ctx context.Context, queueID int64, number int) (*queue.Entry, error)
	// ListEntries returns the entries the query selects, newest activity
	// first.
	ListEntries(ctx context.Context, q queue.EntryQuery) ([]*queue.Entry, error)
	// ListOpenRuns returns the queue's runs that are not closed, oldest
	// first.
	ListOpenRuns(ctx context.Context, queueID int64) ([]*queue.TestRun, error)
	// RecentRuns returns up to limit of the queue's latest successful
	// runs.
	RecentRuns(ctx context.Context, queueID int64, limit int) ([]*queue.TestRun, error)
	// GetRunSurface returns what GitHub shows of a run, its test PR
	// (queue.ErrNotFound when it has none).
	GetRunSurface(ctx context.Context, runID string) (*queue.RunSurface, error)
	// ListChecks returns the check results recorded on a commit of repo.
	ListChecks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error)
	// ListEvents returns the queue's decisions at or after since, oldest
	// first.
	ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error)
}

// FlakyCheck is how a required check's failures of the last week turned
// out: Flaky() of its Failures passed on retry or were vouched for
// (Percent()).
type FlakyCheck = readside.FlakyCheck

// Estimate is where an admitted entry stands, as the queue predicts it
// (docs/eta.md): its 1-based Position among Of admitted entries in queue
// order, when it is expected to merge (MergeAt, zero: unknown) and when
// its run in progress is expected to finish and times out (RunEndsAt and
// TimesOutAt, zero when it is not testing).
type Estimate = readside.Estimate
