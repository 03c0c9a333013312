package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// shiftedClock is the real clock plus an offset a test moves forward, so
// the app reaches a timeout without the test waiting for it.
type shiftedClock struct{ offset atomic.Int64 }

func (c *shiftedClock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *shiftedClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
func (h *harness) queueState() (state string)   { return h.queueField("state").(string) }
func (h *harness) queueField(name string) (v any) {
	h.t.Helper()
	var q map[string]any
	if err := json.Unmarshal(h.mustPost("getQueue", map[string]any{"repo": repoBody(), "targetBranch": "main"}), &q); err != nil {
		h.t.Fatal(err)
	}
	return q[name]
}

// A test run whose required check never appears is tested once more on a
// new test commit; when the check does not appear again, the PR goes back
// to pending without blame, the queue pauses its new runs and alerts (log,
// metric, notification, dashboard banner) naming the check and the branch;
// once CI works and the queue runs again, the PR merges (issue #19 item 1).
func TestChecksThatNeverStartRetryOnceThenPauseTheQueue(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var notified []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			mu.Lock()
			notified = append(notified, m)
			mu.Unlock()
		}
	}))
	defer srv.Close()
	clock := &shiftedClock{}
	// Branch protection requires ci/test; the CI only ever reports ci/other.
	h := newHarnessWith(t, Options{CI: fakegithub.CIOptions{Contexts: []string{"ci/other"}}, Now: clock.Now,
		Notifications: []app.NotificationTarget{{URL: srv.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Kind: app.NotifyWebhook}}})
	h.createQueue(1)
	pr := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(pr)
	first := h.waitState(pr, "testing")
	firstBranch := h.testBranch(pr)

	clock.Advance(11 * time.Minute)
	var retried submitted
	h.waitFor("a second run on a new test commit", func() bool {
		retried, _ = h.entry(pr)
		return retried.State == "testing" && retried.TestRunID != "" && retried.TestRunID != first.TestRunID
	}, func() string { return "last: " + retried.State + " " + retried.StateReasonDetail })
	h.waitFor("the first test branch to be deleted", func() bool {
		for _, b := range h.env.Fake.Branches(owner, repo) {
			if b == firstBranch {
				return false
			}
		}
		return true
	}, nil)
	secondBranch := h.testBranch(pr)
	if h.queueState() != "running" {
		t.Fatalf("queue %s after the first silent run; want running", h.queueState())
	}

	clock.Advance(11 * time.Minute)
	var paused submitted
	h.waitFor("the PR back in pending, the queue paused", func() bool {
		paused, _ = h.entry(pr)
		return paused.State == "pending" && paused.StateReason == "checks_not_started" && h.queueState() == "paused"
	}, func() string {
		return "last: " + paused.State + " " + paused.StateReason + " " + paused.StateReasonDetail
	})
	for _, want := range []string{`"ci/test"`, secondBranch, "not a failure of this PR"} {
		if !strings.Contains(paused.StateReasonDetail, want) {
			t.Errorf("detail %q does not say %q", paused.StateReasonDetail, want)
		}
	}
	if _, page := h.get("/"); !strings.Contains(page, "CI is not starting") || !strings.Contains(page, secondBranch) {
		t.Errorf("the dashboard shows no banner naming the silent CI and %s", secondBranch)
	}
	fams := h.processMetrics()
	counts := map[string]float64{}
	for _, m := range fams["mq_checks_not_started_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "outcome" {
				counts[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	if counts["retried"] != 1 || counts["paused"] != 1 {
		t.Errorf("mq_checks_not_started_total by outcome = %v, want retried 1, paused 1", counts)
	}
	h.waitFor("a notification saying why", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range notified {
			if m["reason"] == "checks_not_started" && strings.Contains(m["detail"].(string), secondBranch) {
				return true
			}
		}
		return false
	}, nil)

	// CI fixed (the check it does report is the required one) and the
	// queue set running: the PR, never failed, merges.
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"requiredStatuses": []string{"ci/other"}, "state": "running"})
	h.waitState(pr, "merged")
	if reason := h.queueField("state"); reason != "running" {
		t.Errorf("queue %v after the resume, want running", reason)
	}
	// The pause is a queue alert: notified once when raised (naming the
	// check and the branch), once when the queue runs again.
	alerts := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, m := range notified {
			if m["type"] == "queue_alert" && m["alert"] == "checks_not_starting" {
				out = append(out, m["action"].(string))
				if m["action"] == "raised" && (!strings.Contains(m["detail"].(string), secondBranch) || !strings.Contains(m["detail"].(string), "ci/test")) {
					t.Errorf("the raised alert %v does not name ci/test and %s", m, secondBranch)
				}
			}
		}
		return out
	}
	h.waitFor("the CI alert raised and cleared", func() bool { return len(alerts()) == 2 }, func() string { return strings.Join(alerts(), " ") })
	if got := strings.Join(alerts(), " "); got != "raised cleared" {
		t.Errorf("checks_not_starting alerts %q, want raised cleared", got)
	}
}

// Only silent runs in a row pause the queue: a run whose checks started in
// between (here, one that failed and is retried) makes the next silent run
// a first time again, tested once more instead of pausing the queue.
func TestChecksThatStartedInBetweenResetTheCount(t *testing.T) {
	t.Parallel()
	clock := &shiftedClock{}
	var mu sync.Mutex
	silent := map[int]bool{1: true, 3: true} // the CI ignores the 1st and 3rd test branches
	pushes := 0
	h := newHarnessWith(t, Options{Now: clock.Now, CI: fakegithub.CIOptions{Silent: func(branch, _ string) bool {
		mu.Lock()
		defer mu.Unlock()
		pushes++
		return silent[pushes]
	}}})
	h.createQueueWith(func(s *queue.Settings) { s.CheckRetries, s.CheckRetryBudgetPercent = 1, 100 })
	h.env.Fake.SetCIHold(true)
	pr := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(pr)
	first := h.waitState(pr, "testing")
	clock.Advance(11 * time.Minute)
	h.waitFor("the second run", func() bool {
		s, _ := h.entry(pr)
		return s.State == "testing" && s.TestRunID != first.TestRunID
	}, nil)
	h.completeRunOf(pr, false) // its checks started, and failed: tried again
	if s := h.waitState(pr, "pending"); s.StateReason != "retrying_failed_check" {
		t.Fatalf("#%d: %+v; want a retry of the failed check", pr, s)
	}
	third := h.waitState(pr, "testing")
	clock.Advance(11 * time.Minute)
	var last submitted
	h.waitFor("the silent third run to be tested once more", func() bool {
		last, _ = h.entry(pr)
		return last.TestRunID != third.TestRunID && (last.State == "testing" || last.StateReason == "checks_not_started")
	}, func() string { return last.State + " " + last.StateReason })
	if last.StateReason == "checks_not_started" || h.queueState() != "running" {
		t.Errorf("#%d: %+v, queue %s; a silent run after one whose checks started must be retried, not pause the queue",
			pr, last, h.queueState())
	}
}
