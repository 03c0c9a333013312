package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestRestartTestsOnPullRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		svcErr  error
		status  int
		want    string
		restart int // PR number the service got (0 = not reached)
	}{
		{"restarted", body(`"pr":{"number":12}`), nil, http.StatusOK, "", 12},
		{"number as string", body(`"pr":{"number":"12"}`), nil, http.StatusOK, "", 12},
		{"not active", body(`"pr":{"number":12}`), fmt.Errorf("#12: %w", queue.ErrNotActive), http.StatusBadRequest, "not active", 12},
		{"not admitted yet", body(`"pr":{"number":12}`), queue.Inputf("#12 is not admitted to the queue yet"), http.StatusBadRequest, "not admitted", 12},
		{"unknown queue", body(`"pr":{"number":12}`), fmt.Errorf("load: %w", queue.ErrNotFound), http.StatusNotFound, "no queue", 12},
		{"store failure", body(`"pr":{"number":12}`), errors.New("boom"), http.StatusInternalServerError, "internal error", 12},
		{"missing number", body(), nil, http.StatusBadRequest, "pr.number is required", 0},
		{"bad number", body(`"pr":{"number":"twelve"}`), nil, http.StatusBadRequest, "pr.number", 0},
		{"negative number", body(`"pr":{"number":-3}`), nil, http.StatusBadRequest, "pr.number", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.restartErr = tt.svcErr })
			r := h.post("restartTestsOnPullRequest", tt.body)
			if tt.status == http.StatusOK {
				wantEmptyObject(t, r)
			} else {
				wantError(t, r, tt.status, tt.want)
			}
			var got []int
			h.svc.recorded(func(m *moreFakes) { got = m.restarts })
			switch {
			case tt.restart == 0 && len(got) != 0:
				t.Errorf("service reached with %v", got)
			case tt.restart != 0 && (len(got) != 1 || got[0] != tt.restart):
				t.Errorf("restarts = %v, want [%d]", got, tt.restart)
			}
		})
	}
}
