package sqlite

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// Statements counts what the store sends to the file: one for a point
// read, one for a write outside a transaction, and a transaction's begin
// and commit beside what runs in it; a read of a missing row is still one.
func TestStatementsCountsWhatTheStoreSends(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	step := func(what string, want int64, fn func() error) {
		t.Helper()
		before := s.Statements()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := s.Statements() - before; got != want {
			t.Errorf("%s counted %d statements, want %d", what, got, want)
		}
	}
	step("a point read", 1, func() error { _, err := s.GetQueueByID(ctx, q.ID); return err })
	step("a read of a missing queue", 1, func() error {
		if _, err := s.GetQueueByID(ctx, q.ID+100); err == nil {
			t.Error("a missing queue was found")
		}
		return nil
	})
	step("a list of entries", 1, func() error { _, err := s.ListActiveEntries(ctx, q.ID); return err })
	step("a transaction of two reads", 4, func() error {
		return s.WithTx(ctx, func(tx queue.Store) error {
			if _, err := tx.GetQueueByID(ctx, q.ID); err != nil {
				return err
			}
			_, err := tx.ListActiveEntries(ctx, q.ID)
			return err
		})
	})
}
