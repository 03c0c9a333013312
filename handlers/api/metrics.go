package api

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// MetricsContentType is the content type of getMergeQueueMetrics: the
// Prometheus text exposition format 0.0.4 (seed §4.4).
const MetricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// metricsWindow is the span of the *_1h* gauges and histograms.
const metricsWindow = time.Hour

// durationBuckets are the histogram buckets in seconds (SPEC §7).
var durationBuckets = []float64{60, 300, 600, 900, 1800, 3600, 5400, 7200}

// queueCollectors are one scrape's metrics, registered in a fresh registry.
// The last-hour figures are a sliding window: the conclusions and restarts
// are gauges (they go down as the window moves on, so they are neither
// counters nor named _total, and rate() must not be applied to them).
type queueCollectors struct {
	depth, awaiting, slots *prometheus.GaugeVec
	conclusions, restarts  *prometheus.GaugeVec
	checkFailures, flakes  *prometheus.GaugeVec
	wait, test, inQueue    *prometheus.HistogramVec
	registry               *prometheus.Registry
}

var metricLabels = []string{"repo", "branch", "queue_type"}

func newQueueCollectors() (*queueCollectors, error) {
	hist := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: durationBuckets}, metricLabels)
	}
	c := &queueCollectors{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_depth_current",
			Help: "Pull requests admitted to the queue and still in it (pending, testing, tests_passed, pending_failure)."}, metricLabels),
		awaiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_awaiting_mergeability",
			Help: "Pull requests submitted but not admitted yet (not_ready)."}, metricLabels),
		slots: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_testing_slots_active",
			Help: "Test runs building or in progress; queue_type bisection counts runs isolating a failed batch's culprit."}, metricLabels),
		conclusions: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_pr_conclusions_1h",
			Help: "Pull requests that left the queue in the last hour, by conclusion (a sliding window: a gauge)."},
			append(append([]string{}, metricLabels...), "conclusion")),
		restarts: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_pr_restarts_1h",
			Help: "Test restarts of pull requests in the last hour (a sliding window: a gauge)."}, metricLabels),
		wait: hist("mq_pr_wait_duration_1h_seconds",
			"For pull requests that left the queue in the last hour: seconds from submission to their first test run."),
		test: hist("mq_pr_test_duration_1h_seconds",
			"For pull requests that left the queue in the last hour: seconds their last test run took to pass or fail."),
		inQueue: hist("mq_pr_time_in_queue_1h_seconds",
			"For pull requests that left the queue in the last hour: seconds from submission to leaving the queue."),
		checkFailures: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_check_failures_7d",
			Help: "Test runs that failed on a required check in the last 7 days, by check (a sliding window: a gauge)."},
			append(append([]string{}, metricLabels...), "check")),
		flakes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "mq_check_flaky_failures_7d",
			Help: "Of mq_check_failures_7d, those that passed on retry or were vouched for by a later run (flakes)."},
			append(append([]string{}, metricLabels...), "check")),
		registry: prometheus.NewRegistry(),
	}
	for _, col := range []prometheus.Collector{c.depth, c.awaiting, c.slots, c.conclusions, c.restarts, c.wait, c.test, c.inQueue,
		c.checkFailures, c.flakes} {
		if err := c.registry.Register(col); err != nil {
			return nil, fmt.Errorf("failed to register queue metrics: %w", err)
		}
	}
	return c, nil
}

// add records one queue's figures.
func (c *queueCollectors) add(m *readside.QueueMetrics) {
	repo, branch := m.Queue.Key.Repo.FullName(), m.Queue.Key.Branch
	main := prometheus.Labels{"repo": repo, "branch": branch, "queue_type": "main"}
	bisection := prometheus.Labels{"repo": repo, "branch": branch, "queue_type": "bisection"}
	c.depth.With(main).Set(float64(m.Depth))
	c.awaiting.With(main).Set(float64(m.AwaitingMergeability))
	c.slots.With(main).Set(float64(m.SlotsMain))
	c.slots.With(bisection).Set(float64(m.SlotsBisection))
	for _, st := range []queue.EntryState{queue.StateMerged, queue.StateFailed, queue.StateCancelled} {
		c.conclusions.With(prometheus.Labels{"repo": repo, "branch": branch, "queue_type": "main", "conclusion": string(st)}).
			Set(float64(m.Conclusions[st]))
	}
	c.restarts.With(main).Set(float64(m.Restarts))
	for _, f := range m.Flaky {
		l := prometheus.Labels{"repo": repo, "branch": branch, "queue_type": "main", "check": f.Name}
		c.checkFailures.With(l).Set(float64(f.Failures))
		c.flakes.With(l).Set(float64(f.Flaky()))
	}
	for _, h := range []struct {
		vec *prometheus.HistogramVec
		ds  []time.Duration
	}{{c.wait, m.WaitTimes}, {c.test, m.TestTimes}, {c.inQueue, m.TimesInQueue}} {
		obs := h.vec.With(main)
		for _, d := range h.ds {
			obs.Observe(d.Seconds())
		}
	}
}

// metricsScope reads a scrape's parameters before anything is read: the
// one repository it covers (repo=<owner>/<name> with repoHost), or nil for
// every queue the token may see. Names breaking the naming rules are 400,
// another host 404, a repository outside the token's scope 403.
func (a *API) metricsScope(r *http.Request) (*queue.Repo, error) {
	params := r.URL.Query()
	repoParam, host := strings.TrimSpace(params.Get("repo")), strings.TrimSpace(params.Get("repoHost"))
	if host != "" {
		if err := queue.ValidateHost(host); err != nil {
			return nil, paramError("repoHost", err)
		}
		if !strings.EqualFold(host, a.host) {
			return nil, notFoundf("unknown repository host %q: this service serves %s", truncate(host), a.host)
		}
	}
	if repoParam == "" {
		return nil, nil
	}
	if host == "" {
		return nil, badRequestf("repoHost is required with repo")
	}
	owner, name, ok := strings.Cut(repoParam, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, badRequestf("invalid parameter repo: must be <owner>/<name>, got %q", truncate(repoParam))
	}
	if err := errors.Join(queue.ValidateOwner(owner), queue.ValidateRepoName(name)); err != nil {
		return nil, paramError("repo", err)
	}
	repo := queue.Repo{Host: a.host, Owner: owner, Name: name}
	if err := authorize(r.Context(), repo); err != nil {
		return nil, err
	}
	return &repo, nil
}

// paramError is the 400 for a query parameter holding a name the naming
// rules refuse.
func paramError(param string, err error) error {
	var ne *queue.NameError
	if errors.As(err, &ne) {
		return badRequestf("invalid parameter %s: %s %s, got %q", param, strings.TrimPrefix(ne.Field, "repo."), ne.Rule, truncate(ne.Value))
	}
	return badRequestf("invalid parameter %s: %v", param, err)
}

// selectQueues picks the queues a scrape covers: those of repo, or when
// repo is nil every queue the token may see.
func (a *API) selectQueues(r *http.Request, repo *queue.Repo, all []*queue.Queue) ([]*queue.Queue, error) {
	var out []*queue.Queue
	if repo == nil {
		tok := tokenFrom(r.Context())
		for _, q := range all {
			if strings.EqualFold(q.Key.Repo.Host, a.host) && tok.Allows(q.Key.Repo) {
				out = append(out, q)
			}
		}
		return out, nil
	}
	for _, q := range all {
		k := q.Key.Repo
		if strings.EqualFold(k.Host, a.host) && strings.EqualFold(k.Owner, repo.Owner) && strings.EqualFold(k.Name, repo.Name) {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		return nil, notFoundf("no queue for repository %s", repo.FullName())
	}
	return out, nil
}

// getMergeQueueMetrics (GET /v1/getMergeQueueMetrics) serves the queues'
// metrics in the Prometheus text format, built with the Prometheus client
// library from a registry made for this request. 400 for repo without
// repoHost, a malformed repo or a name breaking the naming rules, 403
// outside the token's scope, 404 for another host or a repository without
// queues.
func (a *API) getMergeQueueMetrics(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	scope, err := a.metricsScope(r)
	if err != nil {
		return err
	}
	all, err := a.reads.ListQueues(ctx)
	if err != nil {
		return fmt.Errorf("failed to list queues: %w", err)
	}
	queues, err := a.selectQueues(r, scope, all)
	if err != nil {
		return err
	}
	c, err := newQueueCollectors()
	if err != nil {
		return err
	}
	for _, q := range queues {
		m, err := a.reads.QueueMetrics(ctx, q, metricsWindow)
		if err != nil {
			return fmt.Errorf("failed to compute metrics of %s: %w", q.Key, err)
		}
		c.add(m)
	}
	families, err := c.registry.Gather()
	if err != nil {
		return fmt.Errorf("failed to gather queue metrics: %w", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.FmtText)
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return fmt.Errorf("failed to encode queue metrics: %w", err)
		}
	}
	h := w.Header()
	h.Set("Content-Type", MetricsContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
	return nil
}
