package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx/fakegithub"
)

// alertSink is a webhook notification endpoint keeping the queue alerts
// it receives ("<alert> <action>").
type alertSink struct {
	mu     sync.Mutex
	alerts []string
	detail []string
}

func (s *alertSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m map[string]any
	if json.Unmarshal(body, &m) != nil || m["type"] != "queue_alert" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.alerts = append(s.alerts, m["alert"].(string)+" "+m["action"].(string))
	s.detail = append(s.detail, m["detail"].(string))
}

func (s *alertSink) got() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.alerts...), append([]string(nil), s.detail...)
}

type waitingFor struct {
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Since  string `json:"since"`
	Check  string `json:"check"`
	Commit string `json:"commit"`
	PRs    []int  `json:"prs"`
}

func (h *harness) waitingFor(pr int) *waitingFor {
	h.t.Helper()
	var sub struct {
		WaitingFor *waitingFor `json:"waitingFor"`
	}
	if err := json.Unmarshal(h.mustPost("getSubmittedPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"pr": map[string]any{"number": pr}}), &sub); err != nil {
		h.t.Fatal(err)
	}
	return sub.WaitingFor
}

// getSubmittedPullRequest says what each PR waits for right now: the PR
// testing, a named check on its test commit since when; the PR behind, the
// test slot the PR ahead holds. A queue in which nothing happens for its
// stallAlertMinutes raises a stall alert (metrics, dashboard banner naming
// what the PRs wait for), which clears once the queue moves (issue #19
// item 5).
func TestWhatEachPRWaitsForAndTheStallAlert(t *testing.T) {
	t.Parallel()
	clock := &shiftedClock{}
	sink := &alertSink{}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	h := newHarnessWith(t, Options{CI: fakegithub.CIOptions{}, Now: clock.Now,
		Notifications: []app.NotificationTarget{{URL: srv.URL, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Kind: app.NotifyWebhook}}})
	h.createQueue(1)
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main", "stallAlertMinutes": 30,
		"testingTimeoutMinutes": 0})
	h.env.Fake.SetCIHold(true)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	h.submit(p1)
	h.waitState(p1, "testing")
	h.submit(p2)
	h.waitState(p2, "pending")

	var w1 *waitingFor
	h.waitFor("#1 to wait for ci/test in progress", func() bool {
		w1 = h.waitingFor(p1)
		return w1 != nil && w1.Reason == "checks"
	}, func() string { return spew(w1) })
	pending := h.env.Fake.PendingCI()
	if len(pending) != 1 || w1.Check != "ci/test" || w1.Commit != pending[0].SHA || w1.Since == "" ||
		!strings.Contains(w1.Detail, `required check "ci/test"`) {
		t.Errorf("#%d waits for %s; want ci/test on %v", p1, spew(w1), pending)
	}
	if w2 := h.waitingFor(p2); w2 == nil || w2.Reason != "test_slot" || len(w2.PRs) != 1 || w2.PRs[0] != p1 {
		t.Errorf("#%d waits for %s; want the test slot #%d holds", p2, spew(w2), p1)
	}

	stalled := func() float64 {
		for _, m := range h.processMetrics()["mq_queue_stalled"].GetMetric() {
			return m.GetGauge().GetValue()
		}
		return -1
	}
	h.waitFor("the stall gauge to read 0", func() bool { return stalled() == 0 }, nil)
	clock.Advance(31 * time.Minute)
	h.waitFor("the stall alert", func() bool { return stalled() == 1 }, nil)
	if n := sumOf(h.processMetrics()["mq_queue_stalls_total"]); n != 1 {
		t.Errorf("mq_queue_stalls_total = %v, want 1", n)
	}
	if _, page := h.get("/"); !strings.Contains(page, "Stalled: nothing has happened in the queue for 31 minutes") ||
		!strings.Contains(page, "ci/test") {
		t.Errorf("the dashboard shows no stall banner saying what #%d waits for", p1)
	}

	// The alert is recorded under the stall watch's role, whose hold
	// the jump of the clock outran: it is recorded once the role is
	// renewed (within 5 s), still saying what #1 waits for.
	h.waitFor("the stall alert raised", func() bool { a, _ := sink.got(); return len(a) >= 1 },
		func() string { a, _ := sink.got(); return strings.Join(a, ", ") })
	h.env.Fake.ReleaseCI()
	h.waitState(p1, "merged")
	h.waitFor("the stall to clear", func() bool { return stalled() == 0 }, nil)
	if w := h.waitingFor(p1); w != nil {
		t.Errorf("#%d, merged, still waits for %s", p1, spew(w))
	}
	// The stall is a queue alert, notified once raised (saying what #1
	// waits for) and once cleared.
	h.waitFor("the stall alert raised and cleared", func() bool { a, _ := sink.got(); return len(a) >= 2 },
		func() string { a, _ := sink.got(); return strings.Join(a, ", ") })
	alerts, details := sink.got()
	if strings.Join(alerts, ", ") != "stalled raised, stalled cleared" || !strings.Contains(details[0], "ci/test") {
		t.Errorf("queue alerts %q (%q); want the stall raised, naming ci/test, then cleared", alerts, details)
	}
}

func spew(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// When the installation's write budget holds the queue's writes back, a PR
// whose next step is a GitHub write says it waits for the budget, and when
// the next write may go (issue #19 item 5).
func TestWaitingForTheWriteBudget(t *testing.T) {
	t.Parallel()
	// Three writes per (hour-long) minute: the queue runs out of writes
	// before it can merge the PR.
	b := app.GitHubBudget{ConcurrentRequests: 100, PointsPerMinute: 1 << 20, WritesPerMinute: 3, WritesPerHour: 1 << 20,
		Minute: time.Hour, Hour: 2 * time.Hour}
	h := newHarnessWith(t, Options{CI: fakegithub.CIOptions{}, Budget: &b})
	h.createQueue(1)
	p := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(p)
	var w *waitingFor
	h.waitFor("#1 to wait for the write budget", func() bool {
		w = h.waitingFor(p)
		return w != nil && w.Reason == "write_budget"
	}, func() string { return spew(w) })
	if !strings.HasPrefix(w.Detail, "the GitHub write budget of this installation: next write in ~") || !strings.Contains(w.Detail, "min (for its") {
		t.Errorf("#%d waits for %s; want the write budget with the minutes to the next write", p, spew(w))
	}
}
