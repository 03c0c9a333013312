package app

import (
	"context"
	"sync"

	"github.com/rs/zerolog"
)

// wakeStore is how the replicas sharing a database wake each other's
// queues (on SQLite, one process, it does nothing).
type wakeStore interface {
	// WakeQueue tells every replica listening that queueID has work.
	WakeQueue(ctx context.Context, queueID int64) error
	// ListenWakes calls wake with each queue woken by any replica (0 or
	// less: every queue) until ctx ends.
	ListenWakes(ctx context.Context, wake func(queueID int64)) error
}

// wakeBroadcast passes this process's queue wake-ups on to the other
// replicas, so that a webhook or API call that lands here wakes the
// queue's holder wherever it runs. add never blocks: the wake-ups are sent
// by run, those of one queue pending together merged into one.
type wakeBroadcast struct {
	mu      sync.Mutex
	pending map[int64]struct{}
	signal  chan struct{}
}

func newWakeBroadcast() *wakeBroadcast {
	return &wakeBroadcast{pending: map[int64]struct{}{}, signal: make(chan struct{}, 1)}
}

// add asks for queueID's wake-up to be sent.
func (b *wakeBroadcast) add(queueID int64) {
	b.mu.Lock()
	b.pending[queueID] = struct{}{}
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// run sends the pending wake-ups through store until ctx ends; a failure
// is logged (the holder still syncs at its interval).
func (b *wakeBroadcast) run(ctx context.Context, store wakeStore) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.signal:
		}
		b.mu.Lock()
		ids := b.pending
		b.pending = map[int64]struct{}{}
		b.mu.Unlock()
		for id := range ids {
			if err := store.WakeQueue(ctx, id); err != nil && ctx.Err() == nil {
				zerolog.Ctx(ctx).Warn().Err(err).Int64("queue_id", id).Msg("failed to wake the queue on the other replicas")
			}
		}
	}
}

// wakeQueue wakes the queue's worker here and on every other replica.
func (a *App) wakeQueue(queueID int64) {
	a.workers.Wake(queueID)
	a.wakes.add(queueID)
}

// listenWakes wakes here the queues other replicas wake, until ctx ends;
// a wake-up of every queue (after the listener (re)connected: what was
// sent meanwhile is lost) wakes those with work.
func (a *App) listenWakes(ctx context.Context) {
	err := a.store.ListenWakes(ctx, func(queueID int64) {
		a.svc.Reconciler().Wake() // its surfaces may be due (if this replica runs it)
		if queueID > 0 {
			a.workers.Wake(queueID)
			return
		}
		a.wakeActiveQueues(ctx) // an idle queue woken meanwhile was given work
	})
	if err != nil && ctx.Err() == nil {
		zerolog.Ctx(ctx).Error().Err(err).Msg("stopped listening for queue wake-ups from other replicas")
	}
}

// wakeActiveQueues wakes here every queue with work (an active entry or
// an open run): those this replica decides for start, those another
// replica decides for cost nothing (Workers.SpreadOver).
func (a *App) wakeActiveQueues(ctx context.Context) {
	queues, err := a.store.ListActiveQueues(ctx)
	if err != nil {
		if ctx.Err() == nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("failed to list the queues with work to wake")
		}
		return
	}
	for _, q := range queues {
		a.workers.Wake(q.ID)
	}
}
