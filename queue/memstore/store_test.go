package memstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/storetest"
)

// TestConformance runs the Store conformance suite, which the SQLite store
// passes too.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(*testing.T) queue.Store { return memstore.New() })
}

func TestTxStoreUnusableAfterTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := memstore.New()
	var leaked queue.Store
	if err := s.WithTx(ctx, func(tx queue.Store) error { leaked = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := leaked.ListQueues(ctx); err == nil {
		t.Error("a transaction's store worked after the transaction ended")
	}
	if err := leaked.WithTx(ctx, func(queue.Store) error { return nil }); err == nil {
		t.Error("WithTx on an ended transaction's store succeeded")
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := memstore.New().ListQueues(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("ListQueues on a cancelled context = %v, want context.Canceled", err)
	}
}
