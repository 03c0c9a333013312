package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/mergequeue/mq/queue"
)

// CreateQueue stores q and sets q.ID; queue.ErrExists if its key is taken.
func (o *ops) CreateQueue(ctx context.Context, q *queue.Queue) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to create queue %s: %w", q.Key, err)
	}
	defer unlock()
	d := o.d
	if _, ok := d.queueIDs[q.Key.Fold()]; ok {
		return fmt.Errorf("failed to create queue %s: %w", q.Key, queue.ErrExists)
	}
	c, err := storedQueue(q)
	if err != nil {
		return fmt.Errorf("failed to create queue %s: %w", q.Key, err)
	}
	prevID := d.nextQueueID
	d.nextQueueID++
	c.ID = d.nextQueueID
	d.queues[c.ID] = c
	d.queueIDs[c.Key.Fold()] = c.ID
	o.tx.add(func() {
		delete(d.queues, c.ID)
		delete(d.queueIDs, c.Key.Fold())
		d.nextQueueID = prevID
	})
	d.versions.Changed(0)
	q.ID = c.ID
	return nil
}

// GetQueue finds a queue by key; queue.ErrNotFound if absent.
func (o *ops) GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to get queue %s: %w", key, err)
	}
	defer unlock()
	id, ok := o.d.queueIDs[key.Fold()]
	if !ok {
		return nil, fmt.Errorf("queue %s: %w", key, queue.ErrNotFound)
	}
	return copyQueue(o.d.queues[id]), nil
}

// GetQueueByID finds a queue by ID; queue.ErrNotFound if absent.
func (o *ops) GetQueueByID(ctx context.Context, id int64) (*queue.Queue, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to get queue %d: %w", id, err)
	}
	defer unlock()
	q, ok := o.d.queues[id]
	if !ok {
		return nil, fmt.Errorf("queue %d: %w", id, queue.ErrNotFound)
	}
	return copyQueue(q), nil
}

// ListQueues returns every queue, ordered by ID.
func (o *ops) ListQueues(ctx context.Context) ([]*queue.Queue, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list queues: %w", err)
	}
	defer unlock()
	var out []*queue.Queue
	for _, id := range slices.Sorted(maps.Keys(o.d.queues)) {
		out = append(out, copyQueue(o.d.queues[id]))
	}
	return out, nil
}

// ListActiveQueues returns the queues with an active entry or an open
// run, ordered by ID.
func (o *ops) ListActiveQueues(ctx context.Context) ([]*queue.Queue, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list the active queues: %w", err)
	}
	defer unlock()
	var out []*queue.Queue
	for _, id := range slices.Sorted(maps.Keys(o.d.queues)) {
		if len(o.d.activeEntries[id]) > 0 || len(o.d.openRuns[id]) > 0 {
			out = append(out, copyQueue(o.d.queues[id]))
		}
	}
	return out, nil
}

// UpdateQueue saves q's state, settings, NextSeq, PausedReason, PendingMode,
// ResumeState and UpdatedAt (not its key or CreatedAt); queue.ErrNotFound if
// q.ID is unknown.
func (o *ops) UpdateQueue(ctx context.Context, q *queue.Queue) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to update queue %s: %w", q.Key, err)
	}
	defer unlock()
	d := o.d
	old, ok := d.queues[q.ID]
	if !ok {
		return fmt.Errorf("failed to update queue %d (%s): %w", q.ID, q.Key, queue.ErrNotFound)
	}
	c, err := storedQueue(q)
	if err != nil {
		return fmt.Errorf("failed to update queue %s: %w", q.Key, err)
	}
	c.Key, c.CreatedAt = old.Key, old.CreatedAt
	d.queues[q.ID] = c
	o.tx.add(func() { d.queues[q.ID] = old })
	d.versions.Changed(q.ID)
	return nil
}

// DeleteQueue removes a queue with its entries, runs, merges, targets and
// events. Deleting an absent queue is not an error.
func (o *ops) DeleteQueue(ctx context.Context, id int64) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to delete queue %d: %w", id, err)
	}
	defer unlock()
	d := o.d
	q, ok := d.queues[id]
	if !ok {
		return nil
	}
	var entries []*queue.Entry
	for eid := range d.queueEntries[id] {
		entries = append(entries, d.removeEntry(eid))
	}
	var runs []*queue.TestRun
	for rid := range d.queueRuns[id] {
		runs = append(runs, d.removeRun(rid))
	}
	targets := map[prKey]queue.Targets{}
	for k, t := range d.targets {
		if k.queueID == id {
			targets[k] = t
			delete(d.targets, k)
		}
	}
	surfaces := map[string]queue.Surface{}
	for k, sf := range d.surfaces {
		if sf.QueueID == id {
			surfaces[k] = sf
			delete(d.surfaces, k)
		}
	}
	runSurfaces := map[string]queue.RunSurface{}
	for k, sf := range d.runSurfaces {
		if sf.QueueID == id {
			runSurfaces[k] = sf
			delete(d.runSurfaces, k)
		}
	}
	refs := map[refKey]queue.Ref{}
	for k, r := range d.refs {
		if r.QueueID == id {
			refs[k] = r
			delete(d.refs, k)
		}
	}
	events, merges, mergeAt := d.events[id], d.merges[id], d.mergeAt[id]
	delete(d.events, id)
	delete(d.merges, id)
	delete(d.mergeAt, id)
	tuning, tuned := d.tunings[id]
	delete(d.tunings, id)
	delete(d.queues, id)
	delete(d.queueIDs, q.Key.Fold())
	d.versions.Changed(0)
	o.tx.add(func() {
		d.queues[id] = q
		d.queueIDs[q.Key.Fold()] = id
		for _, e := range entries {
			d.insertEntry(e)
		}
		for _, r := range runs {
			d.insertRun(r)
		}
		maps.Copy(d.targets, targets)
		maps.Copy(d.surfaces, surfaces)
		if tuned {
			d.tunings[id] = tuning
		}
		maps.Copy(d.runSurfaces, runSurfaces)
		maps.Copy(d.refs, refs)
		if events != nil {
			d.events[id] = events
		}
		if merges != nil {
			d.merges[id] = merges
		}
		if mergeAt != nil {
			d.mergeAt[id] = mergeAt
		}
	})
	return nil
}

// queueExists is the foreign-key check of writes that name a queue.
func (d *db) queueExists(id int64) error {
	if _, ok := d.queues[id]; !ok {
		return fmt.Errorf("queue %d does not exist (foreign key)", id)
	}
	return nil
}
