package app

import (
	"context"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
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
	a := &App{store: store, log: zerolog.New(io.Discard)}
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
