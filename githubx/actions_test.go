package githubx

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestWorkflowRun(t *testing.T) {
	t.Parallel()
	fork := map[string]any{"id": 99, "status": "in_progress", "event": "pull_request", "head_sha": "abc",
		"head_branch": "fix", "head_repository": map[string]any{"full_name": "forker/r"}, "pull_requests": []any{}}
	tests := []struct {
		name          string
		status        int
		body          map[string]any
		want          *queue.WorkflowRun
		wantCode      int
		wantTransient bool
	}{
		{"a fork PR's run", http.StatusOK, fork, &queue.WorkflowRun{ID: 99, Status: "in_progress", Event: "pull_request",
			HeadSHA: "abc", HeadBranch: "fix", HeadRepo: "forker/r"}, 0, false},
		{"a branch PR's run", http.StatusOK, map[string]any{"id": 99, "status": "queued", "event": "pull_request", "head_sha": "abc",
			"head_branch": "fix", "head_repository": map[string]any{"full_name": "o/r"},
			"pull_requests": []any{map[string]any{"number": 7}, map[string]any{"number": 9}}},
			&queue.WorkflowRun{ID: 99, Status: "queued", Event: "pull_request", HeadSHA: "abc", HeadBranch: "fix", HeadRepo: "o/r",
				PullRequests: []int{7, 9}}, 0, false},
		{"completed push run", http.StatusOK, map[string]any{"id": 99, "status": "completed", "conclusion": "success", "event": "push", "head_sha": "def"},
			&queue.WorkflowRun{ID: 99, Status: "completed", Event: "push", HeadSHA: "def"}, 0, false},
		{"unknown run", http.StatusNotFound, nil, nil, http.StatusNotFound, false},
		{"GitHub down", http.StatusBadGateway, nil, nil, http.StatusBadGateway, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/actions/runs/99", func(w http.ResponseWriter, r *http.Request) {
				if tt.body == nil {
					ghError(w, tt.status, "nope")
					return
				}
				writeJSON(w, tt.status, tt.body)
			})
			c, _ := f.client()
			run, err := c.WorkflowRun(t.Context(), testRepo, 99)
			if tt.wantCode != 0 {
				if err == nil {
					t.Fatal("WorkflowRun succeeded")
				}
				mustEqual(t, "status code", StatusCode(err), tt.wantCode)
				mustEqual(t, "transient", errors.Is(err, queue.ErrTransient), tt.wantTransient)
				return
			}
			if err != nil {
				t.Fatalf("WorkflowRun: %v", err)
			}
			mustEqual(t, "run", *run, *tt.want)
		})
	}
}
