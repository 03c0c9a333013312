package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// detailsShape is SPEC §7 getMergeQueueTestingDetails with every optional
// field present.
var detailsShape = map[string]string{
	"requiredStatuses":            "array",
	"requiredStatusesSource":      "string",
	"testBranch":                  "string",
	"testBranchSha":               "string",
	"createdAt":                   "string",
	"status":                      "string",
	"checkSuites":                 "array",
	"statusChecks":                "array",
	"testedPullRequests":          "array",
	"dependentPrs":                "array",
	"impactedTargets":             "array|string",
	"impactedTargetsForTestedPrs": "array",
	"waitingOn":                   "array",
	"failureStatus":               "object",
}

func detailsFixture(status queue.RunStatus) *readside.TestingDetails {
	q := &queue.Queue{ID: 1, Key: testKey, State: queue.QueueRunning, Settings: queue.DefaultSettings()}
	run := &queue.TestRun{ID: "3f2c", QueueID: 1, EntryIDs: []string{"e12", "e13"}, PRNumbers: []int{12, 13},
		PRSHAs: []string{"sha12", "sha13"}, Ahead: []string{"e11"}, Branch: "mq-merge/pr-12/3f2c", SHA: "testsha",
		RequiredChecks: []string{"ci/test", "build"}, RequiredSource: queue.RequiredFromBranchProtection, Status: status,
		CreatedAt: time.Date(2026, 7, 23, 1, 32, 50, 7e6, time.UTC)}
	if status == queue.RunFailed {
		run.FailureReason, run.FailureDetail = queue.ReasonTestsFailed, "ci/test failed: https://ci/1"
	}
	d := &readside.TestingDetails{Queue: q, Run: run,
		Checks: []queue.CheckResult{
			{Kind: queue.KindCheckRun, Name: "build", State: queue.CheckSuccess, Raw: "neutral", URL: "https://ci/b"},
			{Kind: queue.KindCheckRun, Name: "lint", State: queue.CheckPending, Raw: "queued", URL: "https://ci/l"},
			{Kind: queue.KindStatus, Name: "ci/test", State: queue.CheckFailure, Raw: "error", URL: "https://ci/1"},
		},
		Tested:       []readside.TestedPR{{Number: 12, SHA: "sha12", Title: "Add widgets"}, {Number: 13, SHA: "sha13", Title: "Fix gadgets"}},
		DependentPRs: []int{11},
		Targets: map[int]*queue.Targets{
			13: {PRNumber: 13, SHA: "sha13", All: true},
			12: {PRNumber: 12, SHA: "sha12", List: []string{"//a"}},
		},
		Union: &queue.Targets{All: true},
	}
	if status == queue.RunSucceeded {
		d.WaitingOn = []int{11}
	}
	return d
}

func TestTestingDetailsShape(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configureMore(func(m *moreFakes) { m.details = detailsFixture(queue.RunFailed) })
	h.svc.configureMore(func(m *moreFakes) { m.details.WaitingOn = []int{11} }) // every optional field present
	r := h.post("getMergeQueueTestingDetails", body(`"testRunId":"3f2c"`))
	m := decodeObject(t, r)
	wantShape(t, "details", m, detailsShape)
	var got struct {
		RequiredStatuses []string `json:"requiredStatuses"`
		Source           string   `json:"requiredStatusesSource"`
		TestBranch       string   `json:"testBranch"`
		TestBranchSHA    string   `json:"testBranchSha"`
		CreatedAt        string   `json:"createdAt"`
		Status           string   `json:"status"`
		CheckSuites      []struct {
			CheckRuns []map[string]any `json:"checkRuns"`
		} `json:"checkSuites"`
		StatusChecks       []map[string]any `json:"statusChecks"`
		TestedPullRequests []map[string]any `json:"testedPullRequests"`
		DependentPRs       []int            `json:"dependentPrs"`
		ImpactedTargets    any              `json:"impactedTargets"`
		ForTested          []struct {
			PRNumber        int    `json:"prNumber"`
			PRSHA           string `json:"prSha"`
			ImpactedTargets any    `json:"impactedTargets"`
		} `json:"impactedTargetsForTestedPrs"`
		WaitingOn     []int             `json:"waitingOn"`
		FailureStatus map[string]string `json:"failureStatus"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"requiredStatuses", fmt.Sprint(got.RequiredStatuses), "[ci/test build]"},
		{"requiredStatusesSource", got.Source, "branch_protection"},
		{"testBranch", got.TestBranch, "mq-merge/pr-12/3f2c"},
		{"testBranchSha", got.TestBranchSHA, "testsha"},
		{"createdAt", got.CreatedAt, "2026-07-23T01:32:50.007Z"},
		{"status", got.Status, "failed"},
		{"suites", len(got.CheckSuites), 1},
		{"check run build", fmt.Sprint(got.CheckSuites[0].CheckRuns[0]), "map[conclusion:neutral name:build status:completed url:https://ci/b]"},
		{"check run lint", fmt.Sprint(got.CheckSuites[0].CheckRuns[1]), "map[conclusion:<nil> name:lint status:queued url:https://ci/l]"},
		{"status check", fmt.Sprint(got.StatusChecks), "[map[context:ci/test state:error url:https://ci/1]]"},
		{"tested", fmt.Sprint(got.TestedPullRequests), "[map[prNumber:12 prUrl:https://github.com/octo/widgets/pull/12 title:Add widgets] " +
			"map[prNumber:13 prUrl:https://github.com/octo/widgets/pull/13 title:Fix gadgets]]"},
		{"dependentPrs", fmt.Sprint(got.DependentPRs), "[11]"},
		{"impactedTargets", got.ImpactedTargets, "ALL"},
		{"for tested", fmt.Sprint(got.ForTested), "[{12 sha12 [//a]} {13 sha13 ALL}]"},
		{"waitingOn", fmt.Sprint(got.WaitingOn), "[11]"},
		{"failureStatus", fmt.Sprint(got.FailureStatus), "map[detail:ci/test failed: https://ci/1 reason:tests_failed]"},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	var ids []string
	h.svc.recorded(func(m *moreFakes) { ids = m.detailsIDs })
	if len(ids) != 1 || ids[0] != "3f2c" {
		t.Errorf("run ids asked = %v", ids)
	}
}

func TestTestingDetailsMinimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  queue.RunStatus
		want    string
		waiting bool
	}{
		{queue.RunBuilding, "in_progress", false},
		{queue.RunInProgress, "in_progress", false},
		{queue.RunSucceeded, "succeeded", true},
		{queue.RunCancelled, "cancelled", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			d := detailsFixture(tt.status)
			d.Checks, d.Targets, d.Union, d.DependentPRs = nil, map[int]*queue.Targets{}, nil, nil
			h.svc.configureMore(func(m *moreFakes) { m.details = d })
			r := h.post("getMergeQueueTestingDetails", body(`"testRunId":"3f2c"`))
			m := decodeObject(t, r)
			shape := map[string]string{}
			for k, v := range detailsShape {
				shape[k] = v
			}
			for _, k := range []string{"impactedTargets", "impactedTargetsForTestedPrs", "failureStatus", "waitingOn"} {
				delete(shape, k)
			}
			if tt.waiting {
				shape["waitingOn"] = "array"
			}
			wantShape(t, "details", m, shape)
			if m["status"] != tt.want {
				t.Errorf("status = %v, want %s", m["status"], tt.want)
			}
			for _, empty := range []string{`"checkSuites":[]`, `"statusChecks":[]`, `"dependentPrs":[]`} {
				if !strings.Contains(r.body, empty) {
					t.Errorf("body lacks %s: %s", empty, r.body)
				}
			}
		})
	}
}

func TestTestingDetailsRequiredStatusesSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		required []string
		source   queue.RequiredSource
		want     string
	}{
		{"the queue's requiredStatuses", []string{"ci/test"}, queue.RequiredFromQueue, `"requiredStatuses":["ci/test"],"requiredStatusesSource":"merge_instance"`},
		{"explicitly none", []string{}, queue.RequiredFromQueue, `"requiredStatuses":[],"requiredStatusesSource":"merge_instance"`},
		{"branch protection", []string{"build"}, queue.RequiredFromBranchProtection, `"requiredStatuses":["build"],"requiredStatusesSource":"branch_protection"`},
		{"recorded before sources were kept", []string{"build"}, "", `"requiredStatuses":["build"],"requiredStatusesSource":"unknown"`},
		{"no checks recorded", nil, "", `"requiredStatuses":[],"requiredStatusesSource":"unknown"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			d := detailsFixture(queue.RunInProgress)
			d.Run.RequiredChecks, d.Run.RequiredSource = tt.required, tt.source
			h.svc.configureMore(func(m *moreFakes) { m.details = d })
			r := h.post("getMergeQueueTestingDetails", body(`"testRunId":"3f2c"`))
			if r.status != http.StatusOK || !strings.Contains(r.body, tt.want) {
				t.Errorf("got %d %s, want it to contain %s", r.status, r.body, tt.want)
			}
		})
	}
}

func TestTestingDetailsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		svcErr error
		status int
		want   string
	}{
		{"unknown run", body(`"testRunId":"nope"`), fmt.Errorf("run: %w", queue.ErrNotFound), http.StatusNotFound, `no test run "nope"`},
		{"store failure", body(`"testRunId":"x"`), errors.New("boom"), http.StatusInternalServerError, "internal error"},
		{"missing run id", body(), nil, http.StatusBadRequest, "testRunId is required"},
		{"blank run id", body(`"testRunId":"  "`), nil, http.StatusBadRequest, "testRunId is required"},
		{"run id wrong type", body(`"testRunId":5`), nil, http.StatusBadRequest, "testRunId"},
		{"missing branch", `{"repo":{"host":"github.com","owner":"o","name":"w"},"testRunId":"x"}`, nil, http.StatusBadRequest, "targetBranch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.detailsErr = tt.svcErr })
			wantError(t, h.post("getMergeQueueTestingDetails", tt.body), tt.status, tt.want)
		})
	}
}
