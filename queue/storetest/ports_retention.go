package storetest

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

var retentionTests = []portsCase{
	// Prune deletes old processed deliveries and old events already delivered
	// to every notification target, and nothing else.
	{"retention/prune", func(t *testing.T, s Ports) {
		now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"},
			State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: now, UpdatedAt: now}
		if err := s.CreateQueue(ctx, q); err != nil {
			t.Fatal(err)
		}
		old, recent := now.Add(-30*24*time.Hour), now.Add(-time.Hour)
		for _, d := range []struct {
			id   string
			at   time.Time
			done bool
		}{{"old-done", old, true}, {"old-pending", old, false}, {"recent-done", recent, true}} {
			if _, err := s.PutDelivery(ctx, record.Delivery{ID: d.id, Event: "status", Payload: []byte("{}"), ReceivedAt: d.at}); err != nil {
				t.Fatal(err)
			}
			if d.done {
				if err := s.FinishDelivery(ctx, d.id, true, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		var ids []int64
		for _, at := range []time.Time{old, old, recent} {
			ev := &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: at, To: queue.StatePending}
			if err := s.AddEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.ID)
		}
		for _, n := range []struct {
			key  string
			done time.Time
		}{{"old-done", old}, {"old-undelivered", time.Time{}}, {"recent-done", recent}} {
			notice := &queue.Notice{Key: n.key, Repo: q.Key.Repo, PRNumber: 1, Kind: queue.NoticeComment, Body: "hi", CreatedAt: old}
			if _, err := s.AddNotice(ctx, notice); err != nil {
				t.Fatal(err)
			}
			notice.DoneAt = n.done
			if err := s.SaveNotice(ctx, *notice); err != nil {
				t.Fatal(err)
			}
		}
		// A notification target has received the first event only.
		p, err := s.Prune(ctx, now.Add(-7*24*time.Hour), now.Add(-7*24*time.Hour), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if p.Deliveries != 1 || p.Events != 1 || p.Notices != 1 {
			t.Errorf("pruned %+v, want 1 delivery (old and done), 1 event (old and delivered) and 1 notice (delivered long ago)", p)
		}
		if ok, err := s.AddNotice(ctx, &queue.Notice{Key: "recent-done", Repo: q.Key.Repo, Kind: queue.NoticeComment}); err != nil || ok {
			t.Errorf("a recently delivered notice was forgotten: added again (%v, %v)", ok, err)
		}
		if due, err := s.DueNotices(ctx, now, 10); err != nil || len(due) != 1 || due[0].Key != "old-undelivered" {
			t.Errorf("due notices %+v, %v: the undelivered one must stay", due, err)
		}
		pending, err := s.PendingDeliveries(ctx, 0)
		if err != nil || len(pending) != 1 || pending[0].ID != "old-pending" {
			t.Errorf("pending deliveries %v, %v: the old pending one must stay", pending, err)
		}
		if ok, err := s.PutDelivery(ctx, record.Delivery{ID: "recent-done", Event: "status", ReceivedAt: now}); err != nil || ok {
			t.Errorf("a recent delivery was forgotten: redelivery stored again (%v, %v)", ok, err)
		}
		left, err := s.EventsAfter(ctx, 0, 10)
		if err != nil || len(left) != 2 || left[0].ID != ids[1] {
			t.Errorf("events left %v, %v; want the undelivered old one and the recent one", left, err)
		}
		// Without notification targets, every old event goes.
		if p, err := s.Prune(ctx, now.Add(-7*24*time.Hour), now.Add(-7*24*time.Hour), -1); err != nil || p.Events != 1 {
			t.Errorf("pruned %+v, %v; want the remaining old event", p, err)
		}
	}},
}
