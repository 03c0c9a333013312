package app

import (
	"context"
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

// watchStalls looks at every queue each interval until ctx ends: a stall
// that begins is logged as an error (with what the PRs wait for) and
// counted, and mq_queue_stalled follows each queue.
func watchStalls(ctx context.Context, reads stallReads, m *stallMetrics, interval time.Duration) {
	log := zerolog.Ctx(ctx)
	stalled := map[int64]time.Time{} // queue → the last activity of its stall
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
				continue
			}
			m.stalled.WithLabelValues(labels...).Set(1)
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
