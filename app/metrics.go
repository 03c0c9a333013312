package app

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mergequeue/mq/queue"
)

// metrics are the process's own operational metrics, served at /metrics.
type metrics struct {
	registry       *prometheus.Registry
	treeMismatches *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		treeMismatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_landed_tree_mismatch_total",
			Help: "Merges whose landed tree differed from the tested tree (the queue was paused).",
		}, []string{"repo", "branch"}),
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), m.treeMismatches)
	return m
}

func (m *metrics) treeMismatch(k queue.QueueKey) {
	m.treeMismatches.WithLabelValues(k.Repo.FullName(), k.Branch).Inc()
}
