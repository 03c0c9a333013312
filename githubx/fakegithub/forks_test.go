package fakegithub

import (
	"testing"
)

// A PR from a fork reports the fork as its head repository, and a fork
// PR's own workflow run reports the fork as head_repository, event
// pull_request and no pull_requests, as GitHub does.
func TestForkPRAndItsWorkflowRun(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	sha := must(t)(s.Commit(testOwner, testRepo, "fix", map[string]string{"a.txt": "a"}, "a"))
	n, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "fix", Author: "forker", HeadRepo: "forker/" + testRepo})
	if err != nil {
		t.Fatal(err)
	}
	pr, _, err := c.PullRequests.Get(ctx, testOwner, testRepo, n)
	if err != nil {
		t.Fatal(err)
	}
	if got := pr.GetHead().GetRepo(); got.GetFullName() != "forker/"+testRepo || !got.GetFork() || got.GetOwner().GetLogin() != "forker" {
		t.Errorf("head.repo = %s (fork %v, owner %s), want the fork forker/%s", got.GetFullName(), got.GetFork(), got.GetOwner().GetLogin(), testRepo)
	}
	if pr.GetHead().GetLabel() != "forker:fix" || pr.GetHead().GetSHA() != sha || pr.GetBase().GetRepo().GetFullName() != testOwner+"/"+testRepo {
		t.Errorf("head label %q sha %s, base repo %s", pr.GetHead().GetLabel(), pr.GetHead().GetSHA(), pr.GetBase().GetRepo().GetFullName())
	}

	must(t)("", s.AddWorkflowRun(testOwner, testRepo, WorkflowRun{ID: 5, HeadSHA: sha, HeadBranch: "fix", Status: "in_progress",
		Event: "pull_request", HeadRepo: "forker/" + testRepo}))
	must(t)("", s.AddWorkflowRun(testOwner, testRepo, WorkflowRun{ID: 6, HeadSHA: sha, HeadBranch: "fix", Status: "queued",
		Event: "pull_request", PullRequests: []int{n}}))
	run, _, err := c.Actions.GetWorkflowRunByID(ctx, testOwner, testRepo, 5)
	if err != nil {
		t.Fatal(err)
	}
	if run.GetEvent() != "pull_request" || run.GetHeadRepository().GetFullName() != "forker/"+testRepo ||
		run.GetRepository().GetFullName() != testOwner+"/"+testRepo || len(run.PullRequests) != 0 || run.GetHeadBranch() != "fix" {
		t.Errorf("fork run: event %s head repo %s repo %s pull requests %d branch %s", run.GetEvent(),
			run.GetHeadRepository().GetFullName(), run.GetRepository().GetFullName(), len(run.PullRequests), run.GetHeadBranch())
	}
	run, _, err = c.Actions.GetWorkflowRunByID(ctx, testOwner, testRepo, 6)
	if err != nil {
		t.Fatal(err)
	}
	if run.GetHeadRepository().GetFullName() != testOwner+"/"+testRepo || len(run.PullRequests) != 1 || run.PullRequests[0].GetNumber() != n {
		t.Errorf("branch run: head repo %s, pull requests %v", run.GetHeadRepository().GetFullName(), run.PullRequests)
	}
}
