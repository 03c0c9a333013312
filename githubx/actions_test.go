package githubx

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestWorkflowRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		status        int
		body          map[string]any
		wantStatus    string
		wantSHA       string
		wantCode      int
		wantTransient bool
	}{
		{"in progress", http.StatusOK, map[string]any{"id": 99, "status": "in_progress", "head_sha": "abc"}, "in_progress", "abc", 0, false},
		{"completed", http.StatusOK, map[string]any{"id": 99, "status": "completed", "conclusion": "success", "head_sha": "def"}, "completed", "def", 0, false},
		{"unknown run", http.StatusNotFound, nil, "", "", http.StatusNotFound, false},
		{"GitHub down", http.StatusBadGateway, nil, "", "", http.StatusBadGateway, true},
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
			status, sha, err := c.WorkflowRun(t.Context(), testRepo, 99)
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
			mustEqual(t, "status", status, tt.wantStatus)
			mustEqual(t, "head SHA", sha, tt.wantSHA)
		})
	}
}
