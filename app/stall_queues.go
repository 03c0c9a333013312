package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// activeQueueStore is what activeStallReads lists the queues with
// (queue.Store).
type activeQueueStore interface {
	ListQueues(ctx context.Context) ([]*queue.Queue, error)
	ListActiveQueues(ctx context.Context) ([]*queue.Queue, error)
	GetQueueByID(ctx context.Context, id int64) (*queue.Queue, error)
}

// activeStallReads are the stall watch's reads (stallReads) over the
// queues with work, so that each pass costs what the active queues cost,
// not what every queue does: an idle queue has nothing admitted and
// cannot stall. Its ListQueues returns every queue the first time (a
// stall alert an earlier process left raised on a queue idle since is
// cleared), then the queues with work, and, once, each queue that had
// work at the previous pass and has none now (its stall, if any, ends).
// It is not safe for concurrent use: the stall watch's loop calls it.
type activeStallReads struct {
	store activeQueueStore
	reads *readside.Reads
	// prev are the queues with work at the previous call; nil before the
	// first.
	prev map[int64]bool
}

// ListQueues returns the queues the stall watch looks at this pass,
// ordered by ID.
func (r *activeStallReads) ListQueues(ctx context.Context) ([]*queue.Queue, error) {
	active, err := r.store.ListActiveQueues(ctx)
	if err != nil {
		return nil, err
	}
	now := make(map[int64]bool, len(active))
	for _, q := range active {
		now[q.ID] = true
	}
	if r.prev == nil {
		all, err := r.store.ListQueues(ctx)
		if err != nil {
			return nil, err
		}
		r.prev = now
		return all, nil
	}
	out := active
	for _, id := range slices.Sorted(maps.Keys(r.prev)) {
		if now[id] {
			continue
		}
		q, err := r.store.GetQueueByID(ctx, id)
		if errors.Is(err, queue.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("failed to read queue %d, idle since the last pass: %w", id, err)
		}
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b *queue.Queue) int { return cmp.Compare(a.ID, b.ID) })
	r.prev = now
	return out, nil
}

// Stalled tells whether q is stalled (readside.Reads.Stalled).
func (r *activeStallReads) Stalled(ctx context.Context, q *queue.Queue) (*readside.Stall, error) {
	return r.reads.Stalled(ctx, q)
}
