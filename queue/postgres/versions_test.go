package postgres_test

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A write committed through one replica's store moves the queue's version
// as every replica's store reads it, so that no replica's read model keeps
// serving what it read before; a write to another queue does not.
func TestQueueVersionSeesOtherReplicasWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q, _ := replicas(t)
	other := &queue.Queue{Key: queue.QueueKey{Repo: q.Key.Repo, Branch: "dev"}, State: queue.QueueRunning,
		Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: epoch, UpdatedAt: epoch}
	if err := a.CreateQueue(ctx, other); err != nil {
		t.Fatal(err)
	}
	before, otherBefore := a.QueueVersion(q.ID), a.QueueVersion(other.ID)
	if again := a.QueueVersion(q.ID); again != before {
		t.Fatalf("version moved without a write: %d -> %d", before, again)
	}
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{"SaveEntry", func() error {
			return b.SaveEntry(ctx, &queue.Entry{ID: "e1", QueueID: q.ID, PRNumber: 1, State: queue.StatePending, SubmittedAt: epoch})
		}},
		{"AddEvent", func() error {
			return b.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: "e1", PRNumber: 1, At: epoch, To: queue.StatePending})
		}},
		{"UpdateQueue", func() error { q.State = queue.QueuePaused; return b.UpdateQueue(ctx, q) }},
		{"WithTx", func() error {
			return b.WithTx(ctx, func(tx queue.Store) error {
				return tx.SaveEntry(ctx, &queue.Entry{ID: "e2", QueueID: q.ID, PRNumber: 2, State: queue.StatePending, SubmittedAt: epoch})
			})
		}},
	} {
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		after := a.QueueVersion(q.ID)
		if after == before {
			t.Fatalf("%s through the other replica left the version at %d", w.name, before)
		}
		before = after
	}
	if got := a.QueueVersion(other.ID); got != otherBefore {
		t.Fatalf("writes to queue %d moved queue %d's version: %d -> %d", q.ID, other.ID, otherBefore, got)
	}
}
