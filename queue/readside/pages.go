package readside

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// The reads below are what the dashboard's pages show besides what the
// REST API does (GetQueue, Estimates, ListQueues): a queue's entries,
// runs, checks and decisions as recorded. They only read the store;
// errors wrap queue.ErrNotFound where the store's do.

// Queue returns the queue of key (queue.ErrNotFound, wrapped, if unknown).
func (r *Reads) Queue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error) {
	return r.store.GetQueue(ctx, key)
}

// ListActiveEntries returns the queue's entries that have not ended,
// admitted or not, ordered as the store orders them (queue.InQueueOrder
// gives the order the queue tests and merges in).
func (r *Reads) ListActiveEntries(ctx context.Context, queueID int64) ([]*queue.Entry, error) {
	return r.store.ListActiveEntries(ctx, queueID)
}

// GetEntry returns the queue's entry of PR number, ended or not
// (queue.ErrNotFound).
func (r *Reads) GetEntry(ctx context.Context, queueID int64, number int) (*queue.Entry, error) {
	return r.store.GetEntry(ctx, queueID, number)
}

// ListEntries returns the entries the query selects, newest activity
// first (the dashboard's history; ListPullRequests is the API's listing).
func (r *Reads) ListEntries(ctx context.Context, query queue.EntryQuery) ([]*queue.Entry, error) {
	return r.store.ListEntries(ctx, query)
}

// ListOpenRuns returns the queue's runs that are not closed, oldest first.
func (r *Reads) ListOpenRuns(ctx context.Context, queueID int64) ([]*queue.TestRun, error) {
	return r.store.ListOpenRuns(ctx, queueID)
}

// RecentRuns returns up to limit of the queue's latest successful runs,
// the most recently finished first.
func (r *Reads) RecentRuns(ctx context.Context, queueID int64, limit int) ([]*queue.TestRun, error) {
	return r.store.RecentRuns(ctx, queueID, limit)
}

// GetRunSurface returns what GitHub shows of a run, its test PR
// (queue.ErrNotFound when it has none).
func (r *Reads) GetRunSurface(ctx context.Context, runID string) (*queue.RunSurface, error) {
	return r.store.GetRunSurface(ctx, runID)
}

// ListChecks returns the check results recorded on a commit of repo.
func (r *Reads) ListChecks(ctx context.Context, repo queue.Repo, sha string) ([]queue.CheckResult, error) {
	return r.store.ListChecks(ctx, repo, sha)
}

// ListEvents returns the queue's decisions at or after since, oldest
// first.
func (r *Reads) ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error) {
	return r.store.ListEvents(ctx, queueID, since)
}

// PRPagePath is the path of a PR's page on the dashboard, where the
// queue's comments and check runs link: the dashboard serves it, the
// surfaces link to it.
func PRPagePath(repo queue.Repo, number int) string {
	return fmt.Sprintf("/prs/%s/%s/%d", repo.Owner, repo.Name, number)
}
