package sandbox

import (
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// A draft PR labelled with the enqueue label waits in not_ready ("the pull
// request is a draft") instead of being cancelled, and merges once it is
// marked ready for review (SPEC §3, issue #19).
func TestDraftPRWaitsInNotReadyUntilReadyForReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueue(1)
	if err := h.env.Fake.SetPermission(owner, repo, "alice", "write"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.env.Fake.Commit(owner, repo, "draft", map[string]string{"d.txt": "d\n"}, "draft change"); err != nil {
		t.Fatal(err)
	}
	pr, err := h.env.Fake.OpenPR(owner, repo, fakegithub.PROptions{Head: "draft", Base: "main", Title: "Draft", Author: "dev", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.env.Fake.AddLabel(owner, repo, pr, "alice", "merge-queue"); err != nil {
		t.Fatal(err)
	}
	var last submitted
	h.waitFor("the draft to wait in not_ready", func() bool {
		s, ok := h.entry(pr)
		last = s
		if ok && s.State == "cancelled" {
			t.Fatalf("the draft was cancelled: %+v", s)
		}
		return ok && s.State == "not_ready" && s.StateReasonDetail == "the pull request is a draft"
	}, func() string { return "last: " + last.State + " " + last.StateReasonDetail })
	if err := h.env.Fake.SetDraft(owner, repo, pr, "dev", false); err != nil {
		t.Fatal(err)
	}
	h.waitState(pr, "merged")
}
