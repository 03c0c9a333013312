package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
)

type syncFunc func(ctx context.Context, id int64) (time.Time, error)

// SyncQueue runs f; the queue is never found idle.
func (f syncFunc) SyncQueue(ctx context.Context, id int64) (service.SyncResult, error) {
	next, err := f(ctx, id)
	return service.SyncResult{Next: next}, err
}

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

// A transient sync failure (GitHub answered a 502) is retried after a
// short jittered backoff, not after seconds growing to the reconcile
// interval; other failures still back off to the interval.
func TestWorkersRetryTransientFailuresSoon(t *testing.T) {
	var calls atomic.Int32
	errs := []error{
		fmt.Errorf("failed to read head: %w", queue.ErrTransient),
		fmt.Errorf("failed to merge: %w", queue.ErrTransient),
		fmt.Errorf("failed to build: %w", queue.ErrTransient),
		fmt.Errorf("failed to read head: %w", queue.ErrTransient),
		errors.New("database is locked"),
		errors.New("database is locked"),
	}
	w := NewWorkers(syncFunc(func(context.Context, int64) (time.Time, error) {
		n := int(calls.Add(1))
		if n <= len(errs) {
			return time.Time{}, errs[n-1]
		}
		return time.Time{}, nil
	}), 30*time.Second, nil)
	var mu sync.Mutex
	var waits []time.Duration
	w.jitter = func() float64 { return 0.5 }
	w.timer = func(d time.Duration) (<-chan time.Time, func() bool) {
		mu.Lock()
		waits = append(waits, d)
		n := len(waits)
		mu.Unlock()
		fired := make(chan time.Time, 1)
		if n <= len(errs) { // the waits after failures pass at once
			fired <- time.Time{}
		}
		return fired, func() bool { return true }
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	w.Wake(1)
	waitUntil(t, func() bool { return calls.Load() > int32(len(errs)) })
	cancel()
	w.Wait()
	mu.Lock()
	defer mu.Unlock()
	// Before: 2 s, 4 s, 8 s, 16 s, then the interval.
	want := []time.Duration{75 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond,
		30 * time.Second, 30 * time.Second, 30 * time.Second}
	// A sync may run once more (a wake) before the worker sees the
	// cancellation: a wait after the last one wanted is the interval too.
	extra := waits[min(len(want), len(waits)):]
	if len(waits) < len(want) || !slices.Equal(waits[:len(want)], want) ||
		slices.ContainsFunc(extra, func(d time.Duration) bool { return d != 30*time.Second }) {
		t.Fatalf("waits %v, want %v (and then only the interval)", waits, want)
	}
}

// A sync whose save found an entry changed by another replica
// (queue.ErrConflict) decides again soon, on fresh state, as after a
// transient GitHub failure: not seconds later.
func TestWorkersRetryConflictsSoon(t *testing.T) {
	w := NewWorkers(nil, 30*time.Second, nil)
	w.jitter = func() float64 { return 0.5 }
	err := fmt.Errorf("failed to record merge intent: %w", queue.ErrConflict)
	for failures, want := range map[int]time.Duration{1: 75 * time.Millisecond, 2: 150 * time.Millisecond, 10: 3750 * time.Millisecond} {
		if got := w.retryWait(err, failures); got != want {
			t.Errorf("wait after %d conflicts in a row: %v, want %v", failures, got, want)
		}
	}
}
