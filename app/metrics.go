package app

import (
	"runtime"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mergequeue/mq/queue"
)

// metrics are the process's own operational metrics, served at /metrics:
// HTTP requests (metrics_http.go), GitHub calls (metrics_github.go), the
// webhook inbox (metrics_inbox.go), the notification outbox
// (metrics_outbox.go) and the reconciler (metrics_reconciler.go), beside
// the Go runtime's and the process's. docs/operations.md lists them all.
// Every counter only ever grows; label values come from bounded sets
// (route patterns, endpoint templates, indices), never from names, paths
// or anything secret.
type metrics struct {
	registry       *prometheus.Registry
	treeMismatches *prometheus.CounterVec
	checksMissing  *prometheus.CounterVec
	http           *httpMetrics
	github         *githubMetrics
	inbox          *inboxMetrics
	outbox         *outboxMetrics
	reconciler     *reconcilerMetrics
	stalls         *stallMetrics
	autoTune       *autoTuneMetrics
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		treeMismatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_landed_tree_mismatch_total",
			Help: "Merges whose landed tree differed from the tested tree (the queue was paused).",
		}, []string{"repo", "branch"}),
		checksMissing: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_checks_not_started_total",
			Help: "Test runs whose required checks never started (checksStartTimeoutMinutes), by outcome: " +
				"retried (tested again on a new commit) or paused (the second in a row: the queue paused, a CI outage).",
		}, []string{"repo", "branch", "outcome"}),
		http:       newHTTPMetrics(),
		github:     newGitHubMetrics(),
		inbox:      newInboxMetrics(),
		outbox:     newOutboxMetrics(),
		reconciler: newReconcilerMetrics(),
		stalls:     newStallMetrics(),
		autoTune:   newAutoTuneMetrics(),
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.treeMismatches, m.checksMissing)
	m.http.register(m.registry)
	m.github.register(m.registry)
	m.inbox.register(m.registry)
	m.outbox.register(m.registry)
	m.reconciler.register(m.registry)
	m.stalls.register(m.registry)
	m.autoTune.register(m.registry)
	return m
}

func (m *metrics) treeMismatch(k queue.QueueKey) {
	m.treeMismatches.WithLabelValues(k.Repo.FullName(), k.Branch).Inc()
}

// checksNotStarted counts a run whose required checks never started.
func (m *metrics) checksNotStarted(k queue.QueueKey, outage bool) {
	outcome := "retried"
	if outage {
		outcome = "paused"
	}
	m.checksMissing.WithLabelValues(k.Repo.FullName(), k.Branch, outcome).Inc()
}

// latencyBuckets are the buckets, in seconds, of the request and call
// latency histograms: 5 ms to 30 s.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// statusLabel is an HTTP status as a label value ("none" when no response
// came back).
func statusLabel(code int) string {
	if code < 100 || code > 599 {
		return "none"
	}
	return strconv.Itoa(code)
}

// methodLabel bounds a request method to the standard ones.
func methodLabel(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return m
	}
	return "other"
}

// attach registers mq_build_info for version and points the scrape-time
// gauges (inbox backlog, outbox lag) at the store; a's processor and
// notifier must exist.
func (m *metrics) attach(a *App, store Database, version string) {
	if version == "" {
		version = "unknown"
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "mq_build_info",
		Help:        "Always 1; the labels say which build runs.",
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version()},
	})
	build.Set(1)
	m.registry.MustRegister(build)
	m.inbox.watch(store, a.now, a.log, func(event string) bool {
		_, ok := a.processor.Handler(event)
		return ok
	})
	m.outbox.watch(notifyStore{store}, a.notifier, a.log)
}
