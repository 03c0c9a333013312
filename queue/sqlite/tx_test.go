package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

func TestTxStoreServesInboxAndTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	err := s.WithTx(ctx, func(tx queue.Store) error {
		deliveries, ok := tx.(interface {
			PutDelivery(ctx context.Context, d record.Delivery) (bool, error)
		})
		if !ok {
			return errors.New("tx store cannot put deliveries")
		}
		_, err := deliveries.PutDelivery(ctx, record.Delivery{ID: "d", Event: "push", ReceivedAt: t0})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.PendingDeliveries(ctx, 0); err != nil || len(got) != 1 {
		t.Errorf("PendingDeliveries = %v, %v", got, err)
	}
}

// The SQLite-specific part, beyond the store conformance suite: readers
// outside a transaction do not see its uncommitted writes.
func TestWithTxCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	var qid int64
	err := s.WithTx(ctx, func(tx queue.Store) error {
		q := newQueue(testRepo, "main")
		if err := tx.CreateQueue(ctx, q); err != nil {
			return err
		}
		qid = q.ID
		if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
			return err
		}
		// fn's store reads its own writes.
		if _, err := tx.GetEntryByID(ctx, "e"); err != nil {
			return err
		}
		got, err := tx.ListActiveEntries(ctx, q.ID)
		if err != nil || len(got) != 1 {
			return errors.Join(err, errors.New("tx does not see its own entry"))
		}
		// Readers outside the transaction do not see uncommitted writes.
		if _, err := s.GetEntryByID(ctx, "e"); !errors.Is(err, queue.ErrNotFound) {
			return errors.Join(err, errors.New("uncommitted entry visible outside the tx"))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithTx: %v", err)
	}
	if _, err := s.GetQueueByID(ctx, qid); err != nil {
		t.Errorf("queue not committed: %v", err)
	}
	if _, err := s.GetEntryByID(ctx, "e"); err != nil {
		t.Errorf("entry not committed: %v", err)
	}
}
