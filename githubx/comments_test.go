package githubx

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestUpsertComment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		id         int64
		editStatus int
		wantID     int64
		wantCalls  []string
	}{
		{"create", 0, 0, 900, []string{"POST /repos/o/r/issues/7/comments"}},
		{"edit in place", 55, 200, 55, []string{"PATCH /repos/o/r/issues/comments/55"}},
		{"edited comment was deleted", 55, 404, 900, []string{"PATCH /repos/o/r/issues/comments/55", "POST /repos/o/r/issues/7/comments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("PATCH /repos/o/r/issues/comments/55", func(w http.ResponseWriter, r *http.Request) {
				wantBody(t, r, `{"body":"queued at #2"}`)
				if tt.editStatus == 404 {
					ghError(w, 404, "Not Found")
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"id": 55, "body": "queued at #2"})
			})
			f.handle("POST /repos/o/r/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
				wantBody(t, r, `{"body":"queued at #2"}`)
				writeJSON(w, http.StatusCreated, map[string]any{"id": 900, "body": "queued at #2"})
			})
			c, _ := f.client()
			id, err := c.UpsertComment(t.Context(), testRepo, 7, tt.id, "queued at #2")
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "id", id, tt.wantID)
			mustEqual(t, "calls", f.recorded(), tt.wantCalls)
		})
	}
}

func TestUpsertCommentEditFails(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("PATCH /repos/o/r/issues/comments/55", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusInternalServerError, "boom")
	})
	c, _ := f.client()
	_, err := c.UpsertComment(t.Context(), testRepo, 7, 55, "x")
	if !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("UpsertComment() error = %v, want ErrTransient and no new comment", err)
	}
	mustEqual(t, "calls", len(f.recorded()), 1)
}

func TestAddReaction(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusCreated, http.StatusOK} { // 200: already reacted
		f := newFakeAPI(t)
		f.handle("POST /repos/o/r/issues/comments/55/reactions", func(w http.ResponseWriter, r *http.Request) {
			wantBody(t, r, `{"content":"+1"}`)
			writeJSON(w, status, map[string]any{"id": 1, "content": "+1"})
		})
		c, _ := f.client()
		if err := c.AddReaction(t.Context(), testRepo, 55, "+1"); err != nil {
			t.Fatalf("AddReaction() with %d: %v", status, err)
		}
	}
}
