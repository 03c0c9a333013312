package app

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mergequeue/mq/queue/service"
)

// reconcilerMetrics follow the reconciler, which brings GitHub's comments,
// check runs, labels and branches to the stored state.
type reconcilerMetrics struct {
	passes   *prometheus.CounterVec
	duration prometheus.Histogram
	failures *prometheus.CounterVec
}

var _ service.ReconcileObserver = (*reconcilerMetrics)(nil)

func newReconcilerMetrics() *reconcilerMetrics {
	return &reconcilerMetrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_reconciler_passes_total",
			Help: "Reconciliation passes, by result (ok; transient: cut short by GitHub failing as a whole; error).",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mq_reconciler_pass_duration_seconds",
			Help:    "Time one reconciliation pass took.",
			Buckets: latencyBuckets,
		}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_reconciler_write_failures_total",
			Help: "Writes to GitHub (comments, check runs, labels, notices) GitHub refused, by outcome (retry, gave_up).",
		}, []string{"outcome"}),
	}
}

func (m *reconcilerMetrics) register(r *prometheus.Registry) {
	// Every result and outcome is exposed at 0 from the start, so rate()
	// and alerts see the series before the first pass or failure.
	for _, result := range []string{service.PassOK, service.PassTransient, service.PassError} {
		m.passes.WithLabelValues(result)
	}
	for _, outcome := range []string{"retry", "gave_up"} {
		m.failures.WithLabelValues(outcome)
	}
	r.MustRegister(m.passes, m.duration, m.failures)
}

// ReconcilePass records one pass.
func (m *reconcilerMetrics) ReconcilePass(result string, took time.Duration) {
	m.passes.WithLabelValues(result).Inc()
	m.duration.Observe(took.Seconds())
}

// ReconcileWriteFailed records one refused write.
func (m *reconcilerMetrics) ReconcileWriteFailed(gaveUp bool) {
	outcome := "retry"
	if gaveUp {
		outcome = "gave_up"
	}
	m.failures.WithLabelValues(outcome).Inc()
}
