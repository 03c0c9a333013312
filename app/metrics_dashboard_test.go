package app

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/queue"
)

// grafanaDashboard is the dashboard shipped for operators.
const grafanaDashboard = "../docs/grafana-dashboard.json"

// metricName finds metric names in a PromQL expression.
var metricName = regexp.MustCompile(`\b(?:mq|go|process)_[a-z0-9_]+\b`)

// Every metric the Grafana dashboard queries is one the process exposes
// (a histogram through its _bucket series), so no panel is empty because
// of a name.
func TestGrafanaDashboardQueriesExistingMetrics(t *testing.T) {
	raw, err := os.ReadFile(grafanaDashboard)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s is not valid JSON: %v", grafanaDashboard, err)
	}

	// Every metric of the process gets at least one series.
	m := newMetricsApp(t)
	m.start(t)
	m.do(t, "GET", "/healthz", "", nil, nil)
	m.webhook(t, "ping", "dash-1", metricsTestSecret, "")
	mt := m.app.metrics
	mt.github.ObserveGitHubCall(githubx.Call{Method: "GET", Endpoint: "/app", Status: 502, Retry: githubx.RetryServerError,
		RateLimit: githubx.RateLimit{Known: true, Resource: "core", Remaining: 1, Limit: 2}})
	mt.github.ObserveBudgetWait(githubx.BudgetWait{Class: githubx.ClassSurface, Write: true, Waited: time.Second, Reason: githubx.WaitWrites})
	mt.github.ObserveBudgetUse(githubx.BudgetUse{Points: 5, WritesPerMinute: 1, WritesPerHour: 1, Budget: githubx.DefaultBudget()})
	mt.github.ObserveLimitPause(githubx.LimitPause{Kind: githubx.LimitSecondary, Status: 403, Pause: time.Minute, Strikes: 1})
	mt.reconciler.ReconcileWriteFailed(true)
	mt.outbox.NotificationAttempted(0, "webhook", "delivered")
	mt.inbox.DeliveryProcessed("ping", "done", time.Millisecond, time.Second)
	mt.treeMismatch(queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"})
	_, fams := m.scrape(t)

	queried := 0
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			names := metricName.FindAllString(target.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q queries no metric: %q", p.Title, target.Expr)
			}
			for _, name := range names {
				queried++
				if !exposed(fams, name) {
					t.Errorf("panel %q queries %s, which /metrics does not expose", p.Title, name)
				}
			}
		}
	}
	if queried < 20 {
		t.Errorf("the dashboard queries only %d metrics", queried)
	}
}

// exposed reports whether name is a family of fams, or a _bucket, _sum or
// _count series of a histogram family.
func exposed(fams map[string]*dto.MetricFamily, name string) bool {
	if _, ok := fams[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := fams[base]; ok && f.GetType() == dto.MetricType_HISTOGRAM {
				return true
			}
		}
	}
	return false
}
