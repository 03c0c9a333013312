package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers/api"
	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// sessionBody is a request for the main queue with extra members.
func sessionBody(extra map[string]any) map[string]any {
	b := map[string]any{"repo": repoBody(), "targetBranch": "main"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// sessionObject posts and decodes a 200 JSON object, numbers kept exact.
func (h *harness) sessionObject(op string, body any) map[string]any {
	h.t.Helper()
	out := h.mustPost(op, body)
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		h.t.Fatalf("%s: decode %s: %v", op, out, err)
	}
	return m
}

// sessionStatus posts and checks the status of an error answer.
func (h *harness) sessionStatus(op string, body any, want int) string {
	h.t.Helper()
	status, out := h.post(op, body)
	if status != want {
		h.t.Fatalf("%s: status %d (%s), want %d", op, status, out, want)
	}
	return string(out)
}

// sessionRaw sends a request with the given headers only (no token unless
// given) and returns status and body.
func (h *harness) sessionRaw(method, path string, body any, headers map[string]string) (int, string, http.Header) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.env.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := testHTTP.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), resp.Header
}

// scrape reads getMergeQueueMetrics for the repository and parses it with
// the Prometheus text parser.
func (h *harness) scrape() map[string]*dto.MetricFamily {
	h.t.Helper()
	status, body, header := h.sessionRaw(http.MethodGet, "/v1/getMergeQueueMetrics?repo="+owner+"/"+repo+"&repoHost=github.com",
		nil, map[string]string{"x-api-token": h.token})
	if status != http.StatusOK {
		h.t.Fatalf("metrics: %d %s", status, body)
	}
	if ct := header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		h.t.Errorf("metrics Content-Type = %q", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		h.t.Fatalf("metrics do not parse: %v\n%s", err, body)
	}
	return fams
}

// metricValue is the value of a gauge or counter, or a histogram's count,
// for the main queue (-1 if absent).
func metricValue(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	want := map[string]string{"repo": owner + "/" + repo, "branch": "main"}
	for k, v := range labels {
		want[k] = v
	}
next:
	for _, m := range fams[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// prNumbers lists the prNumber of each object.
func prNumbers(list any) []int {
	var out []int
	for _, v := range list.([]any) {
		n, _ := strconv.Atoi(v.(map[string]any)["prNumber"].(json.Number).String())
		out = append(out, n)
	}
	return out
}

// testBranch waits for the test branch of PR pr and returns it.
func (h *harness) testBranch(pr int) string {
	h.t.Helper()
	prefix := fmt.Sprintf("mq-merge/pr-%d/", pr)
	var found string
	h.waitFor("a test branch for #"+strconv.Itoa(pr), func() bool {
		for _, b := range h.env.Fake.Branches(owner, repo) {
			if strings.HasPrefix(b, prefix) && !strings.HasSuffix(b, "-bisection") {
				found = b
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprint(h.env.Fake.Branches(owner, repo)) })
	return found
}

func headSHA(t *testing.T, h *harness, pr int) string {
	t.Helper()
	p, err := h.env.Fake.PR(owner, repo, pr)
	if err != nil {
		t.Fatal(err)
	}
	return p.GetHead().GetSHA()
}

// A client session against the real stack, the way existing clients (a
// Terraform provider, a CI action, a chat bot) use the API.
func TestAPIClientSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})

	// Create; a duplicate is 409; a token scoped elsewhere is 403.
	if out := string(h.mustPost("createQueue", sessionBody(map[string]any{"concurrency": 1}))); out != "{}" {
		t.Fatalf("createQueue answered %s, want {}", out)
	}
	h.sessionStatus("createQueue", sessionBody(nil), http.StatusConflict)
	other, _, err := apitoken.Issue(context.Background(), h.env.App().Store(), "elsewhere", []string{"someone/else"}, nil, 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if status, _, _ := h.sessionRaw(http.MethodPost, "/v1/getQueue", sessionBody(nil), map[string]string{"x-api-token": other}); status != http.StatusForbidden {
		t.Errorf("out-of-scope token: %d, want 403", status)
	}

	// Update: mode (applies at once on an idle queue), then concurrency,
	// batching, required statuses and merge method, then a partial update.
	q := h.sessionObject("updateQueue", sessionBody(map[string]any{"mode": "PARALLEL", "state": "running"}))
	if q["mode"] != "parallel" || q["state"] != "running" {
		t.Errorf("mode change on an idle queue: mode %v state %v", q["mode"], q["state"])
	}
	if _, ok := q["enqueuedPullRequests"]; ok {
		t.Error("updateQueue answered enqueuedPullRequests")
	}
	q = h.sessionObject("updateQueue", sessionBody(map[string]any{"mode": "single", "concurrency": 2, "batch": true,
		"batchingMinSize": 2, "batchingMaxWaitTimeMinutes": 0, "requiredStatuses": []string{"ci/test"},
		"mergeMethod": "MERGE_COMMIT", "state": "PAUSED"}))
	if q["mode"] != "single" || q["batch"] != true || q["state"] != "paused" {
		t.Errorf("full update answered mode %v batch %v state %v, want single true paused", q["mode"], q["batch"], q["state"])
	}
	q = h.sessionObject("updateQueue", sessionBody(map[string]any{"batch": false}))
	for k, want := range map[string]string{"mode": "single", "concurrency": "2", "batch": "false", "batchingMinSize": "2",
		// bisectionConcurrency is fixed at creation (concurrency 1 then).
		"requiredStatuses": "[ci/test]", "mergeMethod": "merge_commit", "state": "paused", "bisectionConcurrency": "1"} {
		if got := fmt.Sprint(q[k]); got != want {
			t.Errorf("after updates %s = %s, want %s", k, got, want)
		}
	}
	h.sessionStatus("updateQueue", sessionBody(map[string]any{"mergeMethod": "octopus"}), http.StatusBadRequest)

	// Impacted targets before submission: ALL, a list with the PR number
	// as a string, and [] vouched for by the run of a PR from a fork.
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	p3 := h.openForkPR("three", forker, map[string]string{"three.txt": "3\n"})
	h.mustPost("setImpactedTargets", sessionBody(map[string]any{"pr": map[string]any{"number": p1, "sha": headSHA(t, h, p1)}, "impactedTargets": "ALL"}))
	h.mustPost("setImpactedTargets", sessionBody(map[string]any{"pr": map[string]any{"number": strconv.Itoa(p2), "sha": headSHA(t, h, p2)},
		"impactedTargets": []string{"//svc/two:test", "//lib:all"}}))
	h.addForkRun(forkRun(777, headSHA(t, h, p3), "three"))
	done := forkRun(778, headSHA(t, h, p3), "three")
	done.Status, done.Conclusion = "completed", "success"
	h.addForkRun(done)
	forked := sessionBody(map[string]any{"pr": map[string]any{"number": p3, "sha": headSHA(t, h, p3)}, "impactedTargets": []string{}})
	if status, body, _ := h.sessionRaw(http.MethodPost, "/v1/setImpactedTargets", forked, map[string]string{api.ForkedRunHeader: "777"}); status != http.StatusOK || body != "{}" {
		t.Errorf("forked run in progress: %d %s, want 200 {}", status, body)
	}
	if status, _, _ := h.sessionRaw(http.MethodPost, "/v1/setImpactedTargets", forked, map[string]string{api.ForkedRunHeader: "778"}); status != http.StatusUnauthorized {
		t.Errorf("forked run completed: %d, want 401", status)
	}

	// Submit with priorities into the paused queue: all wait not_ready.
	h.mustPost("submitPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": p1}, "priority": "LOW"}))
	h.mustPost("submitPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": strconv.Itoa(p2)}, "priority": 10}))
	h.mustPost("submitPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": p3}, "priority": nil}))
	waiting := h.sessionObject("listPullRequests", sessionBody(map[string]any{"state": "NOT_READY"}))
	if got := len(waiting["pullRequests"].([]any)); got != 3 {
		t.Fatalf("%d not_ready pull requests, want 3", got)
	}
	fams := h.scrape()
	if d, a := metricValue(fams, "mq_depth_current", nil), metricValue(fams, "mq_awaiting_mergeability", nil); d != 0 || a != 3 {
		t.Errorf("paused queue metrics: depth %v awaiting %v, want 0 and 3", d, a)
	}
	if body := h.sessionStatus("deleteQueue", sessionBody(nil), http.StatusBadRequest); !strings.Contains(body, "active") {
		t.Errorf("deleting a non-empty queue: %s", body)
	}

	// Resume with CI held: the two first in priority order test.
	h.env.Fake.SetCIHold(true)
	h.sessionObject("updateQueue", sessionBody(map[string]any{"state": "running"}))
	h.waitState(p2, "testing")
	h.waitState(p3, "testing")
	q = h.sessionObject("getQueue", sessionBody(nil))
	if got := prNumbers(q["enqueuedPullRequests"]); fmt.Sprint(got) != fmt.Sprint([]int{p2, p3, p1}) {
		t.Errorf("queue order %v, want [%d %d %d] (high, medium, low)", got, p2, p3, p1)
	}
	for _, e := range q["enqueuedPullRequests"].([]any) {
		m := e.(map[string]any)
		want := map[string]string{fmt.Sprint(p1): "low 200", fmt.Sprint(p2): "high 10", fmt.Sprint(p3): "medium 100"}[fmt.Sprint(m["prNumber"])]
		if got := fmt.Sprint(m["priorityName"], " ", m["priorityValue"]); got != want {
			t.Errorf("#%v priority %s, want %s", m["prNumber"], got, want)
		}
	}

	// Testing details by the testRunId taken from the test branch name.
	branch := h.testBranch(p3)
	runID := branch[strings.LastIndex(branch, "/")+1:]
	if s, _ := h.entry(p3); s.TestRunID != runID {
		t.Errorf("getSubmittedPullRequest testRunId %q, branch %s", s.TestRunID, branch)
	}
	d := h.sessionObject("getMergeQueueTestingDetails", sessionBody(map[string]any{"testRunId": runID}))
	if d["status"] != "in_progress" || d["testBranch"] != branch || fmt.Sprint(d["requiredStatuses"]) != "[ci/test]" {
		t.Errorf("testing details: status %v branch %v required %v", d["status"], d["testBranch"], d["requiredStatuses"])
	}
	if got := prNumbers(d["testedPullRequests"]); fmt.Sprint(got) != fmt.Sprint([]int{p3}) {
		t.Errorf("testedPullRequests %v, want [%d]", got, p3)
	}
	// In the sandbox the PR's page is on the fake GitHub (its web URL).
	wantURL := fmt.Sprintf("%s/%s/%s/pull/%d", h.env.Fake.URL(), owner, repo, p3)
	if got := d["testedPullRequests"].([]any)[0].(map[string]any)["prUrl"]; got != wantURL {
		t.Errorf("prUrl %v, want %s", got, wantURL)
	}
	if got := fmt.Sprint(d["dependentPrs"]); got != fmt.Sprintf("[%d]", p2) {
		t.Errorf("dependentPrs %s, want [%d] (the PR ahead)", got, p2)
	}
	if got := fmt.Sprint(d["impactedTargets"]); got != "[]" {
		t.Errorf("impactedTargets %s, want [] (uploaded by the forked run)", got)
	}
	h.sessionStatus("getMergeQueueTestingDetails", sessionBody(map[string]any{"testRunId": "no-such-run"}), http.StatusNotFound)

	// Metrics match the queue while it tests.
	h.waitFor("metrics to match the queue", func() bool {
		fams := h.scrape()
		q := h.sessionObject("getQueue", sessionBody(nil))
		return metricValue(fams, "mq_depth_current", nil) == float64(len(q["enqueuedPullRequests"].([]any))) &&
			metricValue(fams, "mq_awaiting_mergeability", nil) == 0 &&
			metricValue(fams, "mq_testing_slots_active", map[string]string{"queue_type": "main"}) == 2
	}, func() string { return fmt.Sprint(h.scrape()["mq_testing_slots_active"]) })

	// A mode change while tests run switches modes (updateQueue answers the
	// state the queue returns to, getQueue shows the switch); changing back
	// cancels.
	q = h.sessionObject("updateQueue", sessionBody(map[string]any{"mode": "parallel"}))
	if q["state"] != "running" || q["mode"] != "parallel" {
		t.Errorf("mode change while testing: answered state %v mode %v, want running parallel", q["state"], q["mode"])
	}
	q = h.sessionObject("getQueue", sessionBody(nil))
	if q["state"] != "switching_modes" || q["mode"] != "parallel" {
		t.Errorf("mode change while testing: getQueue shows state %v mode %v, want switching_modes parallel", q["state"], q["mode"])
	}
	q = h.sessionObject("updateQueue", sessionBody(map[string]any{"mode": "single", "state": "switching_modes"}))
	if q["state"] != "running" || q["mode"] != "single" {
		t.Errorf("switch cancelled: state %v mode %v, want running single", q["state"], q["mode"])
	}

	// Everything merges.
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	for _, pr := range []int{p1, p2, p3} {
		h.waitState(pr, "merged")
	}

	// List with paging, newest first.
	page := h.sessionObject("listPullRequests", sessionBody(map[string]any{"take": 2}))
	first := prNumbers(page["pullRequests"])
	cursor, ok := page["nextCursor"].(string)
	if len(first) != 2 || !ok {
		t.Fatalf("first page %v cursor %v", first, page["nextCursor"])
	}
	page = h.sessionObject("listPullRequests", sessionBody(map[string]any{"take": 2, "cursor": cursor}))
	second := prNumbers(page["pullRequests"])
	if _, more := page["nextCursor"]; more || len(second) != 1 {
		t.Errorf("second page %v, nextCursor %v", second, page["nextCursor"])
	}
	if got := fmt.Sprint(append(first, second...)); got != fmt.Sprint([]int{p1, p3, p2}) {
		t.Errorf("listing %s, want [%d %d %d] (latest merge first)", got, p1, p3, p2)
	}
	merged := h.sessionObject("listPullRequests", sessionBody(map[string]any{"state": []string{"MERGED", "failed"},
		"since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}))
	if got := len(merged["pullRequests"].([]any)); got != 3 {
		t.Errorf("%d merged or failed in the last hour, want 3", got)
	}
	h.sessionStatus("listPullRequests", sessionBody(map[string]any{"since": "last week"}), http.StatusBadRequest)
	h.sessionStatus("restartTestsOnPullRequest", sessionBody(map[string]any{"pr": map[string]any{"number": p1}}), http.StatusBadRequest)

	// Metrics after: three conclusions, nothing left.
	fams = h.scrape()
	for name, want := range map[string]float64{"mq_depth_current": 0, "mq_awaiting_mergeability": 0,
		"mq_pr_time_in_queue_1h_seconds": 3, "mq_pr_wait_duration_1h_seconds": 3, "mq_pr_test_duration_1h_seconds": 3} {
		if got := metricValue(fams, name, nil); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := metricValue(fams, "mq_pr_conclusions_1h", map[string]string{"conclusion": "merged"}); got != 3 {
		t.Errorf("merged conclusions = %v, want 3", got)
	}

	// Delete once empty; again is 200; the queue is gone.
	for range 2 {
		if out := string(h.mustPost("deleteQueue", sessionBody(nil))); out != "{}" {
			t.Errorf("deleteQueue answered %s", out)
		}
	}
	h.sessionStatus("getQueue", sessionBody(nil), http.StatusNotFound)
}
