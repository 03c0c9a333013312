package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// With testingTimeoutFromHistory, once five runs succeeded (in
// milliseconds here) a run times out after the floor, 10 minutes, instead
// of testingTimeoutMinutes' 60; the moment it times out shows in
// getSubmittedPullRequest, the testing details, the check run and the
// dashboard, and the failure says where the timeout came
// from (issue #19 item 2).
func TestTestingTimeoutFromHistoryIsShownAndApplied(t *testing.T) {
	t.Parallel()
	clock := &shiftedClock{}
	h := newHarnessWith(t, Options{CI: fakegithub.CIOptions{}, Now: clock.Now})
	h.createQueue(1)
	h.mustPost("updateQueue", map[string]any{"repo": repoBody(), "targetBranch": "main", "testingTimeoutFromHistory": true})
	for i := 0; i < 5; i++ {
		pr := h.openPR(fmt.Sprintf("warm%d", i), map[string]string{fmt.Sprintf("warm%d.txt", i): "1\n"})
		h.submit(pr)
		h.waitState(pr, "merged")
	}
	h.env.Fake.SetCIHold(true)
	pr := h.openPR("slow", map[string]string{"slow.txt": "1\n"})
	h.submit(pr)
	testing := h.waitState(pr, "testing")

	var sub struct {
		TestingTimesOutAt string `json:"testingTimesOutAt"`
	}
	if err := json.Unmarshal(h.mustPost("getSubmittedPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"pr": map[string]any{"number": pr}}), &sub); err != nil {
		t.Fatal(err)
	}
	var details struct {
		CreatedAt  string `json:"createdAt"`
		TimesOutAt string `json:"timesOutAt"`
	}
	if err := json.Unmarshal(h.mustPost("getMergeQueueTestingDetails", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"testRunId": testing.TestRunID}), &details); err != nil {
		t.Fatal(err)
	}
	created, err1 := time.Parse(time.RFC3339, details.CreatedAt)
	timesOut, err2 := time.Parse(time.RFC3339, details.TimesOutAt)
	if err1 != nil || err2 != nil || sub.TestingTimesOutAt != details.TimesOutAt {
		t.Fatalf("timesOutAt %q (testing details) and %q (getSubmittedPullRequest), created %q: %v %v",
			details.TimesOutAt, sub.TestingTimesOutAt, details.CreatedAt, err1, err2)
	}
	if d := timesOut.Sub(created); d < 10*time.Minute || d > 11*time.Minute {
		t.Errorf("the run times out %v after it was created, want the 10-minute floor", d)
	}
	// The check run rounds the moment up to the minute; the API gives it
	// to the second, so a moment at :00 and a fraction shows a minute
	// later than the whole second rounds to.
	ceil := func(t time.Time) string {
		if r := t.Truncate(time.Minute); r.Before(t) {
			t = r.Add(time.Minute)
		}
		return t.UTC().Format("15:04 UTC")
	}
	shown, shownLater := ceil(timesOut), ceil(timesOut.Add(time.Second-time.Nanosecond))
	// Testing having started is shown at most five minutes after the PR's
	// last informational edit.
	clock.Advance(5*time.Minute + time.Second)
	h.waitFor("the check run to show when the run times out", func() bool {
		title := h.checkRunTitle(pr)
		return strings.Contains(title, "times out "+shown) || strings.Contains(title, "times out "+shownLater)
	}, func() string { return h.checkRunTitle(pr) })
	if _, page := h.get("/"); !strings.Contains(page, "times out "+timesOut.UTC().Format("2006-01-02 15:04")) {
		t.Errorf("the dashboard does not show when the run times out (%s)", timesOut.UTC().Format("2006-01-02 15:04"))
	}

	clock.Advance(6 * time.Minute)
	failed := h.waitState(pr, "failed")
	if failed.StateReason != "test_timeout" || !strings.Contains(failed.StateReasonDetail, "within 10 minutes (the p95 of the queue's recent successful runs") {
		t.Errorf("#%d ended %+v, want test_timeout after 10 minutes from the history", pr, failed)
	}
}
