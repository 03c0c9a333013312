package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
)

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

func TestWithTxRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	errBoom := errors.New("boom")
	cases := []struct {
		name string
		fn   func(s *Store, q *queue.Queue) func(queue.Store) error
		want error
	}{
		{"error", func(s *Store, q *queue.Queue) func(queue.Store) error {
			return func(tx queue.Store) error {
				if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
					return err
				}
				return errBoom
			}
		}, errBoom},
		{"error from a nested WithTx", func(s *Store, q *queue.Queue) func(queue.Store) error {
			return func(tx queue.Store) error {
				if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
					return err
				}
				return tx.WithTx(ctx, func(inner queue.Store) error {
					if err := inner.AddMerge(ctx, queue.MergeRecord{QueueID: q.ID}); err != nil {
						return err
					}
					return errBoom
				})
			}
		}, errBoom},
		{"store error", func(s *Store, q *queue.Queue) func(queue.Store) error {
			return func(tx queue.Store) error {
				if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
					return err
				}
				return tx.CreateQueue(ctx, newQueue(testRepo, "main"))
			}
		}, queue.ErrExists},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := openTest(t)
			q := mustQueue(t, s, "main")
			if err := s.WithTx(ctx, tc.fn(s, q)); !errors.Is(err, tc.want) {
				t.Fatalf("WithTx = %v, want %v", err, tc.want)
			}
			if _, err := s.GetEntryByID(ctx, "e"); !errors.Is(err, queue.ErrNotFound) {
				t.Errorf("entry kept after rollback: %v", err)
			}
			if m, err := s.ListMerges(ctx, q.ID, 0); err != nil || len(m) != 0 {
				t.Errorf("merge kept after rollback: %v, %v", m, err)
			}
			// The writer is free again.
			if err := s.SaveEntry(ctx, pendingEntry("after", q.ID, 2)); err != nil {
				t.Errorf("write after rollback: %v", err)
			}
		})
	}
}

func TestWithTxRollsBackOnPanic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic did not propagate")
			}
		}()
		_ = s.WithTx(ctx, func(tx queue.Store) error {
			if err := tx.SaveEntry(ctx, pendingEntry("e", q.ID, 1)); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if _, err := s.GetEntryByID(ctx, "e"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("entry kept after panic: %v", err)
	}
	if err := s.SaveEntry(ctx, pendingEntry("after", q.ID, 2)); err != nil {
		t.Errorf("write after panic: %v", err)
	}
}

func TestNestedWithTxSharesTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	err := s.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.WithTx(ctx, func(inner queue.Store) error {
			return inner.SaveEntry(ctx, pendingEntry("e", q.ID, 1))
		}); err != nil {
			return err
		}
		// The inner write is visible to the outer transaction, and not yet
		// committed.
		if _, err := tx.GetEntryByID(ctx, "e"); err != nil {
			return err
		}
		if _, err := s.GetEntryByID(ctx, "e"); !errors.Is(err, queue.ErrNotFound) {
			return errors.New("inner WithTx committed on its own")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("WithTx: %v", err)
	}
	if _, err := s.GetEntryByID(ctx, "e"); err != nil {
		t.Errorf("entry not committed: %v", err)
	}
}

func TestTxStoreServesInboxAndTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	err := s.WithTx(ctx, func(tx queue.Store) error {
		inbox, ok := tx.(queue.Inbox)
		if !ok {
			return errors.New("tx store is not a queue.Inbox")
		}
		_, err := inbox.PutDelivery(ctx, queue.Delivery{ID: "d", Event: "push", ReceivedAt: t0})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.PendingDeliveries(ctx, 0); err != nil || len(got) != 1 {
		t.Errorf("PendingDeliveries = %v, %v", got, err)
	}
}

func TestWithTxHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	err := s.WithTx(ctx, func(queue.Store) error { called = true; return nil })
	if err == nil || called {
		t.Errorf("WithTx on a cancelled context = %v (fn called %v), want an error before fn", err, called)
	}
}
