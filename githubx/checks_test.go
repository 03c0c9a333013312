package githubx

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// nextLink sets a Link header pointing at page of the request's path.
func nextLink(w http.ResponseWriter, r *http.Request, page int) {
	w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=%d&per_page=100>; rel="next"`, r.Host, r.URL.Path, page))
}

func TestChecksPaginatesAndNormalises(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ts := func(m int) string { return t0.Add(time.Duration(m) * time.Minute).Format(time.RFC3339) }
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/commits/c1/statuses", func(w http.ResponseWriter, r *http.Request) {
		mustEqual(t, "per_page", r.URL.Query().Get("per_page"), "100")
		switch r.URL.Query().Get("page") {
		case "":
			nextLink(w, r, 2)
			writeJSON(w, http.StatusOK, []map[string]any{
				{"context": "ci/build", "state": "success", "target_url": "https://ci/b/2", "updated_at": ts(5)},
				{"context": "ci/test", "state": "pending", "target_url": "https://ci/t/1", "updated_at": ts(4)},
			})
		case "2":
			writeJSON(w, http.StatusOK, []map[string]any{
				{"context": "ci/build", "state": "failure", "target_url": "https://ci/b/1", "updated_at": ts(1)},
				{"context": "ci/lint", "state": "error", "updated_at": ts(2)},
			})
		default:
			t.Errorf("unexpected statuses page %q", r.URL.Query().Get("page"))
		}
	})
	f.handle("GET /repos/o/r/commits/c1/check-runs", func(w http.ResponseWriter, r *http.Request) {
		mustEqual(t, "filter", r.URL.Query().Get("filter"), "latest")
		switch r.URL.Query().Get("page") {
		case "":
			nextLink(w, r, 2)
			writeJSON(w, http.StatusOK, map[string]any{"total_count": 4, "check_runs": []map[string]any{
				{"id": 10, "name": "e2e", "status": "in_progress", "started_at": ts(3), "details_url": "https://ci/e2e"},
				{"id": 11, "name": "unit", "status": "completed", "conclusion": "neutral", "started_at": ts(1), "completed_at": ts(2), "html_url": "https://gh/unit"},
			}})
		case "2":
			writeJSON(w, http.StatusOK, map[string]any{"total_count": 4, "check_runs": []map[string]any{
				{"id": 9, "name": "e2e", "status": "completed", "conclusion": "success", "completed_at": ts(1)},
				{"id": 12, "name": "deploy", "status": "completed", "conclusion": "timed_out", "completed_at": ts(6)},
			}})
		default:
			t.Errorf("unexpected check-runs page %q", r.URL.Query().Get("page"))
		}
	})
	c, _ := f.client()
	got, err := c.Checks(t.Context(), testRepo, "c1")
	if err != nil {
		t.Fatal(err)
	}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	mustEqual(t, "checks", got, []queue.CheckResult{
		{SHA: "c1", Kind: queue.KindStatus, Name: "ci/build", State: queue.CheckSuccess, Raw: "success", URL: "https://ci/b/2", UpdatedAt: at(5)},
		{SHA: "c1", Kind: queue.KindStatus, Name: "ci/lint", State: queue.CheckFailure, Raw: "error", UpdatedAt: at(2)},
		{SHA: "c1", Kind: queue.KindStatus, Name: "ci/test", State: queue.CheckPending, Raw: "pending", URL: "https://ci/t/1", UpdatedAt: at(4)},
		{SHA: "c1", Kind: queue.KindCheckRun, Name: "deploy", State: queue.CheckFailure, Raw: "timed_out", UpdatedAt: at(6), CheckRunID: 12},
		{SHA: "c1", Kind: queue.KindCheckRun, Name: "e2e", State: queue.CheckPending, Raw: "in_progress", URL: "https://ci/e2e", UpdatedAt: at(3), CheckRunID: 10},
		{SHA: "c1", Kind: queue.KindCheckRun, Name: "unit", State: queue.CheckSuccess, Raw: "neutral", URL: "https://gh/unit", UpdatedAt: at(2), CheckRunID: 11},
	})
}

func TestChecksError(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/commits/c1/statuses", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusUnprocessableEntity, "No commit found for SHA: c1")
	})
	c, _ := f.client()
	if _, err := c.Checks(t.Context(), testRepo, "c1"); StatusCode(err) != http.StatusUnprocessableEntity {
		t.Fatalf("Checks() error = %v, want 422", err)
	}
}
