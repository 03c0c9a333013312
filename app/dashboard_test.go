package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sqlite"
)

// The dashboard lists active entries in queue order and explains recent
// decisions, newest first, including those of PRs that left the queue.
func TestDashboardExplainsRecentDecisions(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mq.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := store.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, ev := range []queue.Event{
		{PRNumber: 7, From: queue.StateTesting, To: queue.StateFailed, Reason: queue.ReasonTestsFailed, Detail: "required check \"ci\" failed"},
		{PRNumber: 8, From: queue.StateTestsPassed, To: queue.StateMerged, Reason: queue.ReasonMergedByQueue, Detail: "merged into main as abc1234"},
	} {
		ev.QueueID, ev.EntryID, ev.At = q.ID, "e", now.Add(time.Duration(i-5)*time.Minute)
		if err := store.AddEvent(ctx, &ev); err != nil {
			t.Fatal(err)
		}
	}
	a := &App{store: store, log: zerolog.New(io.Discard), svc: service.NewService(store, nil, service.Options{})}
	rec := httptest.NewRecorder()
	a.dashboard(rec, httptest.NewRequest("GET", "/", nil))
	page := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, page)
	}
	merged, failed := strings.Index(page, "merged into main as abc1234"), strings.Index(page, "required check &#34;ci&#34; failed")
	if merged < 0 || failed < 0 || merged > failed {
		t.Errorf("recent decisions missing or not newest first (merged at %d, failed at %d):\n%s", merged, failed, page)
	}
}

// Positions on the dashboard are 1-based, as everywhere; each PR links to
// its page, which shows where it stands and its decisions.
func TestDashboardPositionsAndPRPage(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mq.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	now := time.Now().UTC()
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 3, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{21, 22} {
		e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: q.ID, PRNumber: n, State: queue.StatePending,
			StateReason: queue.ReasonAdmitted, Seq: int64(i + 1), SubmittedAt: now, AdmittedAt: now,
			PriorityValue: queue.PriorityMedium, PR: queue.PRFacts{Title: fmt.Sprintf("PR %d", n)}}
		if err := store.SaveEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
		ev := &queue.Event{QueueID: q.ID, EntryID: e.ID, PRNumber: n, At: now, From: queue.StateNotReady,
			To: queue.StatePending, Reason: queue.ReasonAdmitted, Detail: fmt.Sprintf("admitted #%d", n)}
		if err := store.AddEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	a := &App{store: store, log: zerolog.New(io.Discard), svc: service.NewService(store, nil, service.Options{}),
		cfg: &Config{GitHub: GitHubConfig{Host: "github.com"}}, now: time.Now, metrics: newMetrics()}
	mux := a.routes(http.NotFoundHandler(), http.NotFoundHandler())
	get := func(path string) string {
		t.Helper()
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	page := get("/")
	if !strings.Contains(page, "<td>1 of 2</td>") || !strings.Contains(page, "<td>2 of 2</td>") || strings.Contains(page, "0 of 2") {
		t.Errorf("positions not 1-based:\n%s", page)
	}
	if !strings.Contains(page, `href="/prs/acme/widgets/22"`) {
		t.Errorf("no link to the PR page:\n%s", page)
	}
	pr := get("/prs/acme/widgets/22")
	for _, want := range []string{"acme/widgets #22", "Position 2 of 2", "admitted #22"} {
		if !strings.Contains(pr, want) {
			t.Errorf("PR page lacks %q:\n%s", want, pr)
		}
	}
	if strings.Contains(pr, "admitted #21") {
		t.Errorf("PR page shows another PR's decisions:\n%s", pr)
	}
}
