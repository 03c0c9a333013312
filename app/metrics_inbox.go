package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/inbox"
)

// inboxMetrics follow the webhook inbox: its backlog, read from the store
// at each scrape, each processing attempt, and the receiver's body pool.
type inboxMetrics struct {
	poolRefused prometheus.Counter
	poolBytes   prometheus.GaugeFunc
	// poolHeld reads the bytes the receiver's body pool holds (set by
	// watchReceiver; nil reads 0).
	poolHeld  func() int64
	processed *prometheus.CounterVec
	handling  *prometheus.HistogramVec
	latency   prometheus.Histogram
	backlog   *backlogCollector
	// handled reports whether a handler takes an event (set by watch):
	// other events are labelled "other", so that the label stays bounded.
	handled func(event string) bool
}

var (
	_ inbox.Observer         = (*inboxMetrics)(nil)
	_ inbox.ReceiverObserver = (*inboxMetrics)(nil)
)

// inboxLatencyBuckets: from a second to a day (a delivery may wait out a
// GitHub outage).
var inboxLatencyBuckets = []float64{0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400}

func newInboxMetrics() *inboxMetrics {
	m := &inboxMetrics{
		poolRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mq_webhook_body_pool_refusals_total",
			Help: "Webhook deliveries answered 503 because the bodies in flight held the whole body pool.",
		}),
		processed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_webhook_deliveries_processed_total",
			Help: "Processing attempts of webhook deliveries, by event and outcome (done, retry, gave_up, unhandled).",
		}, []string{"event", "outcome"}),
		handling: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mq_webhook_handler_duration_seconds",
			Help:    "Time a webhook handler ran for one delivery, by event.",
			Buckets: latencyBuckets,
		}, []string{"event"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mq_webhook_processing_latency_seconds",
			Help:    "Time from a delivery's receipt to the end of its processing (done, given up or unhandled).",
			Buckets: inboxLatencyBuckets,
		}),
		backlog: &backlogCollector{
			pending: prometheus.NewDesc("mq_webhook_inbox_pending",
				"Webhook deliveries stored and not processed yet.", nil, nil),
			oldest: prometheus.NewDesc("mq_webhook_inbox_oldest_pending_age_seconds",
				"Age of the oldest webhook delivery not processed yet (0 when none is pending).", nil, nil),
		},
		handled: func(string) bool { return true },
	}
	m.poolBytes = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mq_webhook_body_pool_bytes",
		Help: "Bytes of the webhook body pool held by bodies being received.",
	}, func() float64 {
		if m.poolHeld == nil {
			return 0
		}
		return float64(m.poolHeld())
	})
	return m
}

func (m *inboxMetrics) register(r *prometheus.Registry) {
	r.MustRegister(m.poolRefused, m.poolBytes, m.processed, m.handling, m.latency, m.backlog)
}

// BodyPoolRefused counts a delivery refused because the body pool was
// spent.
func (m *inboxMetrics) BodyPoolRefused() { m.poolRefused.Inc() }

// watchReceiver makes the body pool gauge read r (before serving).
func (m *inboxMetrics) watchReceiver(r *inbox.Receiver) { m.poolHeld = r.BodyBytesHeld }

// watch makes the backlog gauges read store, aging deliveries on now, and
// labels events no handler takes as "other".
func (m *inboxMetrics) watch(store inbox.StatsReader, now func() time.Time, log zerolog.Logger, handled func(string) bool) {
	m.backlog.store, m.backlog.now, m.backlog.log = store, now, log
	m.handled = handled
}

// DeliveryProcessed records one processing attempt.
func (m *inboxMetrics) DeliveryProcessed(event, outcome string, handling, sinceReceived time.Duration) {
	if !m.handled(event) {
		event = "other"
	}
	m.processed.WithLabelValues(event, outcome).Inc()
	if outcome != inbox.OutcomeUnhandled {
		m.handling.WithLabelValues(event).Observe(handling.Seconds())
	}
	if outcome != inbox.OutcomeRetry {
		m.latency.Observe(sinceReceived.Seconds())
	}
}

// backlogCollector reads the inbox's backlog at scrape time. A store
// failure is logged and leaves the gauges out of that scrape.
type backlogCollector struct {
	pending, oldest *prometheus.Desc
	store           inbox.StatsReader
	now             func() time.Time
	log             zerolog.Logger
}

// scrapeTimeout bounds the store reads of one scrape.
const scrapeTimeout = 5 * time.Second

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.oldest
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	if c.store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	st, err := c.store.InboxStats(ctx)
	if err != nil {
		c.log.Warn().Err(err).Msg("metrics: failed to read the webhook inbox backlog")
		return
	}
	age := 0.0
	if !st.OldestPending.IsZero() {
		age = max(c.now().Sub(st.OldestPending).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(st.Pending))
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
}
