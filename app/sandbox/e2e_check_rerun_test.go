package sandbox

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// actionsCI is a CI of GitHub Actions whose one job, ci/test, is a check
// run (no commit status): a failed job can be re-run in place.
var actionsCI = fakegithub.CIOptions{Actions: true, Contexts: []string{}, CheckRuns: []string{"ci/test"}}

// checkRunURL matches the page of a check run of the fake GitHub.
var checkRunURL = regexp.MustCompile(`/runs/\d+`)

// waitDetail waits for PR pr to be in state with a detail containing part.
func (h *harness) waitDetail(pr int, state, part string) submitted {
	h.t.Helper()
	var last submitted
	h.waitFor(fmt.Sprintf("#%d to be %s with %q", pr, state, part), func() bool {
		s, ok := h.entry(pr)
		last = s
		return ok && s.State == state && strings.Contains(s.StateReasonDetail, part)
	}, func() string { return fmt.Sprintf("last: %+v", last) })
	return last
}

// ciRunsOf are the CI runs of PR pr's test branches (the units it leads).
func (h *harness) ciRunsOf(pr int) []fakegithub.CIRun {
	var out []fakegithub.CIRun
	for _, r := range h.env.Fake.CIRuns() {
		if strings.HasPrefix(r.Branch, fmt.Sprintf("mq-merge/pr-%d/", pr)) {
			out = append(out, r)
		}
	}
	return out
}

// A GitHub Actions job that fails once is re-run on the same test commit
// (rerun-failed-jobs), no new commit: the PR keeps its place, shows
// "attempt 2 of 2" while the job runs again, and merges ahead of the PR
// behind it when it passes (issue #19 item 3).
func TestFailedActionsJobIsRerunOnTheSameCommit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, actionsCI)
	pair := h.flakyAheadOfBehind()
	p1, p2 := pair.flaky, pair.behind

	first := h.completeRunOf(p1, false)
	retry := h.waitDetail(p1, "testing", "attempt 2 of 2")
	if retry.StateReason != "retrying_failed_check" || !strings.Contains(retry.StateReasonDetail, "same test commit") {
		t.Errorf("#%d after its job failed: %+v; want retrying_failed_check on the same test commit", p1, retry)
	}
	h.waitFor("the failed job re-run", func() bool {
		runs := h.ciRunsOf(p1)
		return len(runs) == 1 && runs[0].Attempt == 2 && runs[0].Result == ""
	}, func() string { return fmt.Sprint(h.ciRunsOf(p1)) })
	h.completeRunOf(p2, true)
	second := h.completeRunOf(p1, true)
	if second.SHA != first.SHA || second.ID != first.ID {
		t.Errorf("attempt 2 ran as CI run %d on %s; want the re-run of run %d on %s", second.ID, second.SHA, first.ID, first.SHA)
	}
	h.mergedInOrder(pair)
	if runs := h.ciRunsOf(p1); len(runs) != 1 {
		t.Errorf("#%d was tested by %d CI runs %v; want one (no new test commit)", p1, len(runs), runs)
	}
	if n := h.env.Fake.Calls("POST /repos/{owner}/{repo}/actions/runs/{id}/rerun-failed-jobs"); n != 1 {
		t.Errorf("rerun-failed-jobs called %d times, want 1", n)
	}
}

// Where the App may not re-run jobs (no actions: write), the failed job's
// unit is tried again on a new test commit instead, and the refusal is
// remembered: the next failure asks GitHub no more.
func TestRerunRefusedFallsBackToANewTestCommit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, actionsCI)
	h.createQueueWith(func(s *queue.Settings) { s.CheckRetries, s.CheckRetryBudgetPercent = 1, 100 })
	h.env.Fake.RefusePermission("actions")
	h.env.Fake.SetCIHold(true)
	const rerun = "POST /repos/{owner}/{repo}/actions/runs/{id}/rerun-failed-jobs"
	for i, name := range []string{"one", "two"} {
		p := h.openPR(name, map[string]string{name + ".txt": "1\n"})
		h.submit(p)
		h.waitState(p, "testing")
		first := h.completeRunOf(p, false)
		retry := h.waitDetail(p, "pending", "attempt 2 of 2")
		if retry.StateReason != "retrying_failed_check" || !strings.Contains(retry.StateReasonDetail, "new test commit") {
			t.Errorf("#%d after its job failed: %+v; want a retry on a new test commit", p, retry)
		}
		second := h.completeRunOf(p, true)
		if second.SHA == first.SHA {
			t.Errorf("#%d: the fallback ran on the failed commit %s; want a new test commit", p, first.SHA)
		}
		h.waitState(p, "merged")
		if n := h.env.Fake.Calls(rerun); n != 1 {
			t.Errorf("after failure %d: rerun-failed-jobs called %d times, want 1 (the refusal remembered)", i+1, n)
		}
	}
}

// A job that fails on its re-run too fails the PR, with both attempts'
// check runs linked, still on one test commit.
func TestActionsJobFailingTwiceFailsWithBothAttemptsLinked(t *testing.T) {
	t.Parallel()
	h := newHarness(t, actionsCI)
	h.createQueueWith(func(s *queue.Settings) { s.CheckRetries, s.CheckRetryBudgetPercent = 1, 100 })
	h.env.Fake.SetCIHold(true)
	p := h.openPR("broken", map[string]string{"broken.txt": "1\n"})
	h.submit(p)
	h.waitState(p, "testing")
	first := h.completeRunOf(p, false)
	h.waitDetail(p, "testing", "attempt 2 of 2")
	second := h.completeRunOf(p, false)
	failed := h.waitState(p, "failed")
	urls := checkRunURL.FindAllString(failed.StateReasonDetail, -1)
	if failed.StateReason != "tests_failed" || len(urls) != 2 || urls[0] == urls[1] || !strings.Contains(failed.StateReasonDetail, "attempt 2 of 2") {
		t.Errorf("#%d failed with %+v; want tests_failed linking both attempts' check runs", p, failed)
	}
	if second.SHA != first.SHA || len(h.ciRunsOf(p)) != 1 {
		t.Errorf("the attempts ran on %s and %s (%d CI runs); want one test commit", first.SHA, second.SHA, len(h.ciRunsOf(p)))
	}
}
