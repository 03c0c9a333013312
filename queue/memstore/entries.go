package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
)

// SaveEntry inserts or replaces an entry by ID, compare-and-set on
// e.Version (queue.ErrConflict when the stored entry is at another
// version, or exists while e.Version is 0); on success e.Version is the
// new version. Saving an entry with another ID for the same (QueueID,
// PRNumber) fails with queue.ErrExists; an entry of an unknown queue or
// with an empty ID is refused.
func (o *ops) SaveEntry(ctx context.Context, e *queue.Entry) error {
	if e.ID == "" {
		return fmt.Errorf("failed to save entry for PR #%d: empty ID", e.PRNumber)
	}
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to save entry %s: %w", e.ID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(e.QueueID); err != nil {
		return fmt.Errorf("failed to save entry %s (PR #%d): %w", e.ID, e.PRNumber, err)
	}
	if id, ok := d.entryIDs[prKey{e.QueueID, e.PRNumber}]; ok && id != e.ID {
		return fmt.Errorf("failed to save entry %s (queue %d, PR #%d): entry %s has that PR: %w",
			e.ID, e.QueueID, e.PRNumber, id, queue.ErrExists)
	}
	if cur, ok := d.entries[e.ID]; (ok && cur.Version != e.Version) || (!ok && e.Version != 0) {
		return fmt.Errorf("failed to save entry %s (queue %d, PR #%d) read at version %d: %w", e.ID, e.QueueID, e.PRNumber, e.Version, queue.ErrConflict)
	}
	c, err := storedEntry(e)
	if err != nil {
		return fmt.Errorf("failed to save entry %s: %w", e.ID, err)
	}
	c.Version++
	e.Version = c.Version
	old := d.removeEntry(e.ID)
	d.insertEntry(c)
	o.tx.add(func() {
		d.removeEntry(c.ID)
		if old != nil {
			d.insertEntry(old)
		}
	})
	d.versions.Changed(e.QueueID)
	return nil
}

// GetEntry returns the entry of a PR in a queue, active or not;
// queue.ErrNotFound if the PR was never submitted to it.
func (o *ops) GetEntry(ctx context.Context, queueID int64, prNumber int) (*queue.Entry, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to get entry for PR #%d in queue %d: %w", prNumber, queueID, err)
	}
	defer unlock()
	id, ok := o.d.entryIDs[prKey{queueID, prNumber}]
	if !ok {
		return nil, fmt.Errorf("entry for PR #%d in queue %d: %w", prNumber, queueID, queue.ErrNotFound)
	}
	return copyEntry(o.d.entries[id]), nil
}

// GetEntryByID returns an entry by ID; queue.ErrNotFound if absent.
func (o *ops) GetEntryByID(ctx context.Context, id string) (*queue.Entry, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to get entry %s: %w", id, err)
	}
	defer unlock()
	e, ok := o.d.entries[id]
	if !ok {
		return nil, fmt.Errorf("entry %s: %w", id, queue.ErrNotFound)
	}
	return copyEntry(e), nil
}

// ListActiveEntries returns the queue's non-terminal entries ordered by
// (PriorityValue, Seq, SubmittedAt, PRNumber).
func (o *ops) ListActiveEntries(ctx context.Context, queueID int64) ([]*queue.Entry, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list active entries of queue %d: %w", queueID, err)
	}
	defer unlock()
	set := o.d.activeEntries[queueID]
	if len(set) == 0 {
		return nil, nil
	}
	out := make([]*queue.Entry, 0, len(set))
	for _, e := range set {
		out = append(out, e)
	}
	slices.SortFunc(out, activeOrder)
	return copyEntries(out), nil
}

// activeOrder orders entries by (PriorityValue, Seq, SubmittedAt,
// PRNumber, ID); (queue, PR) is unique, so ID keeps the order total. Each
// key is compared only when the ones before it tie.
func activeOrder(a, b *queue.Entry) int {
	if c := cmp.Compare(a.PriorityValue, b.PriorityValue); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	if c := nullTimeCompare(a.SubmittedAt, b.SubmittedAt); c != 0 {
		return c
	}
	if c := cmp.Compare(a.PRNumber, b.PRNumber); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// CountActiveEntries returns the number of the queue's non-terminal
// entries.
func (o *ops) CountActiveEntries(ctx context.Context, queueID int64) (int, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("failed to count active entries of queue %d: %w", queueID, err)
	}
	defer unlock()
	return len(o.d.activeEntries[queueID]), nil
}

// FindActiveEntries returns the active entries of a PR in every queue of
// the repository, ordered by queue ID.
func (o *ops) FindActiveEntries(ctx context.Context, repo queue.Repo, prNumber int) ([]*queue.Entry, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to find active entries of %s#%d: %w", repo, prNumber, err)
	}
	defer unlock()
	var out []*queue.Entry
	for qid, q := range o.d.queues {
		if q.Key.Repo.Fold() != repo.Fold() {
			continue
		}
		id, ok := o.d.entryIDs[prKey{qid, prNumber}]
		if !ok {
			continue
		}
		if e := o.d.entries[id]; e.Active() {
			out = append(out, copyEntry(e))
		}
	}
	slices.SortFunc(out, func(a, b *queue.Entry) int { return cmp.Compare(a.QueueID, b.QueueID) })
	return out, nil
}

// nullTimeCompare orders times as SQL orders nullable timestamps ascending:
// the zero time (NULL) first.
func nullTimeCompare(a, b time.Time) int {
	switch {
	case a.IsZero() && b.IsZero():
		return 0
	case a.IsZero():
		return -1
	case b.IsZero():
		return 1
	}
	return a.Compare(b)
}
