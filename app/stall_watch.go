package app

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// stallMetrics are the stall alert's metrics: whether each queue is
// stalled now, and how many stalls began.
type stallMetrics struct {
	stalled *prometheus.GaugeVec
	stalls  *prometheus.CounterVec
}

func newStallMetrics() *stallMetrics {
	return &stallMetrics{
		stalled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mq_queue_stalled",
			Help: "1 while a queue with admitted PRs has seen nothing happen for its stallAlertMinutes, else 0.",
		}, []string{"repo", "branch"}),
		stalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_queue_stalls_total",
			Help: "Stalls that began: a queue with admitted PRs in which nothing happened for its stallAlertMinutes.",
		}, []string{"repo", "branch"}),
	}
}

func (m *stallMetrics) register(r *prometheus.Registry) { r.MustRegister(m.stalled, m.stalls) }

// stallReads is what the stall watch reads: the queues and whether each
// is stalled (readside.Reads).
type stallReads interface {
	ListQueues(ctx context.Context) ([]*queue.Queue, error)
	Stalled(ctx context.Context, q *queue.Queue) (*readside.Stall, error)
}

// alertLog is where queue alerts are raised and cleared: the queue's event
// log, which the notifications tail (queue.Store).
type alertLog interface {
	ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error)
	AddEvent(ctx context.Context, ev *queue.Event) error
}

// alertLookback is how far back the stall watch looks, once per queue and
// process, for a stall alert raised and not cleared (by an earlier
// process): it is cleared, not raised again.
const alertLookback = 30 * 24 * time.Hour

// stallAlerts tracks which queues have their stall alert raised in the
// event log, so that each alert is raised once and cleared once.
type stallAlerts struct {
	log  alertLog
	now  func() time.Time
	open map[int64]bool // queue → raised and not cleared; absent: not read yet
}

// set raises (stalled) or clears queue q's stall alert unless it already
// is so. Under a role's hold (ctx), it records nothing unless the hold
// lasts minWriteWindow more (queue.ErrLeaseLost), and the write ends by
// the time the hold may pass on.
func (a *stallAlerts) set(ctx context.Context, q *queue.Queue, stalled bool, detail string) error {
	open, known := a.open[q.ID]
	if !known {
		events, err := a.log.ListEvents(ctx, q.ID, a.now().Add(-alertLookback))
		if err != nil {
			return fmt.Errorf("failed to read the alerts of %s: %w", q.Key, err)
		}
		for _, ev := range events {
			if kind, raised, ok := ev.Alert(); ok && kind == queue.AlertStalled {
				open = raised
			}
		}
	}
	if open != stalled {
		// Under a role (runStallWatch), only while it holds: a replica
		// frozen past it writes nothing once another may hold it.
		until, held, err := writeWindow(ctx, a.now)
		if err != nil {
			return fmt.Errorf("failed to record the stall alert of %s: %w", q.Key, err)
		}
		if held {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, until)
			defer cancel()
		}
		ev := queue.QueueAlertEvent(q.ID, queue.AlertStalled, stalled, detail, a.now())
		if err := a.log.AddEvent(ctx, &ev); err != nil {
			return fmt.Errorf("failed to record the stall alert of %s: %w", q.Key, err)
		}
	}
	a.open[q.ID] = stalled
	return nil
}

// watchStalls looks at every queue each interval until ctx ends: a stall
// that begins is logged as an error (with what the PRs wait for) and
// counted, and mq_queue_stalled follows each queue. The stall raises a
// queue alert in alerts (notified), once, and clears it once the queue
// moves, is paused or has nothing waiting.
func watchStalls(ctx context.Context, reads stallReads, alerts alertLog, now func() time.Time, m *stallMetrics, interval time.Duration) {
	log := zerolog.Ctx(ctx)
	stalled := map[int64]time.Time{} // queue → the last activity of its stall
	raised := &stallAlerts{log: alerts, now: now, open: map[int64]bool{}}
	setAlert := func(q *queue.Queue, on bool, detail string) {
		if err := raised.set(ctx, q, on, detail); err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Str("queue", q.Key.String()).Msg("failed to notify the stall alert")
		}
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		seen := map[int64]bool{}
		queues, err := reads.ListQueues(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("failed to list queues for the stall watch")
		}
		for _, q := range queues {
			seen[q.ID] = true
			labels := []string{q.Key.Repo.FullName(), q.Key.Branch}
			s, err := reads.Stalled(ctx, q)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn().Err(err).Str("queue", q.Key.String()).Msg("failed to tell whether the queue is stalled")
				}
				continue
			}
			if s == nil {
				delete(stalled, q.ID)
				m.stalled.WithLabelValues(labels...).Set(0)
				setAlert(q, false, "the queue is no longer stalled")
				continue
			}
			m.stalled.WithLabelValues(labels...).Set(1)
			setAlert(q, true, s.Detail)
			if since, ok := stalled[q.ID]; ok && since.Equal(s.Since) {
				continue
			}
			stalled[q.ID] = s.Since
			m.stalls.WithLabelValues(labels...).Inc()
			log.Error().Str("queue", q.Key.String()).Time("last_activity", s.Since).Str("detail", s.Detail).
				Msg("queue stalled: nothing has happened while PRs wait")
		}
		for id := range stalled {
			if !seen[id] {
				delete(stalled, id)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// stallWatchRole names the stall watch's role: it raises and clears every
// queue's stall alert, each a queue_alert notification, so one replica at
// a time runs it.
const stallWatchRole = "stall-watch"

// runStallWatch runs the stall watch (watchStalls) while this replica
// holds stallWatchRole (roles: the database), until ctx ends: replicas
// sharing a database raise and clear each alert once. A replica taking the
// role over reads the raised alerts from the event log (stallAlerts), and
// one that gives it up stops reporting mq_queue_stalled (the holder does).
func (a *App) runStallWatch(ctx context.Context, roles roleClaimer, reads stallReads, alerts alertLog, m *stallMetrics, interval time.Duration) {
	a.runAsRole(ctx, roles, stallWatchRole, LeaseTTL, func(ctx context.Context) {
		defer m.stalled.Reset()
		watchStalls(ctx, reads, alerts, a.now, m, interval)
	})
}
