package sandbox

import "github.com/mergequeue/mq/queue"

// retryPair is the start of a check retried in place: a queue that retries
// a failed check once (concurrency 2, all the budget), CI held, and PR
// flaky testing ahead of PR behind.
type retryPair struct {
	flaky, behind int
	// initial is how many commits main had before.
	initial int
}

// flakyAheadOfBehind sets up a retryPair.
func (h *harness) flakyAheadOfBehind() retryPair {
	h.t.Helper()
	h.createQueueWith(func(s *queue.Settings) { s.Concurrency, s.CheckRetries, s.CheckRetryBudgetPercent = 2, 1, 100 })
	h.env.Fake.SetCIHold(true)
	p := retryPair{flaky: h.openPR("flaky", map[string]string{"flaky.txt": "1\n"}),
		behind: h.openPR("behind", map[string]string{"behind.txt": "2\n"})}
	p.initial = len(h.mainCommits())
	h.submit(p.flaky)
	h.waitState(p.flaky, "testing")
	h.submit(p.behind)
	h.waitState(p.behind, "testing")
	return p
}

// mergedInOrder waits for both PRs to merge and checks that the retried one
// kept its place ahead of the other, with one commit each on main.
func (h *harness) mergedInOrder(p retryPair) {
	h.t.Helper()
	h.waitState(p.flaky, "merged")
	h.waitState(p.behind, "merged")
	commits := h.mainCommits()
	if i1, i2 := indexOf(commits, h.mergeCommit(p.flaky)), indexOf(commits, h.mergeCommit(p.behind)); i1 < 0 || i1 > i2 {
		h.t.Errorf("#%d merged at %d, #%d at %d: the retried PR lost its place", p.flaky, i1, p.behind, i2)
	}
	if got := len(commits) - p.initial; got != 2 {
		h.t.Errorf("main gained %d commits, want 2", got)
	}
}
