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
	tu, ok := r.store.(Tunings)
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
