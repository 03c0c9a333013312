package storetest

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

// outboxTests: the event log as the notifier reads it, its cursors, and
// the App's remembered state.
var outboxTests = []portsCase{
	{"outbox/events after in order with a limit and a count", func(t *testing.T, s Ports) {
		q := mustQueue(t, s, "main")
		var ids []int64
		for i := range 4 {
			ev := &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: i + 1, At: at(time.Duration(i) * time.Second), To: queue.StatePending}
			must(t, s.AddEvent(ctx, ev))
			ids = append(ids, ev.ID)
		}
		got, err := s.EventsAfter(ctx, ids[0], 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != ids[1] || got[1].ID != ids[2] || got[0].PRNumber != 2 || !got[0].At.Equal(at(time.Second)) {
			t.Errorf("EventsAfter(first, 2) = %+v; want the second and third events", got)
		}
		for _, c := range []struct {
			after int64
			want  int
		}{{0, 4}, {ids[1], 2}, {ids[3], 0}} {
			if n, err := s.CountEventsAfter(ctx, c.after); err != nil || n != c.want {
				t.Errorf("CountEventsAfter(%d) = %d, %v; want %d", c.after, n, err, c.want)
			}
		}
	}},
	{"outbox/a new cursor starts at the newest event and is saved", func(t *testing.T, s Ports) {
		q := mustQueue(t, s, "main")
		ev := &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: t0, To: queue.StatePending}
		must(t, s.AddEvent(ctx, ev))
		c, err := s.NotificationCursor(ctx, "slack:abc")
		if err != nil {
			t.Fatal(err)
		}
		assertEqual(t, c, record.NotificationCursor{Target: "slack:abc", LastEventID: ev.ID})
		// An event recorded later is after the cursor: it will be sent.
		later := &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: at(time.Second), To: queue.StateTesting}
		must(t, s.AddEvent(ctx, later))
		if again, err := s.NotificationCursor(ctx, "slack:abc"); err != nil || again.LastEventID != ev.ID {
			t.Errorf("the cursor moved by itself: %+v, %v", again, err)
		}
		saved := record.NotificationCursor{Target: "slack:abc", LastEventID: later.ID, Attempts: 3,
			NextAttemptAt: t0.Add(90 * time.Second).Truncate(time.Millisecond), LastError: "503 from the target"}
		must(t, s.SaveNotificationCursor(ctx, saved))
		got, err := s.NotificationCursor(ctx, "slack:abc")
		if err != nil {
			t.Fatal(err)
		}
		assertEqual(t, got, saved)
		if other, err := s.NotificationCursor(ctx, "generic:def"); err != nil || other.LastEventID != later.ID || other.Attempts != 0 {
			t.Errorf("another target's cursor = %+v, %v; want its own, at the newest event", other, err)
		}
	}},
	{"app state/set, overwrite, read", func(t *testing.T, s Ports) {
		if _, ok, err := s.AppState(ctx, "app_slug"); err != nil || ok {
			t.Fatalf("AppState before any set = %v, %v", ok, err)
		}
		for _, v := range []string{"first", "merge-queue"} {
			must(t, s.SetAppState(ctx, "app_slug", v))
		}
		if v, ok, err := s.AppState(ctx, "app_slug"); err != nil || !ok || v != "merge-queue" {
			t.Errorf("AppState = %q, %v, %v; want the last value", v, ok, err)
		}
		if _, ok, err := s.AppState(ctx, "other"); err != nil || ok {
			t.Errorf("AppState(other) = %v, %v; want none", ok, err)
		}
	}},
}
