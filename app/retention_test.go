package app

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/app/notify"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// Old events are pruned only once every notification target received them.
func TestPruneKeepsEventsANotificationTargetStillNeeds(t *testing.T) {
	ctx := context.Background()
	store := sqlitetest.Open(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateQueue(ctx, q); err != nil {
		t.Fatal(err)
	}
	target := notify.Target{URL: "https://hooks.example/mq", Kind: notify.Webhook}
	n := notify.New(notifyStore{store}, notify.Options{Targets: []notify.Target{target}})
	key := n.Targets()[0]
	if _, err := store.NotificationCursor(ctx, key); err != nil { // the target exists before the events
		t.Fatal(err)
	}
	var last int64
	for range 2 {
		ev := &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: now.Add(-2 * EventRetention), To: queue.StateMerged}
		if err := store.AddEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		last = ev.ID
	}
	a := &App{store: store, log: zerolog.New(io.Discard), notifier: n, now: func() time.Time { return now }}
	a.pruneOnce(ctx)
	if evs, _ := store.EventsAfter(ctx, 0, 10); len(evs) != 2 {
		t.Fatalf("%d events left, want both: the target has not received them", len(evs))
	}
	c, err := store.NotificationCursor(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	c.LastEventID = last
	if err := store.SaveNotificationCursor(ctx, c); err != nil {
		t.Fatal(err)
	}
	a.pruneOnce(ctx)
	if evs, _ := store.EventsAfter(ctx, 0, 10); len(evs) != 0 {
		t.Errorf("%d events left after delivery, want none (older than the retention)", len(evs))
	}
}
