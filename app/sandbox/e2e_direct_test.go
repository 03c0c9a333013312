package sandbox

import (
	"context"
	"net/url"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// With directMergeMode always, an up-to-date PR whose required checks passed
// on its own head merges without a test run; one without them is tested.
func TestDirectMerge(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})
	h.createQueueWith(func(s *queue.Settings) { s.DirectMergeMode = queue.DirectMergeAlways })
	p1 := h.openPR("ready", map[string]string{"one.txt": "1\n"})
	pr, err := h.env.Fake.PR(owner, repo, p1)
	if err != nil {
		t.Fatal(err)
	}
	gh := github.NewClient(testHTTP).WithAuthToken(h.env.Fake.IssueToken())
	gh.BaseURL, _ = url.Parse(h.env.Fake.URL() + "/")
	if _, _, err := gh.Repositories.CreateStatus(context.Background(), owner, repo, pr.GetHead().GetSHA(),
		&github.RepoStatus{State: github.String("success"), Context: github.String("ci/test")}); err != nil {
		t.Fatal(err)
	}
	h.submit(p1)
	h.waitState(p1, "merged")
	if n := len(h.env.Fake.CIRuns()); n != 0 {
		t.Errorf("%d test runs for a direct merge, want 0", n)
	}
	tree, _ := h.env.Fake.TreeSHA(owner, repo, "main")
	if headTree, _ := h.env.Fake.TreeSHA(owner, repo, pr.GetHead().GetSHA()); tree != headTree {
		t.Errorf("main's tree %s is not the PR head's %s", tree, headTree)
	}

	p2 := h.openPR("unchecked", map[string]string{"two.txt": "2\n"})
	h.submit(p2)
	h.waitState(p2, "merged")
	if n := len(h.env.Fake.CIRuns()); n != 1 {
		t.Errorf("%d test runs, want 1 for the PR without passing checks", n)
	}
}
