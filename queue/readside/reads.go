package readside

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Options configure Reads.
type Options struct {
	// Now is the clock (default time.Now) at which positions, expected
	// merge times and metrics windows are computed; times are in UTC.
	Now func() time.Time
	// WriteBudget, when set (the GitHub port's queue.WriteBudget), lets
	// the waits say when an entry's next step, a GitHub write, waits for
	// the installation's write budget (WithWriteBudget).
	WriteBudget queue.WriteBudget
}

// Reads answers what is shown of the queues: getQueue, getSubmittedPullRequest,
// listPullRequests, getMergeQueueTestingDetails and getMergeQueueMetrics,
// the replies to /mq status and the dashboard. It only reads the store.
// Over a store that counts its writes (QueueVersions) it keeps a read model
// per queue (see views): GetQueue, QueueSnapshot and GetSubmitted never show
// a state older than a write through the same store value (the service's,
// in this process) that returned before the call. It is safe for
// concurrent use.
type Reads struct {
	store  Store
	now    func() time.Time
	budget queue.WriteBudget // nil: none
	views  *views            // nil when the store has no QueueVersions
}

// New returns the read side over store.
func New(store Store, opts Options) *Reads {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Reads{store: store, now: func() time.Time { return opts.Now().UTC() }, views: newViews(store), budget: opts.WriteBudget}
}

// GetQueue returns a queue and its admitted active entries in queue order,
// as of a state no older than any write that returned before the call
// (served from the read model while nothing was written to the queue; see
// views); queue.ErrNotFound (wrapped) if the queue is unknown. The queue
// and entries are shared: callers must not modify them.
func (r *Reads) GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, []*queue.Entry, error) {
	v, err := r.view(ctx, key)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	return v.q, v.ordered, nil
}

// QueueSnapshot is GetQueue as one shared, immutable snapshot: the same
// snapshot for every call while nothing is written to the queue, and a
// new one, no older than any write that returned before the call, after.
func (r *Reads) QueueSnapshot(ctx context.Context, key queue.QueueKey) (*QueueSnapshot, error) {
	v, err := r.view(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	return v.snap, nil
}

// GetSubmitted returns a PR's entry in a queue, active or ended
// (queue.ErrNotFound if the queue is unknown or the PR was never submitted
// to it), as of a state no older than any write that returned before the
// call (see views; the position and ETA are computed at the call). Its
// Entry is shared: callers must not modify it.
func (r *Reads) GetSubmitted(ctx context.Context, key queue.QueueKey, prNumber int) (*queue.SubmittedPR, error) {
	v, err := r.view(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	base, err := r.submitted(ctx, v, prNumber)
	if err != nil {
		return nil, err
	}
	if base == nil {
		return nil, fmt.Errorf("failed to load #%d in %s: entry for PR #%d in queue %d: %w", prNumber, key, prNumber, v.q.ID, queue.ErrNotFound)
	}
	sub := *base
	est := v.estimates(r.now())[sub.Entry.ID]
	sub.QueuePosition, sub.EstimatedMergeAt, sub.TestingTimesOutAt = est.Position, est.MergeAt, est.TimesOutAt
	if sub.Entry.Active() {
		checks := map[string][]queue.CheckResult{}
		for _, run := range v.runs {
			if run.ID == sub.Entry.RunID && run.Status == queue.RunInProgress && run.SHA != "" {
				if checks[run.SHA], err = r.store.ListChecks(ctx, v.q.Key.Repo, run.SHA); err != nil {
					return nil, fmt.Errorf("failed to list the checks of run %s: %w", run.ID, err)
				}
				checks[run.SHA] = queue.ChecksOfAttempt(run, checks[run.SHA])
			}
		}
		sub.WaitingFor = WithWriteBudget(WaitingFor(v.eff, sub.Entry, v.entries, v.runs, checks, r.now()), r.budget, v.q.Key.Repo, r.now())
	}
	return &sub, nil
}

// QueueByID returns a queue by its ID (queue.ErrNotFound if absent).
func (r *Reads) QueueByID(ctx context.Context, id int64) (*queue.Queue, error) {
	return r.store.GetQueueByID(ctx, id)
}

// ListQueues returns every queue, ordered by ID.
func (r *Reads) ListQueues(ctx context.Context) ([]*queue.Queue, error) {
	return r.store.ListQueues(ctx)
}

// ActiveEntries returns a PR's active entries in every queue of the
// repository.
func (r *Reads) ActiveEntries(ctx context.Context, repo queue.Repo, prNumber int) ([]*queue.Entry, error) {
	return r.store.FindActiveEntries(ctx, repo, prNumber)
}

// Estimates returns where each admitted entry of a queue stands: its
// 1-based position and, once the queue has finished a run, when it is
// expected to merge (LoadEstimates, read from the store now; docs/eta.md).
func (r *Reads) Estimates(ctx context.Context, q *queue.Queue) (map[string]Estimate, error) {
	return LoadEstimates(ctx, r.store, q, r.now())
}

// Waiting says what each active entry of q waits for now (WaitingFor), by
// entry ID.
func (r *Reads) Waiting(ctx context.Context, q *queue.Queue) (map[string]*queue.Waiting, error) {
	return LoadWaiting(ctx, r.store, q, r.now(), r.budget)
}
