package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// A write committed through one replica's store moves the queue's version
// as every replica's store reads it (once its notification arrives), so
// that no replica's read model keeps serving what it read before; a write
// to another queue does not.
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
		after := movedFrom(t, a, q.ID, before)
		if after == before {
			t.Fatalf("%s through the other replica left the version at %d for %v", w.name, before, versionNotice)
		}
		before = after
	}
	if got := a.QueueVersion(other.ID); got != otherBefore {
		t.Fatalf("writes to queue %d moved queue %d's version: %d -> %d", q.ID, other.ID, otherBefore, got)
	}
}

// versionNotice bounds the wait for another replica's write to move a
// queue's version: its notification's delivery (milliseconds), well under
// the staleness bound of a lost one.
const versionNotice = 2 * time.Second

// movedFrom polls s's version of queueID until it is no longer before, for
// up to versionNotice, and returns it.
func movedFrom(t *testing.T, s interface{ QueueVersion(int64) uint64 }, queueID int64, before uint64) uint64 {
	t.Helper()
	deadline := time.Now().Add(versionNotice)
	for {
		v := s.QueueVersion(queueID)
		if v != before || time.Now().After(deadline) {
			return v
		}
		time.Sleep(time.Millisecond) // polling interval, not a wait for an outcome
	}
}

// Once the store listens to the version notifications, repeated reads of
// an unchanged queue's version do not query the database (they did, once a
// read: 1.9x slower reads than SQLite); a write of this process moves the
// version before it returns, without waiting for its notification; and a
// write of another replica is read from the database once notified.
func TestQueueVersionIsServedFromMemoryUntilNotified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, q, _ := replicas(t)
	var v uint64
	deadline := time.Now().Add(10 * time.Second)
	for {
		v = a.QueueVersion(q.ID)
		n := a.VersionQueries()
		for range 100 {
			if got := a.QueueVersion(q.ID); got != v {
				t.Fatalf("version moved without a write: %d -> %d", v, got)
			}
		}
		if a.VersionQueries() == n {
			break // the listener is live: served from memory
		}
		if time.Now().After(deadline) {
			t.Fatalf("100 reads of an unchanged queue's version still query the database (%d queries in all)", a.VersionQueries())
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not a wait for an outcome
	}
	e := &queue.Entry{ID: "e1", QueueID: q.ID, PRNumber: 1, State: queue.StatePending, SubmittedAt: epoch}
	if err := a.SaveEntry(ctx, e); err != nil {
		t.Fatal(err)
	}
	own := a.QueueVersion(q.ID)
	if own == v {
		t.Fatal("this process's own write did not move the version before it returned")
	}
	// Its notification arrives too: the version is read again, once.
	n := a.VersionQueries()
	for deadline := time.Now().Add(versionNotice); a.VersionQueries() == n; {
		if got := a.QueueVersion(q.ID); got < own {
			t.Fatalf("the version went back: %d -> %d", own, got)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the notification of this process's own write did not arrive within %v", versionNotice)
		}
		time.Sleep(time.Millisecond) // polling interval, not a wait for an outcome
	}
	settled := a.QueueVersion(q.ID)
	e2 := &queue.Entry{ID: "e2", QueueID: q.ID, PRNumber: 2, State: queue.StatePending, SubmittedAt: epoch}
	if err := b.SaveEntry(ctx, e2); err != nil {
		t.Fatal(err)
	}
	if got := movedFrom(t, a, q.ID, settled); got <= settled {
		t.Fatalf("another replica's write left the version at %d for %v", settled, versionNotice)
	}
}
