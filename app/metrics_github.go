package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mergequeue/mq/githubx"
)

// githubMetrics count the calls made to GitHub, each attempt apart, by
// endpoint template (githubx.Endpoint: no owner, name or number in it),
// and the budget the installations spend (budgetMetrics).
type githubMetrics struct {
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	retries   *prometheus.CounterVec
	remaining *prometheus.GaugeVec
	limit     *prometheus.GaugeVec
	budget    *budgetMetrics
}

var (
	_ githubx.Observer       = (*githubMetrics)(nil)
	_ githubx.BudgetObserver = (*githubMetrics)(nil)
)

func newGitHubMetrics() *githubMetrics {
	return &githubMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_github_requests_total",
			Help: "Requests sent to GitHub's API, each try apart, by method, endpoint template and status code (none: no response).",
		}, []string{"method", "endpoint", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mq_github_request_duration_seconds",
			Help:    "Time GitHub took to answer one try of a request, by method and endpoint template.",
			Buckets: latencyBuckets,
		}, []string{"method", "endpoint"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_github_retries_total",
			Help: "Requests to GitHub tried again, by endpoint template and reason (server_error, network_error, rate_limit).",
		}, []string{"endpoint", "reason"}),
		remaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mq_github_rate_limit_remaining",
			Help: "Requests left in the current rate-limit window, as GitHub last reported it, by resource (core, graphql, …).",
		}, []string{"resource"}),
		limit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mq_github_rate_limit_limit",
			Help: "Size of the rate-limit window, as GitHub last reported it, by resource.",
		}, []string{"resource"}),
		budget: newBudgetMetrics(),
	}
}

func (m *githubMetrics) register(r *prometheus.Registry) {
	r.MustRegister(m.requests, m.duration, m.retries, m.remaining, m.limit)
	m.budget.register(r)
}

// ObserveBudgetWait records one grant of budget.
func (m *githubMetrics) ObserveBudgetWait(w githubx.BudgetWait) { m.budget.observeWait(w) }

// ObserveBudgetUse records what an installation's windows hold.
func (m *githubMetrics) ObserveBudgetUse(u githubx.BudgetUse) { m.budget.observeUse(u) }

// ObserveLimitPause records a rate-limit refusal and its pause.
func (m *githubMetrics) ObserveLimitPause(p githubx.LimitPause) { m.budget.observePause(p) }

// ObserveGitHubCall records one try.
func (m *githubMetrics) ObserveGitHubCall(c githubx.Call) {
	method := methodLabel(c.Method)
	m.requests.WithLabelValues(method, c.Endpoint, statusLabel(c.Status)).Inc()
	m.duration.WithLabelValues(method, c.Endpoint).Observe(c.Duration.Seconds())
	if c.Retry != "" {
		m.retries.WithLabelValues(c.Endpoint, c.Retry).Inc()
	}
	if rl := c.RateLimit; rl.Known {
		m.remaining.WithLabelValues(rl.Resource).Set(float64(rl.Remaining))
		if rl.Limit > 0 {
			m.limit.WithLabelValues(rl.Resource).Set(float64(rl.Limit))
		}
	}
}
