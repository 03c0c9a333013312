package app

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/requestid"
)

// syncBuffer is a log sink safe for the app's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const (
	metricsTestSecret      = "whsec-metrics-test-7f3a"
	metricsTestNotifSecret = "T000/B000/notif-credential-91c2"
)

// metricsApp is an App on a fake GitHub, served by an httptest server,
// not started yet; its logs go to logs.
type metricsApp struct {
	app  *App
	srv  *httptest.Server
	logs *syncBuffer
}

func newMetricsApp(t *testing.T) *metricsApp {
	t.Helper()
	dir := t.TempDir()
	fake, err := fakegithub.New(fakegithub.Options{Dir: filepath.Join(dir, "git"), WebhookSecret: metricsTestSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	notif := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(notif.Close)
	cfg, err := LoadConfig("", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.GitHub.WebURL, cfg.GitHub.V3APIURL, cfg.GitHub.V4APIURL = fake.URL(), fake.URL()+"/", fake.URL()+"/graphql"
	cfg.GitHub.App.IntegrationID = fake.AppID()
	cfg.GitHub.App.PrivateKey = string(fake.AppPrivateKeyPEM())
	cfg.GitHub.App.WebhookSecret = metricsTestSecret
	cfg.Database.Path = filepath.Join(dir, "mq.db")
	cfg.Notifications = []NotificationTarget{{URL: notif.URL + "/services/" + metricsTestNotifSecret, Kind: "webhook"}}
	logs := &syncBuffer{}
	log := zerolog.New(logs).Level(zerolog.DebugLevel)
	a, err := New(t.Context(), cfg, Options{Logger: &log, Version: "v1.2.3-test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return &metricsApp{app: a, srv: srv, logs: logs}
}

// start runs the app's workers until the test ends.
func (m *metricsApp) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.app.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := m.app.Close(); err != nil {
			t.Error(err)
		}
	})
}

func (m *metricsApp) do(t *testing.T, method, path, reqID string, body []byte, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, m.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if reqID != "" {
		req.Header.Set(requestid.Header, reqID)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := m.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// webhook sends a delivery signed with secret.
func (m *metricsApp) webhook(t *testing.T, event, id, secret, reqID string) *http.Response {
	t.Helper()
	body := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return m.do(t, http.MethodPost, "/api/github/hook", reqID, body, map[string]string{
		"X-GitHub-Event": event, "X-GitHub-Delivery": id, "Content-Type": "application/json",
		"X-Hub-Signature-256": "sha256=" + hex.EncodeToString(mac.Sum(nil)),
	})
}

// scrape reads /metrics, returning the raw text and the parsed families.
func (m *metricsApp) scrape(t *testing.T) (string, map[string]*dto.MetricFamily) {
	t.Helper()
	resp, err := m.srv.Client().Get(m.srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d, %v\n%s", resp.StatusCode, err, raw)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return string(raw), fams
}

// value is the counter, gauge or histogram count of the series of family
// name with exactly labels; ok is false if there is none.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	fam := fams[name]
	if fam == nil {
		return 0, false
	}
next:
	for _, m := range fam.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		switch fam.GetType() {
		case dto.MetricType_COUNTER:
			return m.GetCounter().GetValue(), true
		case dto.MetricType_GAUGE:
			return m.GetGauge().GetValue(), true
		case dto.MetricType_HISTOGRAM:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

func wantValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string, want float64) {
	t.Helper()
	if got, ok := value(fams, name, labels); !ok || got != want {
		t.Errorf("%s%v = %v (present %v), want %v", name, labels, got, ok, want)
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The operational metrics follow HTTP requests by route pattern, GitHub
// calls by endpoint template, the webhook inbox, the outbox and the
// reconciler; counters never go down; no secret shows.
func TestOperationalMetrics(t *testing.T) {
	m := newMetricsApp(t)

	if resp := m.do(t, http.MethodGet, "/healthz", "client-req-1", nil, nil); resp.StatusCode != 200 || resp.Header.Get(requestid.Header) != "client-req-1" {
		t.Fatalf("GET /healthz: %d, request id %q", resp.StatusCode, resp.Header.Get(requestid.Header))
	}
	if resp := m.do(t, http.MethodGet, "/no/such/octo/page", "", nil, nil); resp.StatusCode != 404 || !requestid.Valid(resp.Header.Get(requestid.Header)) {
		t.Fatalf("GET unknown path: %d, request id %q", resp.StatusCode, resp.Header.Get(requestid.Header))
	}
	m.do(t, http.MethodPost, "/v1/getQueue", "api-req-3", []byte(`{}`), nil) // 401, no token
	m.do(t, http.MethodPost, "/v1/octo-secret-op", "", []byte(`{}`), nil)    // 404, unknown operation
	// Deliveries stored before the inbox runs are its backlog.
	for _, d := range []struct{ event, id string }{{"ping", "d-1"}, {"fork", "d-2"}} {
		if resp := m.webhook(t, d.event, d.id, metricsTestSecret, ""); resp.StatusCode != 200 {
			t.Fatalf("webhook %s: %d", d.id, resp.StatusCode)
		}
	}
	if resp := m.webhook(t, "ping", "d-forged", "wrong-secret", "forged-req-9"); resp.StatusCode != 401 ||
		resp.Header.Get(requestid.Header) != "forged-req-9" {
		t.Fatalf("forged webhook: %d, request id %q", resp.StatusCode, resp.Header.Get(requestid.Header))
	}

	raw, fams := m.scrape(t)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": "GET /healthz", "method": "GET", "status": "200"}, 1)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": routeUnmatched, "method": "GET", "status": "404"}, 1)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": "/v1/getQueue", "method": "POST", "status": "401"}, 1)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": routeUnknownAPI, "method": "POST", "status": "404"}, 1)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": "/api/github/hook", "method": "POST", "status": "200"}, 2)
	wantValue(t, fams, "mq_http_requests_total", map[string]string{"route": "/api/github/hook", "method": "POST", "status": "401"}, 1)
	wantValue(t, fams, "mq_http_request_duration_seconds", map[string]string{"route": "GET /healthz", "method": "GET"}, 1)
	wantValue(t, fams, "mq_webhook_inbox_pending", nil, 2)
	if age, ok := value(fams, "mq_webhook_inbox_oldest_pending_age_seconds", nil); !ok || age < 0 || age > 60 {
		t.Errorf("oldest pending age %v (present %v)", age, ok)
	}
	// New proved the App's key with GET /app.
	if n, ok := value(fams, "mq_github_requests_total", map[string]string{"method": "GET", "endpoint": "/app", "status": "200"}); !ok || n < 1 {
		t.Errorf("GET /app calls = %v (present %v)", n, ok)
	}
	wantValue(t, fams, "mq_build_info", map[string]string{"version": "v1.2.3-test", "goversion": runtime.Version()}, 1)
	wantValue(t, fams, "mq_notification_backlog_events", map[string]string{"target": "0", "kind": "webhook"}, 0)
	for _, leak := range []string{metricsTestSecret, metricsTestNotifSecret, "octo-secret-op", "/no/such/octo/page"} {
		if strings.Contains(raw, leak) {
			t.Errorf("/metrics shows %q", leak)
		}
	}

	m.start(t)
	eventually(t, "the inbox to drain and a reconciler pass", func() bool {
		_, fams := m.scrape(t)
		pending, _ := value(fams, "mq_webhook_inbox_pending", nil)
		passes, _ := value(fams, "mq_reconciler_passes_total", map[string]string{"result": "ok"})
		return pending == 0 && passes >= 1
	})
	raw2, fams2 := m.scrape(t)
	wantValue(t, fams2, "mq_webhook_deliveries_processed_total", map[string]string{"event": "ping", "outcome": "done"}, 1)
	wantValue(t, fams2, "mq_webhook_deliveries_processed_total", map[string]string{"event": "other", "outcome": "unhandled"}, 1)
	wantValue(t, fams2, "mq_webhook_processing_latency_seconds", nil, 2)
	wantValue(t, fams2, "mq_webhook_handler_duration_seconds", map[string]string{"event": "ping"}, 1)
	wantValue(t, fams2, "mq_webhook_inbox_oldest_pending_age_seconds", nil, 0)
	if strings.Contains(raw2, metricsTestSecret) || strings.Contains(raw2, metricsTestNotifSecret) {
		t.Error("/metrics shows a secret")
	}

	// Counters never go down between scrapes.
	for name, fam := range fams {
		if fam.GetType() != dto.MetricType_COUNTER {
			continue
		}
		for _, s := range fam.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if later, ok := value(fams2, name, labels); !ok || later < s.GetCounter().GetValue() {
				t.Errorf("counter %s%v went from %v to %v (present %v)", name, labels, s.GetCounter().GetValue(), later, ok)
			}
		}
	}

	// The forged delivery's refusal was logged with its request id and
	// delivery id, and no secret was logged.
	logs := m.logs.String()
	found := false
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"request_id":"forged-req-9"`) && strings.Contains(line, `"github_delivery_id":"d-forged"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no log line carries request_id forged-req-9 and the delivery id:\n%s", logs)
	}
	if !strings.Contains(logs, `"request_id":"api-req-3"`) {
		t.Errorf("the refused REST call logged no line with its request id:\n%s", logs)
	}
	for _, leak := range []string{metricsTestSecret, metricsTestNotifSecret} {
		if strings.Contains(logs, leak) {
			t.Errorf("logs show %q", leak)
		}
	}
}

// GitHub calls are labelled by endpoint template: no owner, name or
// number of a repository reaches a label.
func TestGitHubMetricsUseEndpointTemplates(t *testing.T) {
	gm := newGitHubMetrics()
	reg := prometheus.NewRegistry()
	gm.register(reg)
	gm.ObserveGitHubCall(githubx.Call{Method: "GET", Endpoint: githubx.Endpoint("/repos/octo/widgets/pulls/12"), Status: 502, Attempt: 1,
		Retry: githubx.RetryServerError, RateLimit: githubx.RateLimit{Known: true, Resource: "core", Remaining: 4321, Limit: 5000}})
	gm.ObserveGitHubCall(githubx.Call{Method: "GET", Endpoint: githubx.Endpoint("/repos/octo/widgets/pulls/12"), Status: 200, Attempt: 2,
		RateLimit: githubx.RateLimit{Known: true, Resource: "core", Remaining: 4320, Limit: 5000}})
	gm.ObserveGitHubCall(githubx.Call{Method: "PATCH", Endpoint: githubx.Endpoint("/repos/octo/widgets/check-runs/5"), Status: 0, Attempt: 1})
	fams := gather(t, reg)
	ep := "/repos/{owner}/{repo}/pulls/{number}"
	wantValue(t, fams, "mq_github_requests_total", map[string]string{"method": "GET", "endpoint": ep, "status": "502"}, 1)
	wantValue(t, fams, "mq_github_requests_total", map[string]string{"method": "GET", "endpoint": ep, "status": "200"}, 1)
	wantValue(t, fams, "mq_github_requests_total", map[string]string{"method": "PATCH", "endpoint": "/repos/{owner}/{repo}/check-runs/{check_run_id}", "status": "none"}, 1)
	wantValue(t, fams, "mq_github_retries_total", map[string]string{"endpoint": ep, "reason": "server_error"}, 1)
	wantValue(t, fams, "mq_github_rate_limit_remaining", map[string]string{"resource": "core"}, 4320)
	wantValue(t, fams, "mq_github_rate_limit_limit", map[string]string{"resource": "core"}, 5000)
	wantValue(t, fams, "mq_github_request_duration_seconds", map[string]string{"method": "GET", "endpoint": ep}, 2)
}

// gather collects reg's families, as a scrape would.
func gather(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	list, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]*dto.MetricFamily{}
	for _, f := range list {
		fams[f.GetName()] = f
	}
	return fams
}
