package api

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestDeleteQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		svcErr  error
		status  int
		want    string
		reaches bool
	}{
		{"deleted (or absent)", body(), nil, http.StatusOK, "", true},
		{"active entries remain", body(), queue.Inputf("queue still has 2 active pull request(s) (#1, #2)"), http.StatusBadRequest, "#1, #2", true},
		{"store failure", body(), errors.New("database is locked"), http.StatusInternalServerError, "internal error", true},
		{"missing repo", `{"targetBranch":"main"}`, nil, http.StatusBadRequest, "repo.host is required", false},
		{"other host", `{"repo":{"host":"gitlab.com","owner":"o","name":"w"},"targetBranch":"main"}`, nil, http.StatusNotFound, "gitlab.com", false},
		{"malformed JSON", `{`, nil, http.StatusBadRequest, "malformed JSON", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.deleteErr = tt.svcErr })
			r := h.post("deleteQueue", tt.body)
			if tt.status == http.StatusOK {
				wantEmptyObject(t, r)
			} else {
				wantError(t, r, tt.status, tt.want)
			}
			var keys []queue.QueueKey
			h.svc.recorded(func(m *moreFakes) { keys = m.deletes })
			if (len(keys) > 0) != tt.reaches {
				t.Fatalf("service reached = %v, want %v", len(keys) > 0, tt.reaches)
			}
			if tt.reaches && keys[0] != testKey {
				t.Errorf("key = %v, want %v", keys[0], testKey)
			}
		})
	}
}
