package sandbox

import (
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// Three PRs (two by REST, one by /mq merge), concurrency 2, CI passes: all
// merge in submission order and every landed tree passed CI.
func TestThreePRsMergeInOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(2)
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	p3 := h.openPR("three", map[string]string{"three.txt": "3\n"})
	initial := len(h.mainCommits())

	h.submit(p1)
	if _, err := h.env.Fake.Comment(owner, repo, p2, "alice", "Looks good.\n/mq merge"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("#2 to be submitted by comment", func() bool { _, ok := h.entry(p2); return ok }, nil)
	h.submit(p3)

	for _, pr := range []int{p1, p2, p3} {
		h.waitState(pr, "merged")
	}
	commits := h.mainCommits()
	i1, i2, i3 := indexOf(commits, h.mergeCommit(p1)), indexOf(commits, h.mergeCommit(p2)), indexOf(commits, h.mergeCommit(p3))
	if i1 < 0 || !(i1 < i2 && i2 < i3) {
		t.Errorf("merge order on main: #%d at %d, #%d at %d, #%d at %d; want submission order", p1, i1, p2, i2, p3, i3)
	}
	if got := len(commits) - initial; got != 3 {
		t.Errorf("main gained %d commits, want 3", got)
	}
	h.assertLandedTreesPassed(initial)
	for _, f := range []string{"one.txt", "two.txt", "three.txt"} {
		if _, ok, _ := h.env.Fake.FileAt(owner, repo, "main", f); !ok {
			t.Errorf("main lacks %s", f)
		}
	}
	if n := len(h.env.Fake.Reactions(lastCommentID(t, h, p2, "alice"))); n == 0 {
		t.Errorf("the /mq merge comment got no reaction")
	}
}

// The middle PR fails CI: it fails with tests_failed and a comment, the
// others merge, and no landed tree ever contained its change.
func TestMiddlePRFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(2)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("bad", map[string]string{"FAIL": "boom\n"})
	p3 := h.openPR("three", map[string]string{"three.txt": "3\n"})
	initial := len(h.mainCommits())
	h.submit(p1)
	h.submit(p2)
	h.submit(p3)

	h.waitState(p1, "merged")
	h.waitState(p3, "merged")
	failed := h.waitState(p2, "failed")
	if failed.StateReason != "tests_failed" || !strings.Contains(failed.StateReasonDetail, "ci/test") {
		t.Errorf("#%d ended %+v, want tests_failed naming ci/test", p2, failed)
	}
	for _, c := range h.mainCommits() {
		if _, ok, _ := h.env.Fake.FileAt(owner, repo, c, "FAIL"); ok {
			t.Errorf("main commit %s contains the failing PR's change", c)
		}
	}
	h.assertLandedTreesPassed(initial)
	h.waitFor("a failure comment mentioning the author", func() bool {
		for _, c := range h.env.Fake.Comments(owner, repo, p2) {
			if strings.Contains(c.GetBody(), "@dev") && strings.Contains(c.GetBody(), "tests_failed") {
				return true
			}
		}
		return false
	}, nil)
}

// A PR force-pushed while testing is cancelled (pr_pushed) and its old head
// is never merged.
func TestForcePushWhileTesting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueue(1)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	before, _ := h.env.Fake.BranchSHA(owner, repo, "main")
	h.submit(p1)
	h.waitState(p1, "testing")
	if _, err := h.env.Fake.ForcePushPR(owner, repo, p1, map[string]string{"one.txt": "rewritten\n"}); err != nil {
		t.Fatal(err)
	}
	got := h.waitState(p1, "cancelled")
	if got.StateReason != "pr_pushed" {
		t.Errorf("reason %q, want pr_pushed", got.StateReason)
	}
	h.env.Fake.ReleaseCI()
	after, _ := h.env.Fake.BranchSHA(owner, repo, "main")
	if before != after || h.mergeCommit(p1) != "" {
		t.Errorf("main moved from %s to %s / PR merged; the old head must never merge", before, after)
	}
}

// Two PRs editing the same line: the second fails with merge_conflict.
func TestConflictingPRs(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(2)
	p1 := h.openPR("en", map[string]string{"a.txt": "1\ntwo\n3\n"})
	p2 := h.openPR("fr", map[string]string{"a.txt": "1\ndeux\n3\n"})
	h.submit(p1)
	h.submit(p2)
	h.waitState(p1, "merged")
	got := h.waitState(p2, "failed")
	if got.StateReason != "merge_conflict" {
		t.Errorf("#%d reason %q, want merge_conflict", p2, got.StateReason)
	}
	if v, _, _ := h.env.Fake.FileAt(owner, repo, "main", "a.txt"); v != "1\ntwo\n3\n" {
		t.Errorf("main a.txt = %q", v)
	}
}

// A commenter with read permission queues nothing and gets a polite reply.
func TestReadOnlyCommenterRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	if err := h.env.Fake.SetPermission(owner, repo, "reader", "read"); err != nil {
		t.Fatal(err)
	}
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	if _, err := h.env.Fake.Comment(owner, repo, p1, "reader", "/mq merge"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("a refusal reply", func() bool {
		for _, c := range h.env.Fake.Comments(owner, repo, p1) {
			if c.GetUser().GetLogin() == fakegithub.BotLogin && strings.Contains(c.GetBody(), "@reader") {
				return true
			}
		}
		return false
	}, nil)
	if _, ok := h.entry(p1); ok {
		t.Errorf("a read-only commenter queued #%d", p1)
	}
}

func lastCommentID(t *testing.T, h *harness, pr int, user string) int64 {
	t.Helper()
	var id int64
	for _, c := range h.env.Fake.Comments(owner, repo, pr) {
		if c.GetUser().GetLogin() == user {
			id = c.GetID()
		}
	}
	if id == 0 {
		t.Fatalf("no comment by %s on #%d", user, pr)
	}
	return id
}
