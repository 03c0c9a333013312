package app

import (
	"context"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app/notify"
)

// outboxMetrics follow the notification outbox. Targets are labelled by
// their index in the configuration's notifications list and their kind,
// never by URL (a chat webhook's URL is its credential).
type outboxMetrics struct {
	attempts *prometheus.CounterVec
	lag      *lagCollector
}

var _ notify.Observer = (*outboxMetrics)(nil)

func newOutboxMetrics() *outboxMetrics {
	labels := []string{"target", "kind"}
	return &outboxMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_notification_attempts_total",
			Help: "Delivery attempts of queue events to notification targets, by target index, kind and outcome (delivered, failed, skipped).",
		}, []string{"target", "kind", "outcome"}),
		lag: &lagCollector{
			backlog: prometheus.NewDesc("mq_notification_backlog_events",
				"Queue events not yet delivered to the target (its cursor's distance from the newest event).", labels, nil),
			failures: prometheus.NewDesc("mq_notification_consecutive_failures",
				"Failed attempts at the event the target is stuck on (0 when its last attempt succeeded).", labels, nil),
		},
	}
}

func (m *outboxMetrics) register(r *prometheus.Registry) {
	r.MustRegister(m.attempts, m.lag)
}

// NotificationAttempted records one delivery attempt.
func (m *outboxMetrics) NotificationAttempted(target int, kind notify.Kind, outcome string) {
	m.attempts.WithLabelValues(strconv.Itoa(target), string(kind), outcome).Inc()
}

// outboxStore is what the lag gauges read: the targets' cursors and the
// event log's length after them.
type outboxStore interface {
	Cursor(ctx context.Context, target string) (notify.Cursor, error)
	CountEventsAfter(ctx context.Context, afterID int64) (int, error)
}

// watch makes the lag gauges read the cursors of n's targets in store.
func (m *outboxMetrics) watch(store outboxStore, n *notify.Notifier, log zerolog.Logger) {
	m.lag.store, m.lag.targets, m.lag.log = store, n.TargetCursors(), log
}

// lagCollector reads each target's cursor at scrape time. A store failure
// is logged and leaves that target out of the scrape.
type lagCollector struct {
	backlog, failures *prometheus.Desc
	store             outboxStore
	targets           []notify.TargetCursor
	log               zerolog.Logger
}

func (c *lagCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.backlog
	ch <- c.failures
}

func (c *lagCollector) Collect(ch chan<- prometheus.Metric) {
	if c.store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	for _, t := range c.targets {
		cur, err := c.store.Cursor(ctx, t.Key)
		var behind int
		if err == nil {
			behind, err = c.store.CountEventsAfter(ctx, cur.LastEventID)
		}
		if err != nil {
			c.log.Warn().Err(err).Int("target", t.Index).Msg("metrics: failed to read a notification target's cursor")
			continue
		}
		labels := []string{strconv.Itoa(t.Index), string(t.Kind)}
		ch <- prometheus.MustNewConstMetric(c.backlog, prometheus.GaugeValue, float64(behind), labels...)
		ch <- prometheus.MustNewConstMetric(c.failures, prometheus.GaugeValue, float64(cur.Attempts), labels...)
	}
}
