package fakegithub

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// createTestBranch has the bot build an mq-merge branch on a commit with
// files, through the API, and returns its SHA.
func createTestBranch(t *testing.T, s *Server, c *github.Client, name string, files map[string]string) string {
	t.Helper()
	sha := must(t)(s.Commit(testOwner, testRepo, "src-"+strings.ReplaceAll(name, "/", "-"), files, "candidate"))
	_, _, err := c.Git.CreateRef(t.Context(), testOwner, testRepo, &github.Reference{Ref: github.String("refs/heads/" + name), Object: &github.GitObject{SHA: github.String(sha)}})
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func TestCIAutomatic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		ci         CIOptions
		files      map[string]string
		result     string
		statuses   []string // context:state in order
		checkRuns  []string // name:conclusion
		wantEvents []string
	}{
		{
			name: "pass", files: map[string]string{"ok.txt": "ok"}, result: "success",
			statuses:   []string{"ci/test:pending", "ci/test:success"},
			wantEvents: []string{"push", "status", "status", "check_suite.completed"},
		},
		{
			name: "fail on FAIL file", files: map[string]string{"FAIL": "boom"}, result: "failure",
			statuses:   []string{"ci/test:pending", "ci/test:failure"},
			wantEvents: []string{"push", "status", "status", "check_suite.completed"},
		},
		{
			name: "nested FAIL does not count", files: map[string]string{"dir/FAIL": "x"}, result: "success",
			statuses:   []string{"ci/test:pending", "ci/test:success"},
			wantEvents: []string{"push", "status", "status", "check_suite.completed"},
		},
		{
			name: "check runs only", ci: CIOptions{CheckRuns: []string{"build"}}, files: map[string]string{"FAIL": ""}, result: "failure",
			checkRuns:  []string{"build:failure"},
			wantEvents: []string{"push", "check_run.created", "check_run.completed", "check_suite.completed"},
		},
		{
			name: "FailIf and both kinds", ci: CIOptions{Contexts: []string{"a", "b"}, CheckRuns: []string{"c"}, FailIf: func(f map[string]string) bool { return f["x.txt"] == "bad" }},
			files: map[string]string{"x.txt": "bad"}, result: "failure",
			statuses:   []string{"a:pending", "b:pending", "a:failure", "b:failure"},
			checkRuns:  []string{"c:failure"},
			wantEvents: []string{"push", "status", "status", "check_run.created", "status", "status", "check_run.completed", "check_suite.completed"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, Options{CI: tc.ci})
			c := newClient(t, s, "/")
			must(t)(s.Commit(testOwner, testRepo, "src", tc.files, "candidate"))
			sink := newHookSink(t, s)
			sha := must(t)(s.BranchSHA(testOwner, testRepo, "src"))
			if _, _, err := c.Git.CreateRef(t.Context(), testOwner, testRepo, &github.Reference{Ref: github.String("refs/heads/mq-merge/pr-1/run"), Object: &github.GitObject{SHA: github.String(sha)}}); err != nil {
				t.Fatal(err)
			}
			if got := sink.names(s); !reflect.DeepEqual(got, tc.wantEvents) {
				t.Fatalf("events %v, want %v", got, tc.wantEvents)
			}
			runs := s.CIRuns()
			if len(runs) != 1 || runs[0].Result != tc.result || runs[0].SHA != sha || runs[0].Branch != "mq-merge/pr-1/run" || runs[0].Repo != "acme/widgets" {
				t.Fatalf("CIRuns = %+v", runs)
			}
			var statuses []string
			for _, st := range s.Statuses(testOwner, testRepo, sha) {
				statuses = append(statuses, st.GetContext()+":"+st.GetState())
				if !strings.HasPrefix(st.GetTargetURL(), s.URL()+"/ci/runs/") {
					t.Fatalf("target_url %q", st.GetTargetURL())
				}
			}
			if !reflect.DeepEqual(statuses, tc.statuses) {
				t.Fatalf("statuses %v, want %v", statuses, tc.statuses)
			}
			var checks []string
			for _, cr := range s.CheckRuns(testOwner, testRepo, sha) {
				checks = append(checks, cr.GetName()+":"+cr.GetConclusion())
			}
			if !reflect.DeepEqual(checks, tc.checkRuns) {
				t.Fatalf("check runs %v, want %v", checks, tc.checkRuns)
			}
		})
	}
}

func TestCIHoldAndComplete(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	s.SetCIHold(true)
	sha1 := createTestBranch(t, s, c, "mq-merge/pr-1/a", map[string]string{"one.txt": "1"})
	sha2 := createTestBranch(t, s, c, "mq-merge/pr-2/b", map[string]string{"two.txt": "2"})
	must(t)(s.Commit(testOwner, testRepo, "not-ci", map[string]string{"x": "x"}, "no CI here"))
	waitIdle(t, s)
	if p := s.PendingCI(); len(p) != 2 || p[0].SHA != sha1 || p[1].SHA != sha2 {
		t.Fatalf("PendingCI = %+v", p)
	}
	combined, _, err := c.Repositories.GetCombinedStatus(ctx, testOwner, testRepo, "mq-merge/pr-1/a", nil)
	if err != nil || combined.GetState() != "pending" || combined.GetTotalCount() != 1 {
		t.Fatalf("held combined status = %v, %v", combined, err)
	}

	if err := s.CompleteCI("acme/widgets", sha1, false); err != nil {
		t.Fatal(err)
	}
	combined, _, _ = c.Repositories.GetCombinedStatus(ctx, testOwner, testRepo, sha1, nil)
	if combined.GetState() != "failure" {
		t.Fatalf("after CompleteCI(false) state = %s", combined.GetState())
	}
	if err := s.CompleteCI("acme/widgets", sha1, true); err == nil {
		t.Fatal("completing a finished run succeeded")
	}
	s.ReleaseCI()
	if p := s.PendingCI(); len(p) != 0 {
		t.Fatalf("PendingCI after release = %+v", p)
	}
	combined, _, _ = c.Repositories.GetCombinedStatus(ctx, testOwner, testRepo, sha2, nil)
	if combined.GetState() != "success" {
		t.Fatalf("released run state = %s", combined.GetState())
	}
	runs := s.CIRuns()
	if len(runs) != 2 || runs[0].Result != "failure" || runs[1].Result != "success" {
		t.Fatalf("CIRuns = %+v", runs)
	}
}

func TestStatusesAndCheckRunsRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	sha := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	for _, st := range []struct{ ctx, state string }{{"ci/a", "pending"}, {"ci/a", "success"}, {"ci/b", "success"}, {"ci/b", "error"}} {
		if _, _, err := c.Repositories.CreateStatus(ctx, testOwner, testRepo, sha, &github.RepoStatus{State: github.String(st.state), Context: github.String(st.ctx)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, resp, _ := c.Repositories.CreateStatus(ctx, testOwner, testRepo, sha, &github.RepoStatus{State: github.String("bogus")}); statusOf(resp) != 422 {
		t.Fatalf("bogus state = %d", statusOf(resp))
	}
	combined, _, err := c.Repositories.GetCombinedStatus(ctx, testOwner, testRepo, "main", nil)
	if err != nil || combined.GetState() != "failure" || combined.GetTotalCount() != 2 || combined.Statuses[0].GetContext() != "ci/b" {
		t.Fatalf("combined = %v, %v", combined, err)
	}
	list, _, err := c.Repositories.ListStatuses(ctx, testOwner, testRepo, sha, nil)
	if err != nil || len(list) != 4 || list[0].GetState() != "error" {
		t.Fatalf("ListStatuses = %v, %v", list, err)
	}

	cr, _, err := c.Checks.CreateCheckRun(ctx, testOwner, testRepo, github.CreateCheckRunOptions{Name: "Merge Queue (main)", HeadSHA: sha, Status: github.String("in_progress")})
	if err != nil || cr.GetStatus() != "in_progress" || cr.GetApp().GetID() != testAppID {
		t.Fatalf("CreateCheckRun = %v, %v", cr, err)
	}
	upd, _, err := c.Checks.UpdateCheckRun(ctx, testOwner, testRepo, cr.GetID(), github.UpdateCheckRunOptions{
		Name: "Merge Queue (main)", Conclusion: github.String("success"),
		Output: &github.CheckRunOutput{Title: github.String("Merged"), Summary: github.String("done")},
	})
	if err != nil || upd.GetStatus() != "completed" || upd.GetConclusion() != "success" || upd.CompletedAt == nil {
		t.Fatalf("UpdateCheckRun = %v, %v", upd, err)
	}
	got, _, err := c.Checks.GetCheckRun(ctx, testOwner, testRepo, cr.GetID())
	if err != nil || got.GetOutput().GetTitle() != "Merged" {
		t.Fatalf("GetCheckRun = %v, %v", got, err)
	}
	res, _, err := c.Checks.ListCheckRunsForRef(ctx, testOwner, testRepo, "main", &github.ListCheckRunsOptions{CheckName: github.String("Merge Queue (main)")})
	if err != nil || res.GetTotal() != 1 || res.CheckRuns[0].GetID() != cr.GetID() {
		t.Fatalf("ListCheckRunsForRef = %v, %v", res, err)
	}
	noErr(t, s.AddWorkflowRun(testOwner, testRepo, WorkflowRun{ID: 77, HeadSHA: sha, Status: "completed", Conclusion: "success"}))
	run, _, err := c.Actions.GetWorkflowRunByID(ctx, testOwner, testRepo, 77)
	if err != nil || run.GetHeadSHA() != sha || run.GetConclusion() != "success" {
		t.Fatalf("GetWorkflowRunByID = %v, %v", run, err)
	}
}
