package app

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mergequeue/mq/githubx"
)

// budgetMetrics show how the GitHub installations spend their budget
// (githubx.Budget): grants and waits by class, what the windows hold, and
// GitHub's rate-limit refusals with the pauses they caused. No label names
// an installation or a repository.
type budgetMetrics struct {
	waits       *prometheus.CounterVec
	waitSeconds *prometheus.HistogramVec
	used        *prometheus.GaugeVec
	limit       *prometheus.GaugeVec
	refusals    *prometheus.CounterVec
	paused      *prometheus.CounterVec
}

// budgetWaitBuckets span a grant at once to an hour's wait for the hour
// window.
var budgetWaitBuckets = []float64{0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600}

func newBudgetMetrics() *budgetMetrics {
	return &budgetMetrics{
		waits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_github_budget_waits_total",
			Help: "Requests to GitHub that waited for their installation's budget, by class (merge, progress, surface), kind (read, write) and what they waited for last (pause, concurrency, points, writes).",
		}, []string{"class", "kind", "reason"}),
		waitSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mq_github_budget_wait_seconds",
			Help:    "Time from asking for budget to the grant, per request to GitHub (0 when granted at once), by class and kind.",
			Buckets: budgetWaitBuckets,
		}, []string{"class", "kind"}),
		used: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mq_github_budget_used",
			Help: "What the budget windows of the installation granted last hold, by limit (concurrent_requests, points_per_minute, writes_per_minute, writes_per_hour).",
		}, []string{"limit"}),
		limit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mq_github_budget_limit",
			Help: "The configured budget of each installation, by limit (as mq_github_budget_used).",
		}, []string{"limit"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_github_rate_limit_refusals_total",
			Help: "Requests GitHub refused with a rate limit (each paused the installation; the request was sent again after), by kind (secondary, primary) and status.",
		}, []string{"kind", "status"}),
		paused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_github_rate_limit_pause_seconds_total",
			Help: "Seconds of pause the rate-limit refusals asked for (overlapping pauses each count), by kind.",
		}, []string{"kind"}),
	}
}

func (m *budgetMetrics) register(r *prometheus.Registry) {
	r.MustRegister(m.waits, m.waitSeconds, m.used, m.limit, m.refusals, m.paused)
}

// observeWait records one grant.
func (m *budgetMetrics) observeWait(w githubx.BudgetWait) {
	kind := "read"
	if w.Write {
		kind = "write"
	}
	class := w.Class.String()
	m.waitSeconds.WithLabelValues(class, kind).Observe(w.Waited.Seconds())
	if w.Reason != "" {
		m.waits.WithLabelValues(class, kind, w.Reason).Inc()
	}
}

// observeUse records what an installation's windows hold.
func (m *budgetMetrics) observeUse(u githubx.BudgetUse) {
	for _, v := range []struct {
		name       string
		used, most int
	}{
		{"concurrent_requests", u.InFlight, u.Budget.Concurrent},
		{"points_per_minute", u.Points, u.Budget.PointsPerMinute},
		{"writes_per_minute", u.WritesPerMinute, u.Budget.WritesPerMinute},
		{"writes_per_hour", u.WritesPerHour, u.Budget.WritesPerHour},
	} {
		m.used.WithLabelValues(v.name).Set(float64(v.used))
		m.limit.WithLabelValues(v.name).Set(float64(v.most))
	}
}

// observePause records one rate-limit refusal.
func (m *budgetMetrics) observePause(p githubx.LimitPause) {
	m.refusals.WithLabelValues(p.Kind, strconv.Itoa(p.Status)).Inc()
	m.paused.WithLabelValues(p.Kind).Add(p.Pause.Seconds())
}
