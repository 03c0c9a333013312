package ghfacts

import (
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// The one rule for statuses: success passes, failure and error fail,
// anything else waits.
func TestStatusStates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		raw  string
		want queue.CheckState
	}{
		{"success", queue.CheckSuccess},
		{"pending", queue.CheckPending},
		{"failure", queue.CheckFailure},
		{"error", queue.CheckFailure},
		{"", queue.CheckPending},
		{"SUCCESS", queue.CheckPending},
	} {
		got := Status("s", &github.RepoStatus{Context: github.String("x"), State: github.String(tt.raw)})
		if got.State != tt.want || got.Raw != tt.raw || got.Kind != queue.KindStatus || got.SHA != "s" || got.Name != "x" {
			t.Errorf("status %q: got %+v, want state %s", tt.raw, got, tt.want)
		}
	}
}

// The one rule for check runs: only a completed run passes or fails, and
// it passes only with success, neutral or skipped.
func TestCheckRunStates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status, conclusion string
		want               queue.CheckState
		wantRaw            string
	}{
		{"queued", "", queue.CheckPending, "queued"},
		{"in_progress", "", queue.CheckPending, "in_progress"},
		{"in_progress", "success", queue.CheckPending, "in_progress"},
		{"completed", "success", queue.CheckSuccess, "success"},
		{"completed", "neutral", queue.CheckSuccess, "neutral"},
		{"completed", "skipped", queue.CheckSuccess, "skipped"},
		{"completed", "failure", queue.CheckFailure, "failure"},
		{"completed", "cancelled", queue.CheckFailure, "cancelled"},
		{"completed", "timed_out", queue.CheckFailure, "timed_out"},
		{"completed", "action_required", queue.CheckFailure, "action_required"},
		{"completed", "stale", queue.CheckFailure, "stale"},
		{"completed", "", queue.CheckFailure, ""},
	} {
		run := &github.CheckRun{Name: github.String("x"), HeadSHA: github.String("s"), Status: github.String(tt.status)}
		if tt.conclusion != "" {
			run.Conclusion = github.String(tt.conclusion)
		}
		got := CheckRun(run)
		if got.State != tt.want || got.Raw != tt.wantRaw || got.Kind != queue.KindCheckRun || got.SHA != "s" {
			t.Errorf("%s/%s: got %+v, want state %s, raw %q", tt.status, tt.conclusion, got, tt.want, tt.wantRaw)
		}
	}
}

// A check run's time is when it completed, or when it started while it
// runs or when GitHub gives no completion time.
func TestCheckRunTimes(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	completed := started.Add(time.Minute)
	ts := func(t time.Time) *github.Timestamp { return &github.Timestamp{Time: t} }
	for _, tt := range []struct {
		name string
		run  *github.CheckRun
		want time.Time
	}{
		{"running", &github.CheckRun{Status: github.String("in_progress"), StartedAt: ts(started)}, started},
		{"completed", &github.CheckRun{Status: github.String("completed"), StartedAt: ts(started), CompletedAt: ts(completed)}, completed},
		{"completed without completed_at", &github.CheckRun{Status: github.String("completed"), StartedAt: ts(started)}, started},
		{"no times", &github.CheckRun{Status: github.String("queued")}, time.Time{}},
	} {
		got := CheckRun(tt.run).UpdatedAt
		if !got.Equal(tt.want) || (!got.IsZero() && got.Location() != time.UTC) {
			t.Errorf("%s: UpdatedAt %v, want %v in UTC", tt.name, got, tt.want)
		}
	}
}

// URLs from CI are kept only as textsafe.CIURL accepts them; a check run's
// html_url (GitHub's page) comes before its details_url.
func TestCIURLsAreValidated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want string }{
		{"https://ci.example/build/7", "https://ci.example/build/7"},
		{"javascript:alert(1)", ""},
		{"<!channel>", ""},
		{"](http://evil)", ""},
		{"![x](http://evil/x.png)", ""},
		{"https://user:pw@ci.example/", ""},
		{"https://ci.example/(x)", "https://ci.example/%28x%29"},
	} {
		st := Status("s", &github.RepoStatus{Context: github.String("ci"), State: github.String("failure"), TargetURL: github.String(c.raw)})
		if st.URL != c.want {
			t.Errorf("status URL of %q = %q, want %q", c.raw, st.URL, c.want)
		}
		cr := CheckRun(&github.CheckRun{Name: github.String("ci"), Status: github.String("completed"),
			Conclusion: github.String("failure"), DetailsURL: github.String(c.raw), HTMLURL: github.String(c.raw)})
		if cr.URL != c.want {
			t.Errorf("check run URL of %q = %q, want %q", c.raw, cr.URL, c.want)
		}
	}
	for _, tt := range []struct{ html, details, want string }{
		{"https://github.example/o/r/runs/1", "https://ci.example/d", "https://github.example/o/r/runs/1"},
		{"javascript:x", "https://ci.example/d", "https://ci.example/d"},
		{"", "https://ci.example/d", "https://ci.example/d"},
		{"https://github.example/o/r/runs/1", "javascript:x", "https://github.example/o/r/runs/1"},
	} {
		cr := CheckRun(&github.CheckRun{Name: github.String("ci"), HTMLURL: github.String(tt.html), DetailsURL: github.String(tt.details)})
		if cr.URL != tt.want {
			t.Errorf("html_url %q, details_url %q: URL %q, want %q", tt.html, tt.details, cr.URL, tt.want)
		}
	}
}

// A status's time is its updated_at, else its created_at.
func TestStatusTimes(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	updated := created.Add(time.Minute)
	ts := func(t time.Time) *github.Timestamp { return &github.Timestamp{Time: t} }
	if got := Status("s", &github.RepoStatus{CreatedAt: ts(created), UpdatedAt: ts(updated)}).UpdatedAt; !got.Equal(updated) {
		t.Errorf("UpdatedAt %v, want updated_at %v", got, updated)
	}
	if got := Status("s", &github.RepoStatus{CreatedAt: ts(created)}).UpdatedAt; !got.Equal(created) {
		t.Errorf("UpdatedAt %v, want created_at %v", got, created)
	}
}
