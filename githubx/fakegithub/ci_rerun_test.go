package fakegithub

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

// flakyOnce fails the first attempt of every run.
func flakyOnce(run CIRun) bool { return run.Attempt == 1 }

// latestRun is the newest check run named name on sha.
func latestRun(t *testing.T, c *github.Client, sha, name string) *github.CheckRun {
	t.Helper()
	res, _, err := c.Checks.ListCheckRunsForRef(t.Context(), testOwner, testRepo, sha, &github.ListCheckRunsOptions{Filter: github.String("latest")})
	if err != nil {
		t.Fatal(err)
	}
	var out *github.CheckRun
	for _, cr := range res.CheckRuns {
		if cr.GetName() == name && (out == nil || cr.GetID() > out.GetID()) {
			out = cr
		}
	}
	if out == nil {
		t.Fatalf("no check run %q on %s", name, sha)
	}
	return out
}

func TestCIActionsRerunsTheFailedJobOnTheSameCommit(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Actions: true, CheckRuns: []string{"test", "lint"}, FailAttempt: func(run CIRun) bool { return run.Attempt == 1 }}})
	c := newClient(t, s, "/")
	sha := createTestBranch(t, s, c, "mq-merge/pr-1/run", map[string]string{"ok.txt": "ok"})
	waitIdle(t, s)
	failed := latestRun(t, c, sha, "test")
	if failed.GetConclusion() != "failure" || failed.GetApp().GetSlug() != "github-actions" {
		t.Fatalf("first attempt: %s by %s, want a failure by github-actions", failed.GetConclusion(), failed.GetApp().GetSlug())
	}
	runs, _, err := c.Actions.ListRepositoryWorkflowRuns(t.Context(), testOwner, testRepo, &github.ListWorkflowRunsOptions{CheckSuiteID: failed.GetCheckSuite().GetID()})
	if err != nil || len(runs.WorkflowRuns) != 1 {
		t.Fatalf("workflow runs of the suite: %v, %v", runs, err)
	}
	resp, err := c.Actions.RerunFailedJobsByID(t.Context(), testOwner, testRepo, runs.WorkflowRuns[0].GetID())
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("rerun-failed-jobs: %v, %v", resp, err)
	}
	waitIdle(t, s)
	again := latestRun(t, c, sha, "test")
	if again.GetID() == failed.GetID() || again.GetConclusion() != "success" || again.GetCheckSuite().GetID() != failed.GetCheckSuite().GetID() {
		t.Fatalf("re-run: check run %d %s in suite %d, want a new passing run in suite %d",
			again.GetID(), again.GetConclusion(), again.GetCheckSuite().GetID(), failed.GetCheckSuite().GetID())
	}
	if ci := s.CIRuns(); len(ci) != 1 || ci[0].Attempt != 2 || ci[0].Result != "success" || ci[0].SHA != sha {
		t.Fatalf("CIRuns = %+v, want one run on %s passed at attempt 2 (no new commit)", ci, sha)
	}
}

func TestCIRerequestedSuiteRunsAgain(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{CheckRuns: []string{"test"}, FailAttempt: flakyOnce}})
	c := newClient(t, s, "/")
	sha := createTestBranch(t, s, c, "mq-merge/pr-1/run", map[string]string{"ok.txt": "ok"})
	waitIdle(t, s)
	failed := latestRun(t, c, sha, "test")
	if _, err := c.Checks.ReRequestCheckSuite(t.Context(), testOwner, testRepo, failed.GetCheckSuite().GetID()); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s)
	if again := latestRun(t, c, sha, "test"); again.GetID() == failed.GetID() || again.GetConclusion() != "success" {
		t.Fatalf("re-requested suite: check run %d %s, want a new passing run", again.GetID(), again.GetConclusion())
	}
}

func TestRefusedPermissionAnswersNotAccessible(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Actions: true, CheckRuns: []string{"test"}, FailAttempt: flakyOnce}})
	c := newClient(t, s, "/")
	sha := createTestBranch(t, s, c, "mq-merge/pr-1/run", map[string]string{"ok.txt": "ok"})
	waitIdle(t, s)
	s.RefusePermission("actions")
	s.RefusePermission("checks")
	failed := latestRun(t, c, sha, "test")
	resp, err := c.Actions.RerunFailedJobsByID(t.Context(), testOwner, testRepo, s.CIRuns()[0].ID)
	if statusOf(resp) != http.StatusForbidden || err == nil {
		t.Fatalf("rerun-failed-jobs without actions: write = %d, %v; want 403", statusOf(resp), err)
	}
	resp, err = c.Checks.ReRequestCheckSuite(t.Context(), testOwner, testRepo, failed.GetCheckSuite().GetID())
	if statusOf(resp) != http.StatusForbidden || err == nil {
		t.Fatalf("rerequest without checks: write = %d, %v; want 403", statusOf(resp), err)
	}
	if ci := s.CIRuns(); ci[0].Attempt != 1 {
		t.Errorf("a refused re-run ran: %+v", ci)
	}
}

func TestCIRerunStaysPendingWhileHeld(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Actions: true, CheckRuns: []string{"test"}}})
	c := newClient(t, s, "/")
	s.SetCIHold(true)
	sha := createTestBranch(t, s, c, "mq-merge/pr-1/run", map[string]string{"ok.txt": "ok"})
	waitIdle(t, s)
	noErr(t, s.CompleteCI(testOwner+"/"+testRepo, sha, false))
	if _, err := c.Actions.RerunFailedJobsByID(t.Context(), testOwner, testRepo, s.CIRuns()[0].ID); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s)
	if p := s.PendingCI(); len(p) != 1 || p[0].Attempt != 2 || p[0].SHA != sha {
		t.Fatalf("PendingCI = %+v, want attempt 2 on %s held", p, sha)
	}
	noErr(t, s.CompleteCI(testOwner+"/"+testRepo, sha, true))
	if got := latestRun(t, c, sha, "test"); got.GetConclusion() != "success" {
		t.Fatalf("the held re-run completed %s, want success", got.GetConclusion())
	}
}
