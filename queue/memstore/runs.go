package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/mergequeue/mq/queue"
)

// SaveRun inserts or replaces a test run by ID; a run of an unknown queue or
// with an empty ID is refused.
func (o *ops) SaveRun(ctx context.Context, r *queue.TestRun) error {
	if r.ID == "" {
		return fmt.Errorf("failed to save run of queue %d: empty ID", r.QueueID)
	}
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to save run %s: %w", r.ID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(r.QueueID); err != nil {
		return fmt.Errorf("failed to save run %s: %w", r.ID, err)
	}
	c, err := storedRun(r)
	if err != nil {
		return fmt.Errorf("failed to save run %s: %w", r.ID, err)
	}
	old := d.removeRun(r.ID)
	d.insertRun(c)
	o.tx.add(func() {
		d.removeRun(c.ID)
		if old != nil {
			d.insertRun(old)
		}
	})
	d.versions.Changed(c.QueueID)
	return nil
}

// GetRun returns a run by ID; queue.ErrNotFound if absent.
func (o *ops) GetRun(ctx context.Context, id string) (*queue.TestRun, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to get run %s: %w", id, err)
	}
	defer unlock()
	r, ok := o.d.runs[id]
	if !ok {
		return nil, fmt.Errorf("run %s: %w", id, queue.ErrNotFound)
	}
	return copyRun(r), nil
}

// ListOpenRuns returns the queue's runs that are not Closed, ordered by
// (CreatedAt, ID).
func (o *ops) ListOpenRuns(ctx context.Context, queueID int64) ([]*queue.TestRun, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list open runs of queue %d: %w", queueID, err)
	}
	defer unlock()
	return sortedRuns(o.d.openRuns[queueID], nil), nil
}

// FindRunsBySHA returns the open runs, in any queue of repo, whose test
// commit is sha, ordered by (CreatedAt, ID). An empty sha matches nothing.
func (o *ops) FindRunsBySHA(ctx context.Context, repo queue.Repo, sha string) ([]*queue.TestRun, error) {
	if sha == "" {
		return nil, nil
	}
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to find runs of %s at %s: %w", repo, sha, err)
	}
	defer unlock()
	return sortedRuns(o.d.runsBySHA[sha], func(r *queue.TestRun) bool {
		q := o.d.queues[r.QueueID]
		return !r.Closed && q != nil && q.Key.Repo.Fold() == repo.Fold()
	}), nil
}

// sortedRuns copies the runs of set that keep accepts (all if nil), ordered
// by (CreatedAt, ID) with the zero time first, as SQL orders NULL.
func sortedRuns(set map[string]*queue.TestRun, keep func(*queue.TestRun) bool) []*queue.TestRun {
	return copyRuns(selectRuns(set, keep, func(a, b *queue.TestRun) int {
		if c := nullTimeCompare(a.CreatedAt, b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}))
}

// selectRuns returns the runs of set that keep accepts (all if nil),
// sorted by order, uncopied.
func selectRuns(set map[string]*queue.TestRun, keep func(*queue.TestRun) bool, order func(a, b *queue.TestRun) int) []*queue.TestRun {
	var out []*queue.TestRun
	for _, r := range set {
		if keep == nil || keep(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, order)
	return out
}

// RecentRuns returns the queue's succeeded runs, most recently finished
// first (then by ID), at most limit (0 = all). Only those returned are
// copied and, with a limit, only they are kept in order while the queue's
// runs are scanned (O(n log limit)): a queue's history grows without end,
// the limit does not.
func (o *ops) RecentRuns(ctx context.Context, queueID int64, limit int) ([]*queue.TestRun, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list recent runs of queue %d: %w", queueID, err)
	}
	defer unlock()
	succeeded := func(r *queue.TestRun) bool { return r.Status == queue.RunSucceeded }
	if limit <= 0 {
		return copyRuns(selectRuns(o.d.queueRuns[queueID], succeeded, recentFirst)), nil
	}
	top := make([]*queue.TestRun, 0, limit)
	for _, r := range o.d.queueRuns[queueID] {
		if !succeeded(r) || (len(top) == limit && recentFirst(r, top[limit-1]) >= 0) {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, r, recentFirst)
		if len(top) == limit {
			top = top[:limit-1]
		}
		top = slices.Insert(top, i, r)
	}
	return copyRuns(top), nil
}

// recentFirst orders runs most recently finished first, then by ID.
func recentFirst(a, b *queue.TestRun) int {
	if c := nullTimeCompare(a.FinishedAt, b.FinishedAt); c != 0 {
		return -c
	}
	return cmp.Compare(a.ID, b.ID)
}
