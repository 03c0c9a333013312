package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/postgres"
)

// leaseFence is a queue.Fence of a lease as acquired.
type leaseFence struct{ l postgres.Lease }

func (f leaseFence) QueueID() int64       { return f.l.QueueID }
func (f leaseFence) Holder() string       { return f.l.Holder }
func (f leaseFence) Token() int64         { return f.l.Token }
func (f leaseFence) HeldUntil() time.Time { return f.l.ExpiresAt }

// Every write made under a context carrying a stale fence — single
// statements, row-returning inserts and transactions alike — changes
// nothing and fails with queue.ErrLeaseLost; the new holder's writes land,
// and so do writes carrying no fence (webhooks, the REST API).
func TestWritesUnderAStaleFenceChangeNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q, _ := replicas(t)
	la, ok, err := a.AcquireLease(ctx, q.ID, "replica-a", epoch, 10*time.Second)
	if err != nil || !ok {
		t.Fatalf("a acquires: %v, %v", ok, err)
	}
	actx := queue.WithFence(ctx, leaseFence{la})
	e := &queue.Entry{ID: "e1", QueueID: q.ID, PRNumber: 1, State: queue.StatePending, SubmittedAt: epoch}
	if err := a.SaveEntry(actx, e); err != nil {
		t.Fatalf("the holder's fenced write: %v", err)
	}
	lb, ok, err := b.AcquireLease(ctx, q.ID, "replica-b", epoch.Add(10*time.Second), 10*time.Second)
	if err != nil || !ok || lb.Token <= la.Token {
		t.Fatalf("b takes over = %+v, %v, %v", lb, ok, err)
	}
	before := a.QueueVersion(q.ID)
	stale := []struct {
		name  string
		write func() error
	}{
		{"SaveEntry", func() error {
			e2 := *e
			e2.State = queue.StateCancelled
			return a.SaveEntry(actx, &e2)
		}},
		{"AddEvent", func() error {
			return a.AddEvent(actx, &queue.Event{QueueID: q.ID, EntryID: "e1", PRNumber: 1, At: epoch, To: queue.StateCancelled})
		}},
		{"UpdateQueue", func() error {
			q2 := *q
			q2.State = queue.QueuePaused
			return a.UpdateQueue(actx, &q2)
		}},
		{"WithTx", func() error {
			return a.WithTx(actx, func(tx queue.Store) error {
				return tx.SaveEntry(ctx, &queue.Entry{ID: "e2", QueueID: q.ID, PRNumber: 2, State: queue.StatePending, SubmittedAt: epoch})
			})
		}},
	}
	for _, w := range stale {
		if err := w.write(); !errors.Is(err, queue.ErrLeaseLost) {
			t.Errorf("%s under the stale fence = %v; want ErrLeaseLost", w.name, err)
		}
	}
	got, err := b.GetEntryByID(ctx, "e1")
	if err != nil || got.State != queue.StatePending {
		t.Fatalf("entry after the stale writes = %+v, %v; want it pending", got, err)
	}
	if _, err := b.GetEntryByID(ctx, "e2"); !errors.Is(err, queue.ErrNotFound) {
		t.Fatalf("the stale transaction's entry: %v; want none", err)
	}
	if gq, err := b.GetQueueByID(ctx, q.ID); err != nil || gq.State != queue.QueueRunning {
		t.Fatalf("queue after the stale writes = %+v, %v; want running", gq, err)
	}
	if evs, err := b.EventsAfter(ctx, 0, 10); err != nil || len(evs) != 0 {
		t.Fatalf("events after the stale writes = %v, %v; want none", evs, err)
	}
	if after := a.QueueVersion(q.ID); after != before {
		t.Fatalf("queue version moved by refused writes: %d -> %d", before, after)
	}
	bctx := queue.WithFence(ctx, leaseFence{lb})
	e3 := *e
	e3.State = queue.StateCancelled
	if err := b.SaveEntry(bctx, &e3); err != nil {
		t.Fatalf("the new holder's fenced write: %v", err)
	}
	if err := a.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: "e1", PRNumber: 1, At: epoch, To: queue.StateCancelled}); err != nil {
		t.Fatalf("an unfenced write: %v", err)
	}
}
