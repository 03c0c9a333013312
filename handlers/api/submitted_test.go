package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// submittedShape is SPEC §7 getSubmittedPullRequest without its optional
// fields.
var submittedShape = func() map[string]string {
	m := map[string]string{
		"stateReason":                 "string",
		"stateReasonDetail":           "string",
		"isCurrentlySubmittedToQueue": "boolean",
		"readiness":                   "object",
		"forceEnqueued":               "boolean",
		"verifiedByTestRun":           "string|null",
	}
	for k, v := range enqueuedShape {
		m[k] = v
	}
	return m
}()

var readinessShape = map[string]string{
	"hasImpactedTargets":      "boolean",
	"requiresImpactedTargets": "boolean",
	"doesBaseBranchMatch":     "boolean",
	"gitHubMergeability":      "string",
}

func TestGetSubmittedPullRequest(t *testing.T) {
	t.Parallel()
	inTest := testEntry(9, queue.StateTesting, 10, "high", false)
	inTest.StateReason = queue.ReasonTesting
	ended := testEntry(9, queue.StateCancelled, 100, "medium", true)
	ended.StateReason, ended.StateReasonDetail = queue.ReasonPRPushed, "new commits were pushed"
	forced := testEntry(9, queue.StateMerged, 100, "medium", true)
	forced.StateReason, forced.Direct = queue.ReasonMergedByQueue, true
	tests := []struct {
		name     string
		sub      *queue.SubmittedPR
		optional map[string]string
		want     map[string]string
	}{
		{
			name: "active with position and run",
			sub: &queue.SubmittedPR{Entry: inTest, QueuePosition: 2, TestRunID: "run-1", IsCurrentlySubmitted: true,
				Readiness: queue.Readiness{DoesBaseBranchMatch: true, GitHubMergeability: "mergeable"}},
			optional: map[string]string{"queuePosition": "integer", "testRunId": "string"},
			want: map[string]string{"state": "testing", "stateReason": "testing", "queuePosition": "2", "testRunId": "run-1",
				"isCurrentlySubmittedToQueue": "true", "usedDefaultPriorityName": "", "priorityName": "high", "priorityValue": "10",
				"forceEnqueued": "false", "verifiedByTestRun": "<nil>"},
		},
		{
			name: "ended keeps reason",
			sub:  &queue.SubmittedPR{Entry: ended},
			want: map[string]string{"state": "cancelled", "stateReason": "pr_pushed", "stateReasonDetail": "new commits were pushed",
				"isCurrentlySubmittedToQueue": "false", "usedDefaultPriorityName": "medium", "stateChangedAt": "2026-07-23T00:32:50.123Z",
				"forceEnqueued": "false", "verifiedByTestRun": "<nil>"},
		},
		{
			name: "merged, force-enqueued, verified by its run",
			sub:  &queue.SubmittedPR{Entry: forced, VerifiedByTestRun: "run-7"},
			want: map[string]string{"state": "merged", "forceEnqueued": "true", "verifiedByTestRun": "run-7"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.submitted = tt.sub })
			m := decodeObject(t, h.post("getSubmittedPullRequest", body(`"pr":{"number":"9"}`)))
			shape := map[string]string{}
			for k, v := range submittedShape {
				shape[k] = v
			}
			for k, v := range tt.optional {
				shape[k] = v
			}
			wantShape(t, "submitted", m, shape)
			wantShape(t, "readiness", m["readiness"].(map[string]any), readinessShape)
			for k, want := range tt.want {
				if got := fmt.Sprint(m[k]); got != want {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
			if got := m["readiness"].(map[string]any)["gitHubMergeability"]; got == "" {
				t.Error("gitHubMergeability is empty")
			}
			if keys := h.svc.calls().submittedKeys; len(keys) != 1 || keys[0] != testKey {
				t.Errorf("GetSubmitted keys = %v", keys)
			}
		})
	}
}

func TestGetSubmittedPullRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		svcErr error
		status int
		want   string
	}{
		{"never submitted", body(`"pr":{"number":9}`), queue.ErrNotFound, http.StatusNotFound, "#9 was never submitted"},
		{"missing number", body(), nil, http.StatusBadRequest, "pr.number is required"},
		{"service failure", body(`"pr":{"number":9}`), errors.New("io"), http.StatusInternalServerError, "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.submittedErr = tt.svcErr })
			wantError(t, h.post("getSubmittedPullRequest", tt.body), tt.status, tt.want)
		})
	}
}
