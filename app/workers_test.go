package app

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/service"
)

type syncFunc func(ctx context.Context, id int64) (time.Time, error)

func (f syncFunc) Sync(ctx context.Context, id int64) (time.Time, error) { return f(ctx, id) }

// A worker syncs its queue when woken, and stops for good once the queue
// is gone.
func TestWorkersStopForDeletedQueue(t *testing.T) {
	var calls atomic.Int32
	var gone atomic.Bool
	w := NewWorkers(syncFunc(func(context.Context, int64) (time.Time, error) {
		calls.Add(1)
		if gone.Load() {
			return time.Time{}, fmt.Errorf("queue 1: %w", service.ErrNoQueue)
		}
		return time.Time{}, nil
	}), time.Hour, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	w.Wake(1)
	waitUntil(t, func() bool { return calls.Load() >= 1 })
	gone.Store(true)
	w.Wake(1)
	waitUntil(t, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, running := w.wakes[1]
		return !running
	})
	cancel()
	w.Wait()
}

// waitUntil polls cond until it holds, with a bound of its own per call that
// is generous for a busy machine running -race.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	const bound = 60 * time.Second
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not reached within %v", bound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
