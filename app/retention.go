package app

import (
	"context"
	"time"
)

// Retention: how long what the queue no longer needs is kept.
const (
	// DeliveryRetention keeps processed webhook deliveries (and so their
	// deduplication) this long; GitHub redelivers within hours.
	DeliveryRetention = 7 * 24 * time.Hour
	// EventRetention keeps the event log this long, well beyond what the
	// metrics (queue.MetricsLookback) and the dashboard read; events not
	// yet sent to every notification target are kept regardless.
	EventRetention = 90 * 24 * time.Hour
	// retentionEvery is how often the store is pruned.
	retentionEvery = time.Hour
)

// retain prunes the store at start and then every retentionEvery until ctx
// ends.
func (a *App) retain(ctx context.Context) {
	tick := time.NewTicker(retentionEvery)
	defer tick.Stop()
	for {
		a.pruneOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// pruneOnce deletes ended dashboard sessions, old processed deliveries,
// old delivered notices and old events every notification target has
// received.
func (a *App) pruneOnce(ctx context.Context) {
	a.pruneSessions(ctx)
	upTo := int64(-1)
	for _, t := range a.notifier.Targets() {
		c, err := a.store.NotificationCursor(ctx, t)
		if err != nil {
			a.log.Warn().Err(err).Msg("retention: failed to read a notification cursor; events kept")
			return
		}
		if upTo < 0 || c.LastEventID < upTo {
			upTo = c.LastEventID
		}
	}
	now := a.now()
	p, err := a.store.Prune(ctx, now.Add(-DeliveryRetention), now.Add(-EventRetention), upTo)
	if err != nil {
		if ctx.Err() == nil {
			a.log.Warn().Err(err).Msg("retention: failed to prune the store")
		}
		return
	}
	if p.Deliveries > 0 || p.Events > 0 || p.Notices > 0 {
		a.log.Info().Int64("deliveries", p.Deliveries).Int64("events", p.Events).Int64("notices", p.Notices).
			Msg("retention: pruned the store")
	}
}
