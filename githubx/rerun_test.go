package githubx

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestRerunFailedCheckPicksTheEndpointByApp(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/actions/runs", func(w http.ResponseWriter, r *http.Request) {
		mustEqual(t, "check_suite_id", r.URL.Query().Get("check_suite_id"), "7")
		writeJSON(w, http.StatusOK, map[string]any{"total_count": 1, "workflow_runs": []map[string]any{{"id": 99, "check_suite_id": 7}}})
	})
	f.handle("POST /repos/o/r/actions/runs/99/rerun-failed-jobs", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{})
	})
	f.handle("POST /repos/o/r/check-suites/8/rerequest", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{})
	})
	c, _ := f.client()
	job := queue.CheckResult{SHA: "c1", Kind: queue.KindCheckRun, Name: "test", State: queue.CheckFailure, CheckRunID: 5, SuiteID: 7, App: queue.GitHubActionsApp}
	if err := c.RerunFailedCheck(t.Context(), testRepo, job); err != nil {
		t.Fatalf("re-run of an Actions job: %v", err)
	}
	other := queue.CheckResult{SHA: "c1", Kind: queue.KindCheckRun, Name: "lint", State: queue.CheckFailure, CheckRunID: 6, SuiteID: 8, App: "some-ci"}
	if err := c.RerunFailedCheck(t.Context(), testRepo, other); err != nil {
		t.Fatalf("re-request of another App's suite: %v", err)
	}
	status := queue.CheckResult{SHA: "c1", Kind: queue.KindStatus, Name: "ci/test", State: queue.CheckFailure}
	if err := c.RerunFailedCheck(t.Context(), testRepo, status); err == nil {
		t.Error("a commit status was re-run; it cannot be")
	}
	mustEqual(t, "calls", f.recorded(), []string{
		"GET /repos/o/r/actions/runs", "POST /repos/o/r/actions/runs/99/rerun-failed-jobs", "POST /repos/o/r/check-suites/8/rerequest",
	})
}

func TestRerunFailedCheckRemembersARefusalPerInstallation(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("POST /repos/o/r/check-suites/8/rerequest", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusForbidden, "Resource not accessible by integration")
	})
	c, _ := f.client()
	ck := queue.CheckResult{SHA: "c1", Kind: queue.KindCheckRun, Name: "lint", State: queue.CheckFailure, CheckRunID: 6, SuiteID: 8, App: "some-ci"}
	for i := range 2 {
		if err := c.RerunFailedCheck(t.Context(), testRepo, ck); !errors.Is(err, queue.ErrRerunRefused) {
			t.Fatalf("call %d: %v, want ErrRerunRefused", i+1, err)
		}
	}
	mustEqual(t, "calls (the refusal remembered)", f.recorded(), []string{"POST /repos/o/r/check-suites/8/rerequest"})
}

func TestRerunFailedCheckTellsARateLimitFromARefusal(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("POST /repos/o/r/check-suites/8/rerequest", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusForbidden, "Must have admin rights to Repository.")
	})
	c, _ := f.client()
	ck := queue.CheckResult{SHA: "c1", Kind: queue.KindCheckRun, Name: "lint", State: queue.CheckFailure, CheckRunID: 6, SuiteID: 8, App: "some-ci"}
	if err := c.RerunFailedCheck(t.Context(), testRepo, ck); err == nil || errors.Is(err, queue.ErrRerunRefused) {
		t.Fatalf("another 403 = %v, want an error that is not a remembered refusal", err)
	}
}
