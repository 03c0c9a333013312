package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// A transaction's writes move the version once it committed, not before
// (a reader must not keep the old state under the new version), and a
// rolled-back one's never.
func TestQueueVersionFollowsCommits(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	before := s.QueueVersion(q.ID)
	err := s.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveEntry(ctx, pendingEntry("e1", q.ID, 1)); err != nil {
			return err
		}
		if got := s.QueueVersion(q.ID); got != before {
			t.Errorf("version moved inside the transaction: %d → %d", before, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	committed := s.QueueVersion(q.ID)
	if committed <= before {
		t.Fatalf("committed transaction: version %d → %d", before, committed)
	}
	boom := errors.New("boom")
	err = s.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveEntry(ctx, pendingEntry("e2", q.ID, 2)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if got := s.QueueVersion(q.ID); got != committed {
		t.Errorf("rolled-back transaction moved the version: %d → %d", committed, got)
	}
}

// Pruning events moves every queue's version (an ended entry's last event
// says which run decided it); pruning nothing moves none.
func TestPruneMovesVersions(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	if err := s.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: "e", PRNumber: 1, At: t0, To: queue.StatePending}); err != nil {
		t.Fatal(err)
	}
	before := s.QueueVersion(q.ID)
	if _, err := s.Prune(ctx, t0.Add(-time.Hour), t0.Add(-time.Hour), -1); err != nil {
		t.Fatal(err)
	}
	if got := s.QueueVersion(q.ID); got != before {
		t.Errorf("pruning nothing moved the version: %d → %d", before, got)
	}
	if p, err := s.Prune(ctx, t0.Add(time.Hour), t0.Add(time.Hour), -1); err != nil || p.Events != 1 {
		t.Fatalf("Prune = %+v, %v", p, err)
	}
	if got := s.QueueVersion(q.ID); got <= before {
		t.Errorf("pruning an event left the version at %d", got)
	}
}
