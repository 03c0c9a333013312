package memstore

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// QueueTuning returns the tuning autoTune put in force for a queue
// (queue.ErrNotFound when none is).
func (o *ops) QueueTuning(ctx context.Context, queueID int64) (*queue.QueueTuning, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the tuning of queue %d: %w", queueID, err)
	}
	defer unlock()
	t, ok := o.d.tunings[queueID]
	if !ok {
		return nil, fmt.Errorf("tuning of queue %d: %w", queueID, queue.ErrNotFound)
	}
	return &t, nil
}

// SaveQueueTuning stores t as the tuning in force for t.QueueID,
// replacing any other; the queue must exist.
func (o *ops) SaveQueueTuning(ctx context.Context, t queue.QueueTuning) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to store the tuning of queue %d: %w", t.QueueID, err)
	}
	defer unlock()
	d := o.d
	if _, ok := d.queues[t.QueueID]; !ok {
		return fmt.Errorf("failed to store the tuning of queue %d: %w", t.QueueID, queue.ErrNotFound)
	}
	t.At = t.At.UTC()
	o.setTuning(t.QueueID, &t)
	return nil
}

// DeleteQueueTuning removes the tuning of a queue. Deleting none is not
// an error.
func (o *ops) DeleteQueueTuning(ctx context.Context, queueID int64) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to delete the tuning of queue %d: %w", queueID, err)
	}
	defer unlock()
	o.setTuning(queueID, nil)
	return nil
}

// setTuning sets (t non-nil) or removes a queue's tuning, logging the undo.
func (o *ops) setTuning(queueID int64, t *queue.QueueTuning) {
	d := o.d
	prev, had := d.tunings[queueID]
	if t != nil {
		d.tunings[queueID] = *t
	} else {
		delete(d.tunings, queueID)
	}
	d.versions.Changed(queueID)
	o.tx.add(func() {
		if had {
			d.tunings[queueID] = prev
		} else {
			delete(d.tunings, queueID)
		}
	})
}
