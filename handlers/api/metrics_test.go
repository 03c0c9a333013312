package api

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

func metricsQueues() []*queue.Queue {
	mk := func(id int64, owner, name, branch string) *queue.Queue {
		return &queue.Queue{ID: id, Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: name}, Branch: branch},
			State: queue.QueueRunning, Settings: queue.DefaultSettings()}
	}
	return []*queue.Queue{mk(1, "octo", "widgets", "main"), mk(2, "octo", "widgets", "release"), mk(3, "acme", "rockets", "main"),
		mk(4, "octo", "gadgets", "main")}
}

// parseMetrics parses a text exposition with the Prometheus parser.
func parseMetrics(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("metrics do not parse: %v\n%s", err, body)
	}
	return fams
}

// sample finds the metric of family name with the given labels.
func sample(fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	fam := fams[name]
	if fam == nil {
		return nil
	}
next:
	for _, m := range fam.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestMetricsFormatAndValues(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configureMore(func(m *moreFakes) {
		m.queues = metricsQueues()
		m.metrics = map[int64]*readside.QueueMetrics{1: {
			Depth: 3, AwaitingMergeability: 2, SlotsMain: 2, SlotsBisection: 1,
			Conclusions: map[queue.EntryState]int{queue.StateMerged: 5, queue.StateFailed: 1},
			Restarts:    4,
			WaitTimes:   []time.Duration{30 * time.Second, 4 * time.Minute},
			TestTimes:   []time.Duration{10 * time.Minute},
			TimesInQueue: []time.Duration{
				20 * time.Minute, 3 * time.Hour,
			},
		}}
	})
	r := h.do(http.MethodGet, "/v1/getMergeQueueMetrics?repo=octo/widgets&repoHost=github.com", secretAll, nil)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	fams := parseMetrics(t, r.body)
	main := map[string]string{"repo": "octo/widgets", "branch": "main", "queue_type": "main"}
	gauges := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mq_depth_current", main, 3},
		{"mq_awaiting_mergeability", main, 2},
		{"mq_testing_slots_active", main, 2},
		{"mq_testing_slots_active", map[string]string{"repo": "octo/widgets", "branch": "main", "queue_type": "bisection"}, 1},
		{"mq_depth_current", map[string]string{"repo": "octo/widgets", "branch": "release", "queue_type": "main"}, 0},
	}
	for _, g := range gauges {
		m := sample(fams, g.name, g.labels)
		if m == nil || m.GetGauge().GetValue() != g.want {
			t.Errorf("%s%v = %v, want %v", g.name, g.labels, m, g.want)
		}
	}
	for conclusion, want := range map[string]float64{"merged": 5, "failed": 1, "cancelled": 0} {
		labels := map[string]string{"repo": "octo/widgets", "branch": "main", "conclusion": conclusion}
		if m := sample(fams, "mq_pr_conclusions_1h", labels); m == nil || m.GetGauge().GetValue() != want {
			t.Errorf("conclusions %s = %v, want %v", conclusion, m, want)
		}
	}
	if m := sample(fams, "mq_pr_restarts_1h", main); m == nil || m.GetGauge().GetValue() != 4 {
		t.Errorf("restarts = %v", m)
	}
	// The last-hour figures go down as the window moves: gauges, and no
	// family of the exposition is a counter or named *_total.
	for _, name := range []string{"mq_pr_restarts_1h", "mq_pr_conclusions_1h"} {
		if fams[name].GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s type = %v, want gauge", name, fams[name].GetType())
		}
	}
	for name, fam := range fams {
		if fam.GetType() == dto.MetricType_COUNTER || strings.HasSuffix(name, "_total") {
			t.Errorf("%s (%v) claims to be a counter; the scrape is a sliding window", name, fam.GetType())
		}
	}
	wantBuckets := []float64{60, 300, 600, 900, 1800, 3600, 5400, 7200, math.Inf(1)}
	hists := []struct {
		name       string
		count      uint64
		sum        float64
		cumulative []uint64
	}{
		{"mq_pr_wait_duration_1h_seconds", 2, 270, []uint64{1, 2, 2, 2, 2, 2, 2, 2, 2}},
		{"mq_pr_test_duration_1h_seconds", 1, 600, []uint64{0, 0, 1, 1, 1, 1, 1, 1, 1}},
		{"mq_pr_time_in_queue_1h_seconds", 2, 1200 + 10800, []uint64{0, 0, 0, 0, 1, 1, 1, 1, 2}},
	}
	for _, hc := range hists {
		if fams[hc.name].GetType() != dto.MetricType_HISTOGRAM {
			t.Errorf("%s type = %v", hc.name, fams[hc.name].GetType())
			continue
		}
		hist := sample(fams, hc.name, main).GetHistogram()
		if hist.GetSampleCount() != hc.count || hist.GetSampleSum() != hc.sum {
			t.Errorf("%s count/sum = %d/%v, want %d/%v", hc.name, hist.GetSampleCount(), hist.GetSampleSum(), hc.count, hc.sum)
		}
		if len(hist.GetBucket()) != len(wantBuckets) {
			t.Fatalf("%s has %d buckets", hc.name, len(hist.GetBucket()))
		}
		for i, b := range hist.GetBucket() {
			if b.GetUpperBound() != wantBuckets[i] || b.GetCumulativeCount() != hc.cumulative[i] {
				t.Errorf("%s bucket %d = le %v count %d, want le %v count %d", hc.name, i,
					b.GetUpperBound(), b.GetCumulativeCount(), wantBuckets[i], hc.cumulative[i])
			}
		}
	}
	if sample(fams, "mq_depth_current", map[string]string{"repo": "acme/rockets"}) != nil {
		t.Error("another repository's queue is in a repo-filtered scrape")
	}
}

func TestMetricsScope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		token  string
		query  string
		status int
		repos  []string // repo labels expected in mq_depth_current
		want   string   // error text
	}{
		{"unscoped, everything", secretAll, "", http.StatusOK, []string{"octo/widgets", "octo/widgets", "acme/rockets", "octo/gadgets"}, ""},
		{"repo token sees its repo", secretRepo, "", http.StatusOK, []string{"octo/widgets", "octo/widgets"}, ""},
		{"owner token sees its owner", secretOwner, "", http.StatusOK, []string{"acme/rockets"}, ""},
		{"repoHost alone filters nothing more", secretAll, "?repoHost=GitHub.com", http.StatusOK, []string{"octo/widgets", "octo/widgets", "acme/rockets", "octo/gadgets"}, ""},
		{"repo case-insensitive", secretAll, "?repo=OCTO/Gadgets&repoHost=github.com", http.StatusOK, []string{"octo/gadgets"}, ""},
		{"repo without repoHost", secretAll, "?repo=octo/widgets", http.StatusBadRequest, nil, "repoHost is required"},
		{"malformed repo", secretAll, "?repo=widgets&repoHost=github.com", http.StatusBadRequest, nil, "owner>/<name"},
		{"other host", secretAll, "?repo=octo/widgets&repoHost=gitlab.com", http.StatusNotFound, nil, "gitlab.com"},
		{"repo without queues", secretAll, "?repo=octo/nothing&repoHost=github.com", http.StatusNotFound, nil, "no queue"},
		{"repo outside scope", secretRepo, "?repo=acme/rockets&repoHost=github.com", http.StatusForbidden, nil, "not allowed"},
		{"no token", "", "", http.StatusUnauthorized, nil, "missing API token"},
		{"revoked token", secretRevoked, "", http.StatusUnauthorized, nil, "revoked"},
		{"expired token", secretExpired, "", http.StatusUnauthorized, nil, "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.queues = metricsQueues() })
			r := h.do(http.MethodGet, "/v1/getMergeQueueMetrics"+tt.query, tt.token, nil)
			if tt.status != http.StatusOK {
				wantError(t, r, tt.status, tt.want)
				return
			}
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			var repos []string
			for _, m := range parseMetrics(t, r.body)["mq_depth_current"].GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "repo" {
						repos = append(repos, l.GetValue())
					}
				}
			}
			if strings.Join(sorted(repos), ",") != strings.Join(sorted(tt.repos), ",") {
				t.Errorf("repos = %v, want %v", repos, tt.repos)
			}
		})
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestMetricsErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configureMore(func(m *moreFakes) { m.queuesErr = errors.New("db gone") })
	wantError(t, h.do(http.MethodGet, "/v1/getMergeQueueMetrics", secretAll, nil), http.StatusInternalServerError, "internal error")

	h2 := newHarness(t)
	h2.svc.configureMore(func(m *moreFakes) { m.queues, m.metricsErr = metricsQueues(), errors.New("db gone") })
	wantError(t, h2.do(http.MethodGet, "/v1/getMergeQueueMetrics", secretAll, nil), http.StatusInternalServerError, "internal error")

	r := h.do(http.MethodPost, "/v1/getMergeQueueMetrics", secretAll, strings.NewReader("{}"))
	wantError(t, r, http.StatusMethodNotAllowed, "use GET")
}

func TestMetricsNoQueues(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do(http.MethodGet, "/v1/getMergeQueueMetrics", secretAll, nil)
	if r.status != http.StatusOK || r.body != "" {
		t.Errorf("got %d %q, want 200 and no samples", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != MetricsContentType {
		t.Errorf("Content-Type = %q", ct)
	}
}
