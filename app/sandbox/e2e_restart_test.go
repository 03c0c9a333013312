package sandbox

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// The process stops while two PRs are testing and CI finishes while it is
// down (those webhooks are lost); restarted on the same SQLite file, the
// queue resumes and merges both PRs exactly once.
func TestRestartMidTest(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.env.Fake.SetCIHold(true)
	h.createQueue(2)
	p1 := h.openPR("one", map[string]string{"one.txt": "1\n"})
	p2 := h.openPR("two", map[string]string{"two.txt": "2\n"})
	initial := len(h.mainCommits())
	h.submit(p1)
	h.submit(p2)
	h.waitState(p1, "testing")
	h.waitState(p2, "testing")

	if err := h.env.StopApp(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	h.env.Fake.SetCIHold(false)
	h.env.Fake.ReleaseCI()
	if err := h.env.RestartApp(context.Background()); err != nil {
		t.Fatalf("restart: %v", err)
	}

	h.waitState(p1, "merged")
	h.waitState(p2, "merged")
	if got := h.env.Fake.Calls("PUT /repos/{owner}/{repo}/pulls/{number}/merge"); got != 2 {
		t.Errorf("merge endpoint called %d times, want 2 (each PR once)", got)
	}
	if got := len(h.mainCommits()) - initial; got != 2 {
		t.Errorf("main gained %d commits, want 2", got)
	}
	h.assertLandedTreesPassed(initial)
}
