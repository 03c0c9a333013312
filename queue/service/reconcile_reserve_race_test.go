package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
)

// changingStore is a memstore whose GetEntryByID, once armed, runs change
// right after it read the entry: another replica (the queue's holder)
// moving the entry on between the reconciler's reads.
type changingStore struct {
	*memstore.Store
	mu     sync.Mutex
	armed  bool
	change func()
}

func (s *changingStore) GetEntryByID(ctx context.Context, id string) (*queue.Entry, error) {
	e, err := s.Store.GetEntryByID(ctx, id)
	s.mu.Lock()
	fire := s.armed
	s.armed = false
	s.mu.Unlock()
	if fire {
		s.change()
	}
	return e, err
}

// A surface's entry that moves on (merged by the queue's holder on another
// replica) between the reconciler's reload of the entry and of the surface
// after waiting for budget is written again at the next pass: the change
// the reconciler did not see is not counted as served. The reload read
// the surface after the entry, counted the merge's change as served while
// it wrote the state before it, and the PR kept "tests passed" for good
// (seen in TestFailoverKillTheLeaseHolder: a merged PR's check run left
// queued and its label mq:tests-passed).
func TestAChangeBetweenTheReloadsIsWrittenAtTheNextPass(t *testing.T) {
	t.Parallel()
	store := &changingStore{Store: memstore.New()}
	w := newBudgetedWorld(t, store.Store, store)
	g, svc, e, set, ctx := w.g, w.svc, w.e, w.set, context.Background()
	set(queue.StateTestsPassed, queue.ReasonTestsPassed)
	store.change = func() { set(queue.StateMerged, queue.ReasonMergedByQueue) }
	stop := make(chan struct{})
	defer close(stop)
	go func() { // grants every reservation; arms the change for the reload after the first
		first := true
		for {
			select {
			case <-g.asked:
			case <-stop:
				return
			}
			if first {
				store.mu.Lock()
				store.armed = true
				store.mu.Unlock()
				first = false
			}
			g.grant <- struct{}{}
		}
	}()
	if _, err := svc.Reconciler().Pass(ctx); err != nil {
		t.Fatal(err)
	}
	if sf, err := store.GetSurface(ctx, e.ID); err != nil || !sf.Due() {
		t.Fatalf("surface after the pass that wrote the state before the merge: %+v, %v; want still due", sf, err)
	}
	if _, err := svc.Reconciler().Pass(ctx); err != nil {
		t.Fatal(err)
	}
	got := g.checkRunsOn("head1")
	if len(got) != 1 || got[0].Status != "completed" || got[0].Conclusion != "success" {
		t.Fatalf("check runs %+v, want one, showing the merge", got)
	}
	if sf, err := store.GetSurface(ctx, e.ID); err != nil || sf.Due() {
		t.Fatalf("surface %+v, %v; want up to date", sf, err)
	}
}
