package app

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/service"
)

// idleSyncer finds its queue idle unless busy; it counts its syncs and
// runs during (if set) inside each.
type idleSyncer struct {
	busy   atomic.Bool
	syncs  atomic.Int32
	during func()
}

func (s *idleSyncer) SyncQueue(context.Context, int64) (service.SyncResult, error) {
	s.syncs.Add(1)
	if s.during != nil {
		s.during()
	}
	return service.SyncResult{Idle: !s.busy.Load()}, nil
}

func (w *Workers) running(queueID int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.wakes[queueID]
	return ok
}

// A queue found idle costs nothing until woken: its worker releases the
// lease and ends (no sync at the interval, no renewal, no attempt to take
// the lease); a wake starts it again, under a lease taken anew, and a
// queue with work is synced at the interval as before.
func TestWorkersLeaveIdleQueuesUntilWoken(t *testing.T) {
	leases := &fakeLeases{}
	leases.set(func(f *fakeLeases) { f.grant = true })
	s := &idleSyncer{}
	w := NewWorkers(s, 20*time.Millisecond, nil)
	var takeOvers atomic.Int32
	w.UseLeases(leases, "replica-a", time.Hour, func(int64) { takeOvers.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	w.Wake(7)
	waitUntil(t, func() bool { return s.syncs.Load() == 1 && !w.running(7) && len(leases.get().released) == 1 })
	c := leases.get()
	if c.acquires != 1 || c.released[0].QueueID != 7 {
		t.Fatalf("an idle queue's worker: %d acquires, released %v; want one each", c.acquires, c.released)
	}
	// Nothing happens while nobody wakes it: a busy queue syncs every
	// 20 ms, so 30 of them would have gone by.
	other := &idleSyncer{}
	other.busy.Store(true)
	wb := NewWorkers(other, 20*time.Millisecond, nil)
	wb.Start(ctx)
	wb.Wake(8)
	waitUntil(t, func() bool { return other.syncs.Load() >= 30 })
	if n := s.syncs.Load(); n != 1 {
		t.Fatalf("an idle queue was synced %d times without a wake-up; want once", n)
	}
	if c := leases.get(); c.acquires != 1 || c.renewals != 0 {
		t.Fatalf("an idle queue's lease was acquired %d times and renewed %d times; want once and never", c.acquires, c.renewals)
	}
	s.busy.Store(true)
	w.Wake(7)
	waitUntil(t, func() bool { return s.syncs.Load() >= 4 })
	if !w.running(7) || leases.get().acquires != 2 || takeOvers.Load() != 2 {
		t.Fatalf("a woken queue with work: running %v, %d acquires, %d take-overs; want running, 2 and 2", w.running(7), leases.get().acquires, takeOvers.Load())
	}
	cancel()
	w.Wait()
	wb.Wait()
}

// A wake-up that arrives while the sync finding the queue idle runs is
// not lost: the worker syncs again instead of ending.
func TestWorkersIdleSyncKeepsAWakeUpThatCameMeanwhile(t *testing.T) {
	leases := &fakeLeases{}
	leases.set(func(f *fakeLeases) { f.grant = true })
	s := &idleSyncer{}
	var w *Workers
	s.during = func() {
		if s.syncs.Load() == 1 {
			w.Wake(3) // a PR submitted while the first sync reads
		}
	}
	w = NewWorkers(s, time.Hour, nil)
	w.UseLeases(leases, "replica-a", time.Hour, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	w.Wake(3)
	waitUntil(t, func() bool { return s.syncs.Load() == 2 && !w.running(3) })
	cancel()
	w.Wait()
}

// The leases of every queue a replica holds are renewed together, in one
// call (one statement) per renewal, not one per queue.
func TestWorkersRenewEveryLeaseInOneCall(t *testing.T) {
	leases := &fakeLeases{}
	leases.set(func(f *fakeLeases) { f.grant, f.oneToken = true, true })
	s := &idleSyncer{}
	s.busy.Store(true)
	w := NewWorkers(s, time.Hour, nil)
	// A TTL long enough that a renewal is never late on a loaded machine
	// (90 ms lost a lease under go test -race beside simulations).
	w.UseLeases(leases, "replica-a", 600*time.Millisecond, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Start(ctx)
	for id := range int64(5) {
		w.Wake(id + 1)
	}
	waitUntil(t, func() bool {
		b := leases.get().batches
		return len(b) >= 3 && b[len(b)-1] == 5 && b[len(b)-2] == 5
	})
	if n := s.syncs.Load(); n != 5 {
		t.Errorf("%d syncs; want one per queue (no lease lost)", n)
	}
	cancel()
	w.Wait()
}
