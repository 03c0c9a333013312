package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// Tunings is the port of autoTune's tunings in force (declared by its
// consumers, queue/service and queue/readside): every store serves it,
// inside a transaction too.
type Tunings interface {
	QueueTuning(ctx context.Context, queueID int64) (*queue.QueueTuning, error)
	SaveQueueTuning(ctx context.Context, t queue.QueueTuning) error
	DeleteQueueTuning(ctx context.Context, queueID int64) error
}

func tunings(t *testing.T, s queue.Store) Tunings {
	t.Helper()
	tu, ok := s.(Tunings)
	if !ok {
		t.Fatalf("%T does not keep autoTune's tunings (QueueTuning, SaveQueueTuning, DeleteQueueTuning)", s)
	}
	return tu
}

var tuningTests = []testCase{
	{"tuning/saved apart from the settings, replaced, deleted", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		tu := tunings(t, s)
		if _, err := tu.QueueTuning(ctx, q.ID); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("a queue without a tuning: %v, want ErrNotFound", err)
		}
		first := queue.QueueTuning{QueueID: q.ID, Values: queue.TunedValues{Concurrency: 4, PendingFailureDepth: 1, CanOptimisticallyMerge: true},
			From: queue.TunedValuesOf(q.Settings), Reason: "first observation (12 PR/h): concurrency 4, depth 1", At: at(0)}
		must(t, tu.SaveQueueTuning(ctx, first))
		got, err := tu.QueueTuning(ctx, q.ID)
		must(t, err)
		assertEqual(t, *got, first)
		second := queue.QueueTuning{QueueID: q.ID, Values: queue.TunedValues{Concurrency: 3, Batch: true, BatchingMinSize: 2,
			BatchingMaxSize: 8, BisectionConcurrency: 3, BisectionParts: 8, IsolationRuns: true}, From: first.Values,
			Reason: "flake rate rose to 9 %: batches 2..8 split 8", At: at(15 * 60e9)}
		must(t, tu.SaveQueueTuning(ctx, second))
		got, err = tu.QueueTuning(ctx, q.ID)
		must(t, err)
		assertEqual(t, *got, second)
		// The configured settings are untouched, and other queues have none.
		back, err := s.GetQueueByID(ctx, q.ID)
		must(t, err)
		assertEqual(t, back.Settings, q.Settings)
		if _, err := tu.QueueTuning(ctx, other.ID); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("another queue's tuning: %v, want ErrNotFound", err)
		}
		must(t, tu.DeleteQueueTuning(ctx, q.ID))
		must(t, tu.DeleteQueueTuning(ctx, q.ID)) // none: no error
		if _, err := tu.QueueTuning(ctx, q.ID); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("after delete: %v, want ErrNotFound", err)
		}
	}},
	{"tuning/rolled back with its transaction, gone with its queue", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		tu := tunings(t, s)
		kept := queue.QueueTuning{QueueID: q.ID, Values: queue.TunedValues{Concurrency: 2}, Reason: "kept", At: at(0)}
		must(t, tu.SaveQueueTuning(ctx, kept))
		boom := errors.New("boom")
		err := s.WithTx(ctx, func(tx queue.Store) error {
			ttx := tunings(t, tx)
			if err := ttx.SaveQueueTuning(ctx, queue.QueueTuning{QueueID: q.ID, Values: queue.TunedValues{Concurrency: 9}, Reason: "lost", At: at(1)}); err != nil {
				return err
			}
			got, err := ttx.QueueTuning(ctx, q.ID)
			if err != nil || got.Reason != "lost" {
				t.Errorf("the transaction does not see its own write: %+v, %v", got, err)
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("WithTx = %v", err)
		}
		got, err := tu.QueueTuning(ctx, q.ID)
		must(t, err)
		assertEqual(t, *got, kept)
		must(t, s.DeleteQueue(ctx, q.ID))
		if _, err := tu.QueueTuning(ctx, q.ID); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("a deleted queue's tuning: %v, want ErrNotFound", err)
		}
	}},
}
