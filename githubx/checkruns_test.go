package githubx

import (
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestUpsertCheckRun(t *testing.T) {
	t.Parallel()
	completedAt := testNow.Format("2006-01-02T15:04:05Z")
	tests := []struct {
		name      string
		id        int64
		run       queue.CheckRun
		patch     int
		wantBody  string
		wantID    int64
		wantCalls []string
	}{
		{
			name:      "create queued",
			run:       queue.CheckRun{Name: "Merge Queue (main)", HeadSHA: "h1", Status: "queued", Title: "Queued", Summary: "Position 2", DetailsURL: "https://mq/e/1"},
			wantBody:  `{"name":"Merge Queue (main)","head_sha":"h1","status":"queued","details_url":"https://mq/e/1","output":{"title":"Queued","summary":"Position 2"}}`,
			wantID:    700,
			wantCalls: []string{"POST /repos/o/r/check-runs"},
		},
		{
			name:      "complete an existing run",
			id:        70,
			run:       queue.CheckRun{Name: "Merge Queue (main)", HeadSHA: "h1", Status: "completed", Conclusion: "failure", Title: "Failed", Summary: "tests failed"},
			patch:     200,
			wantBody:  `{"name":"Merge Queue (main)","status":"completed","conclusion":"failure","completed_at":"` + completedAt + `","output":{"title":"Failed","summary":"tests failed"}}`,
			wantID:    70,
			wantCalls: []string{"PATCH /repos/o/r/check-runs/70"},
		},
		{
			name:      "existing run vanished",
			id:        70,
			run:       queue.CheckRun{Name: "Merge Queue (main)", HeadSHA: "h1", Status: "in_progress"},
			patch:     404,
			wantBody:  `{"name":"Merge Queue (main)","status":"in_progress"}`,
			wantID:    700,
			wantCalls: []string{"PATCH /repos/o/r/check-runs/70", "POST /repos/o/r/check-runs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("PATCH /repos/o/r/check-runs/70", func(w http.ResponseWriter, r *http.Request) {
				wantBody(t, r, tt.wantBody)
				if tt.patch == 404 {
					ghError(w, 404, "Not Found")
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"id": 70})
			})
			f.handle("POST /repos/o/r/check-runs", func(w http.ResponseWriter, r *http.Request) {
				if tt.patch == 404 {
					wantBody(t, r, `{"name":"Merge Queue (main)","head_sha":"h1","status":"in_progress"}`)
				} else {
					wantBody(t, r, tt.wantBody)
				}
				writeJSON(w, http.StatusCreated, map[string]any{"id": 700})
			})
			c, _ := f.client()
			id, err := c.UpsertCheckRun(t.Context(), testRepo, tt.id, tt.run)
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "id", id, tt.wantID)
			mustEqual(t, "calls", f.recorded(), tt.wantCalls)
		})
	}
}
