package readside

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// Tunings is the store's port for autoTune's tuning in force, which a
// store may offer (queue/sqlstore and queue/memstore do); without it no
// queue shows one.
type Tunings interface {
	// QueueTuning returns the queue's tuning in force (queue.ErrNotFound:
	// none).
	QueueTuning(ctx context.Context, queueID int64) (*queue.QueueTuning, error)
}

// QueueTuning returns the tuning autoTune put in force for q: nil while
// autoTune is off or before its first change.
func (r *Reads) QueueTuning(ctx context.Context, q *queue.Queue) (*queue.QueueTuning, error) {
	return tuningOf(ctx, r.store, q)
}

// tuningOf reads q's tuning in force from store, if it keeps tunings.
func tuningOf(ctx context.Context, store any, q *queue.Queue) (*queue.QueueTuning, error) {
	tu, ok := store.(Tunings)
	if !ok || !q.Settings.AutoTune {
		return nil, nil
	}
	t, err := tu.QueueTuning(ctx, q.ID)
	if errors.Is(err, queue.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the tuning of %s: %w", q.Key, err)
	}
	return t, nil
}

// withEffective is q with the settings it runs on (EffectiveSettings),
// for what the read side derives from them (positions, expected times,
// what entries wait for); q itself when no tuning is in force.
func withEffective(q *queue.Queue, t *queue.QueueTuning) *queue.Queue {
	if t == nil || !q.Settings.AutoTune {
		return q
	}
	c := *q
	c.Settings = queue.EffectiveSettings(q.Settings, t)
	return &c
}

// effectiveOf is withEffective with q's tuning read from store.
func effectiveOf(ctx context.Context, store any, q *queue.Queue) (*queue.Queue, error) {
	t, err := tuningOf(ctx, store, q)
	if err != nil {
		return nil, err
	}
	return withEffective(q, t), nil
}
