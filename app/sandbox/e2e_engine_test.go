package sandbox

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

var mainKey = queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: repo}, Branch: "main"}

// createQueueWith creates the main queue with settings adjusted by fn.
func (h *harness) createQueueWith(fn func(*queue.Settings)) {
	h.t.Helper()
	st := queue.DefaultSettings()
	fn(&st)
	if _, err := h.env.App().Service().CreateQueue(context.Background(), mainKey, st); err != nil {
		h.t.Fatal(err)
	}
}

// setQueueState changes the queue's state through the store and wakes it.
func (h *harness) setQueueState(state queue.QueueState) {
	h.t.Helper()
	ctx := context.Background()
	store := h.env.App().Store()
	q, err := store.GetQueue(ctx, mainKey)
	if err != nil {
		h.t.Fatal(err)
	}
	q.State = state
	if err := store.UpdateQueue(ctx, q); err != nil {
		h.t.Fatal(err)
	}
	h.env.App().Service().Wake(q.ID)
}

func (h *harness) submitWith(pr int, priority string) {
	h.mustPost("submitPullRequest", map[string]any{"repo": repoBody(), "targetBranch": "main",
		"pr": map[string]any{"number": pr}, "priority": priority})
}

// A batch of 4 with one culprit is bisected: the three others merge, the
// culprit fails, and no landed tree contains it.
func TestBatchBisection(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	// No batching wait: the batch forms when the paused queue resumes with
	// all four waiting, and the entries left after bisection go on at once.
	h.createQueueWith(func(s *queue.Settings) {
		s.Concurrency, s.Batch, s.BatchingMinSize, s.BatchingMaxWaitTimeMinutes = 1, true, 4, 0
	})
	h.setQueueState(queue.QueuePaused)
	var prs []int
	for i, f := range []string{"a1.txt", "a2.txt", "FAIL", "a4.txt"} {
		prs = append(prs, h.openPR("b"+string(rune('1'+i)), map[string]string{f: "x\n"}))
	}
	initial := len(h.mainCommits())
	for _, pr := range prs {
		h.submit(pr)
	}
	for _, pr := range prs {
		h.waitFor("all four to wait for the paused queue", func() bool {
			s, ok := h.entry(pr)
			return ok && s.State == "not_ready" && s.StateReasonDetail == "the queue is paused"
		}, nil)
	}
	h.setQueueState(queue.QueueRunning)
	for _, pr := range prs {
		h.waitState(pr, "testing")
	}
	if n := len(h.env.Fake.PendingCI()); n != 1 {
		t.Fatalf("%d CI runs for a batch of 4, want 1", n)
	}
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()

	for _, pr := range []int{prs[0], prs[1], prs[3]} {
		h.waitState(pr, "merged")
	}
	if got := h.waitState(prs[2], "failed"); got.StateReason != "tests_failed" {
		t.Errorf("culprit reason %q, want tests_failed", got.StateReason)
	}
	bisection := 0
	for _, r := range h.env.Fake.CIRuns() {
		if len(r.Branch) > len("-bisection") && r.Branch[len(r.Branch)-len("-bisection"):] == "-bisection" {
			bisection++
		}
	}
	if bisection == 0 {
		t.Errorf("no bisection run (branch ending in -bisection) among %v", h.env.Fake.CIRuns())
	}
	for _, c := range h.mainCommits() {
		if _, ok, _ := h.env.Fake.FileAt(owner, repo, c, "FAIL"); ok {
			t.Errorf("main commit %s contains the culprit", c)
		}
	}
	if got := len(h.mainCommits()) - initial; got != 3 {
		t.Errorf("main gained %d commits, want 3", got)
	}
}

// An urgent PR pre-empts the runs in progress and merges first.
func TestUrgentPreemption(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueueWith(func(s *queue.Settings) { s.Concurrency = 2 })
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	p3 := h.openPR("hotfix", map[string]string{"fix.txt": "!\n"})
	h.submit(p1)
	h.submit(p2)
	h.waitState(p1, "testing")
	h.waitState(p2, "testing")
	h.submitWith(p3, "urgent")
	h.waitState(p3, "testing")
	for _, pr := range []int{p1, p2} {
		s, _ := h.entry(pr)
		if s.State == "testing" && s.StateReason != "testing" {
			t.Errorf("#%d: %+v", pr, s)
		}
	}
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	for _, pr := range []int{p1, p2, p3} {
		h.waitState(pr, "merged")
	}
	commits := h.mainCommits()
	i1, i2, i3 := indexOf(commits, h.mergeCommit(p1)), indexOf(commits, h.mergeCommit(p2)), indexOf(commits, h.mergeCommit(p3))
	if !(i3 < i1 && i1 < i2) {
		t.Errorf("merge order: urgent #%d at %d, #%d at %d, #%d at %d; want the urgent first", p3, i3, p1, i1, p2, i2)
	}
	h.assertLandedTreesPassed(len(commits) - 3)
}

// A paused queue merges nothing until resumed.
func TestPausedQueueMergesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueueWith(func(s *queue.Settings) { s.Concurrency = 1 })
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	h.submit(p1)
	h.waitState(p1, "testing")
	h.setQueueState(queue.QueuePaused)
	before, _ := h.env.Fake.BranchSHA(owner, repo, "main")
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	h.waitState(p1, "tests_passed")
	// Settled: the run passed and its result was kept, but nothing merged.
	h.env.App().Service().Wake(1)
	if after, _ := h.env.Fake.BranchSHA(owner, repo, "main"); after != before || h.mergeCommit(p1) != "" {
		t.Fatalf("a paused queue merged #%d", p1)
	}
	h.setQueueState(queue.QueueRunning)
	h.waitState(p1, "merged")
}

// A flaky failure is vouched for by a passing successor with optimistic
// merging on, and both PRs merge.
func TestFlakeVouchedByOptimisticMerge(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueueWith(func(s *queue.Settings) {
		s.Concurrency, s.CanOptimisticallyMerge, s.PendingFailureDepth = 2, true, 1
	})
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	h.submit(p1)
	h.submit(p2)
	h.waitState(p1, "testing")
	h.waitState(p2, "testing")
	pending := h.env.Fake.PendingCI()
	if len(pending) != 2 {
		t.Fatalf("%d CI runs pending, want 2", len(pending))
	}
	// The first run (#1 alone) flakes; the second (#1 + #2) passes.
	if err := h.env.Fake.CompleteCI(owner+"/"+repo, pending[0].SHA, false); err != nil {
		t.Fatal(err)
	}
	if err := h.env.Fake.CompleteCI(owner+"/"+repo, pending[1].SHA, true); err != nil {
		t.Fatal(err)
	}
	h.waitState(p1, "merged")
	h.waitState(p2, "merged")
	// The tree that landed last is the one that passed.
	commits := h.mainCommits()
	tree, _ := h.env.Fake.TreeSHA(owner, repo, commits[len(commits)-1])
	if !h.passedTrees()[tree] {
		t.Errorf("the final tree %s did not pass CI", tree)
	}
}
